"""A GGUF teacher read once by transformers and kept as a HF directory (:mod:`charwise.teachers.gguf_cache`):
what the directory gives is what the file gives, a stale or unfinished directory is rebuilt, and a cache
that cannot be written costs the slow load, nothing else."""

from __future__ import annotations

import json

import pytest
import torch

from charwise.teachers import Teacher, gguf_cache
from charwise.teachers.gguf_cache import CACHE_FORMAT, SOURCE_RECORD, directory_record

FILES = ("config.json", "model.safetensors", "tokenizer.json")


def _built(directory, **changes):
    directory.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        (directory / name).write_text("{}")
    record = {"format": CACHE_FORMAT, "gguf_sha256": "abc", "tied": True,
              "input_embeddings": "model.embed_tokens.weight", "transformers": gguf_cache._transformers_version(),
              **changes}
    (directory / SOURCE_RECORD).write_text(json.dumps(record))
    return directory


def test_a_directory_is_read_only_for_its_file_its_transformers_and_with_every_file(tmp_path):
    assert directory_record(_built(tmp_path / "a"), "abc")["tied"] is True
    assert directory_record(_built(tmp_path / "b"), "another file") is None
    assert directory_record(_built(tmp_path / "c", transformers="0.0.1"), "abc") is None  # read by another version
    assert directory_record(_built(tmp_path / "d", format=CACHE_FORMAT + 1), "abc") is None
    assert directory_record(_built(tmp_path / "e", tied="yes"), "abc") is None
    unfinished = _built(tmp_path / "f")
    (unfinished / "model.safetensors").unlink()
    assert directory_record(unfinished, "abc") is None
    (unfinished / "model.safetensors").write_text("{}")
    (unfinished / SOURCE_RECORD).write_text("{not json")
    assert directory_record(unfinished, "abc") is None
    assert directory_record(tmp_path / "missing", "abc") is None


@pytest.mark.real
@pytest.mark.slow
def test_the_cached_directory_gives_what_the_file_gives_and_an_unwritable_cache_reads_the_file(
        smollm2_gguf, tmp_path, monkeypatch):
    cached = Teacher.load(str(smollm2_gguf))  # the cache every real test shares: built once, then read
    assert cached.source == str(smollm2_gguf)
    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gguf_cache, "build_model_directory", full)
    direct = Teacher.load(str(smollm2_gguf))  # read from the file, as before the cache
    assert not any(p.name.startswith("gguf-") for p in (tmp_path / "cache").iterdir())
    assert torch.equal(cached.embeddings, direct.embeddings) and cached.tied == direct.tied is True
    assert cached.vocab_hash == direct.vocab_hash
    texts = ["I recieved it yesterday, thx!!", "naïve café 😀 \u200b", "<|endoftext|> tabs\tand  spaces", ""]
    ids = cached.tokenizer(texts, add_special_tokens=False)["input_ids"]
    assert ids == direct.tokenizer(texts, add_special_tokens=False)["input_ids"]
    x = torch.tensor([ids[0]])
    with torch.no_grad():
        assert torch.equal(cached.model(x).logits, direct.model(x).logits)  # to the bit
    assert getattr(cached.model, "hf_quantizer", None) is None  # plain float32 weights: saved, fine-tuned as any


def test_a_gguf_file_without_token_embeddings_is_a_one_line_error(tmp_path, monkeypatch):
    import gguf
    import numpy as np

    from charwise.errors import TeacherNotFoundError

    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "no-embeddings.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tensor("blk.0.attn_q.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(TeacherNotFoundError, match="no token_embd.weight tensor: not a language model's GGUF"):
        Teacher.load(str(path))
    assert not any(p.name.startswith("gguf-") for p in (tmp_path / "cache").iterdir())  # nothing half-built
