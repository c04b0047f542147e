"""A GGUF model read once by transformers and kept as a HF model directory, so later loads take a second.

transformers reads a ``.gguf`` file by parsing its metadata once for the configuration, once for the
tokenizer and once more for the weights, mapping every tensor name and dequantizing every tensor:
about 20 s for SmolLM2-135M on one core, at every load (``charwise correct --context smollm2``, a
hybrid model, a test). :func:`gguf_model_directory` does that once and saves what it produced
(``config.json``, ``model.safetensors``, the tokenizer files and :data:`SOURCE_RECORD`) under
``$CHARWISE_CACHE/gguf-<file stem>-<hash>`` (default ``~/.cache/charwise``), written atomically; later
loads read the directory (safetensors, memory-mapped). The weights are the float32 tensors transformers
dequantized, stored as they are: what a model loaded from the directory computes is what it computed
loaded from the file (tested to the bit on SmolLM2). The directory is rebuilt when the file or the
transformers version changes (a newer transformers may read a GGUF file differently); ``charwise cache
prune`` removes one no longer used. A cache folder that cannot be written costs the slow load, nothing else.

Example::

    directory, record = gguf_model_directory(Path("SmolLM2-135M-Instruct.Q4_1.gguf"))   # ~20 s once, then ~0.3 s
    model = AutoModelForCausalLM.from_pretrained(directory)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from charwise.cache import building, cache_lock, cache_root, file_sha256, mark_used
from charwise.errors import TeacherNotFoundError

SOURCE_RECORD = "charwise_gguf_source.json"  # what a cache directory was built from
CACHE_FORMAT = 1  # bump when the directory's layout or contents change
CACHE_PREFIX = "gguf-"


def _transformers_version() -> str:
    import transformers

    return str(transformers.__version__)


def cache_directory(path: Path, digest: str) -> Path:
    """Where the directory of the GGUF file ``path`` (whose SHA-256 is ``digest``) is kept."""
    return cache_root() / f"{CACHE_PREFIX}{path.stem}-{digest[:16]}"


def read_gguf(path: Path) -> tuple[Any, Any, bool]:
    """(tokenizer, causal LM, whether its output matrix is tied to the input embeddings) of the GGUF
    file ``path``, read by transformers (the slow path)."""
    from gguf import GGUFReader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from charwise.model_files import no_progress_bars

    names = {t.name for t in GGUFReader(str(path)).tensors}
    if "token_embd.weight" not in names:
        raise TeacherNotFoundError(f"'{path}' has no token_embd.weight tensor: not a language model's GGUF file")
    tied = "output.weight" not in names  # GGUF omits the output matrix when it is tied
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    with no_progress_bars():
        model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name)
    return tokenizer, model, tied


def _distinct_tensors(model: Any, keep: str) -> dict[str, Any]:
    """``model``'s state, each tensor once: of names that share one tensor (a tied output matrix) the
    name ``keep`` where it is one of them, else the first; from_pretrained ties the others again."""
    chosen: dict[int, str] = {}
    state = model.state_dict()
    for name, tensor in state.items():
        key = tensor.untyped_storage().data_ptr()
        if key not in chosen or name == keep:
            chosen[key] = name
    return {name: state[name].contiguous() for name in chosen.values()}


def build_model_directory(path: Path, directory: Path, digest: str) -> Path:
    """Write the GGUF file ``path`` as a HF causal-LM directory at ``directory``, atomically."""
    from safetensors.torch import save_file

    from charwise.io import atomic_directory

    tokenizer, model, tied = read_gguf(path)
    embeddings = model.get_input_embeddings().weight
    name = next(n for n, p in model.named_parameters(remove_duplicate=False) if p is embeddings)
    record = {"format": CACHE_FORMAT, "gguf": str(path), "gguf_sha256": digest, "tied": tied, "input_embeddings": name,
              "transformers": _transformers_version(),
              "note": "the GGUF file as transformers reads it: configuration, tokenizer, float32 weights"}
    with atomic_directory(directory) as tmp:
        # transformers will not save a model it read from GGUF (save_pretrained refuses): its weights, dequantized,
        # are plain float32 tensors, saved here with its configuration (a tied output matrix once)
        config = model.config.to_dict()
        config.pop("quantization_config", None)  # the weights saved are no longer quantized
        type(model.config).from_dict(config).save_pretrained(tmp)
        if model.generation_config is not None:
            model.generation_config.save_pretrained(tmp)
        save_file(_distinct_tensors(model, name), str(tmp / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(tmp)
        (tmp / SOURCE_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return directory


def directory_record(directory: Path, digest: str) -> dict[str, Any] | None:
    """The record of a complete directory built from the file with SHA-256 ``digest`` by this
    transformers version, or None (missing, unfinished, stale or foreign: to be rebuilt)."""
    try:
        record = json.loads((directory / SOURCE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = ("config.json", "model.safetensors", "tokenizer.json")
    current = (isinstance(record, dict) and record.get("format") == CACHE_FORMAT
               and record.get("gguf_sha256") == digest and record.get("transformers") == _transformers_version()
               and isinstance(record.get("tied"), bool) and isinstance(record.get("input_embeddings"), str)
               and all((directory / f).is_file() for f in files))
    return record if current else None


def gguf_model_directory(path: Path) -> tuple[Path, dict[str, Any]] | None:
    """(the cached HF directory of the GGUF file ``path``, its :data:`SOURCE_RECORD`: ``tied``, whether
    the output matrix is the input embeddings; ``input_embeddings``, that parameter's name), built on
    first use; None when the cache folder cannot be written (the caller reads the file itself)."""
    digest = file_sha256(path)
    directory = cache_directory(path, digest)
    with cache_lock(directory):
        record = directory_record(directory, digest)
        if record is None:
            try:
                with building(f"{path.name} as a HF model directory", directory):
                    build_model_directory(path, directory, digest)
            except OSError:  # a read-only or full cache: the slow load every time, as before
                return None
            record = directory_record(directory, digest)
            if record is None:
                return None
    mark_used(directory)  # what `charwise cache prune` keeps
    return directory, record


def input_embeddings(directory: Path, name: str) -> Any:
    """The input embedding table ``name`` (float32 tensor) of a cached directory, read without building the model."""
    from safetensors import safe_open

    with safe_open(str(directory / "model.safetensors"), framework="pt") as f:
        if name not in f.keys():
            raise TeacherNotFoundError(f"{directory}: model.safetensors has no {name}; remove the folder to rebuild it")
        return f.get_tensor(name).float().clone()
