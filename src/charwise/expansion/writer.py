"""Writing an expanded model: a plain Hugging Face checkpoint with the new words.

:func:`write_expanded_model` saves the tokenizer with the new words as whole-word vocabulary
entries (:func:`charwise.expansion.tokenizer.expanded_tokenizer_json`) and the input embeddings
resized with the new rows (a tied output matrix follows; an untied one gets the same combination
of its own rows). The directory is built and checked next to the output, then moved into place by
:func:`charwise.io.atomic_directory`: the output is never half-written.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import torch

from charwise.errors import ConfigError, InputError, OutputExistsError
from charwise.expansion.mappings import ExpansionRows
from charwise.expansion.selection import Selection
from charwise.expansion.tokenizer import check_new_tokens, expanded_tokenizer_json
from charwise.io import atomic_directory, write_json
from charwise.teachers import Teacher

REPORT_FILE = "charwise_expansion.json"


def _full_model(teacher: Teacher) -> Any:
    """The teacher's complete HF model (with its heads), ready for ``save_pretrained``."""
    import transformers
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

    from charwise.model_files import no_progress_bars

    source = Path(teacher.source) if teacher.source else None
    if source is None or not source.exists():
        raise ConfigError(f"teacher '{teacher.name}' has no model files to expand: load it with Teacher.load "
                          "from a built-in name, a model directory or a .gguf file")
    if source.is_file():  # GGUF: transformers dequantises it but marks the model as not serialisable
        gguf_model = teacher.model
        config = copy.deepcopy(gguf_model.config)
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(gguf_model.state_dict())
        model.tie_weights()
        return model.eval()
    config = AutoConfig.from_pretrained(source)
    arch = (getattr(config, "architectures", None) or [None])[0]
    # The class the checkpoint was saved from keeps its heads (AutoModel would drop an LM head).
    cls = getattr(transformers, arch, None) if arch else None
    with no_progress_bars():  # transformers' "Loading weights" bar
        return (cls or AutoModel).from_pretrained(source).eval()


def write_expanded_model(
    teacher: Teacher,
    selection: Selection,
    rows: ExpansionRows,
    out: str | os.PathLike,
    *,
    force: bool = False,
    report: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Save the teacher with ``selection``'s words added (tokenizer + resized embeddings) to ``out``.

    Everything is written to a temporary directory next to ``out``, checked (each new word is one
    token, alone and inside a sentence), then renamed into place by
    :func:`charwise.io.atomic_directory`: ``out`` is never half-written.
    An existing non-empty ``out`` is refused unless ``force``. Returns the report (also saved as
    ``charwise_expansion.json`` in ``out``).
    """
    from transformers import AutoTokenizer

    out = Path(out)
    check_output_dir(out, force)
    n = len(selection.tokens)
    if n == 0:
        raise InputError("no new words to add: the selection is empty")
    if rows.rows.shape != (n, teacher.dim):
        raise ValueError(f"expected {n} x {teacher.dim} rows, got {tuple(rows.rows.shape)}")
    tok_size = max(teacher.tokenizer.get_vocab().values()) + 1
    if tok_size > teacher.vocab_size:
        raise InputError(f"teacher '{teacher.name}': the tokenizer uses ids up to {tok_size - 1} but the embedding "
                         f"table has {teacher.vocab_size} rows")
    first_id = teacher.vocab_size
    new_ids = list(range(first_id, first_id + n))
    with atomic_directory(out) as tmp:
        spec, tok_info = expanded_tokenizer_json(teacher, selection.tokens, first_id)
        teacher.tokenizer.save_pretrained(tmp)
        (tmp / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
        tokenizer = AutoTokenizer.from_pretrained(tmp)
        check_new_tokens(tokenizer, teacher.family, selection.words, new_ids)

        model = _full_model(teacher)
        emb = model.get_input_embeddings()
        if tuple(emb.weight.shape) != (teacher.vocab_size, teacher.dim):
            raise InputError(f"the model's input embeddings are {tuple(emb.weight.shape)}, the teacher's table "
                             f"{(teacher.vocab_size, teacher.dim)}")
        out_emb = model.get_output_embeddings()
        old_out = None
        if out_emb is not None and out_emb.weight is not emb.weight:
            old_out = out_emb.weight.detach().float().clone()
        model.resize_token_embeddings(first_id + n, mean_resizing=False)
        emb = model.get_input_embeddings()
        with torch.no_grad():
            emb.weight[first_id:] = rows.rows.to(emb.weight.dtype)
            out_emb = model.get_output_embeddings()
            tied = out_emb is None or out_emb.weight is emb.weight
            if not tied and old_out is not None:
                # An untied output matrix is another space: apply the same combination of existing
                # rows where the method is one (mean, mixture), else the mean of the word's pieces.
                piece_ids = teacher.piece_ids(selection.words)
                for j in range(n):
                    ids, w = rows.combos[j] or (piece_ids[j], [1.0 / len(piece_ids[j])] * len(piece_ids[j]))
                    out_emb.weight[first_id + j] = (torch.tensor(w)[:, None] * old_out[torch.tensor(ids)]).sum(0)
        model.save_pretrained(tmp)
        if not any(tmp.glob("*.safetensors")) or any(tmp.glob("*.bin")):
            raise RuntimeError("save_pretrained did not write safetensors weights")

        def mixture(j: int) -> dict[str, Any]:
            combo = rows.combos[j]
            assert combo is not None, "a mixture row always records its combination"
            return {"mixture": {"rows": [teacher.display(r) for r in combo[0]],
                                "weights": [round(x, 4) for x in combo[1]]}}

        result = dict(report or {})
        result.update({
            "teacher": teacher.describe(),
            "method": rows.method,
            "added": n,
            "first_id": first_id,
            "vocab_size": first_id + n,
            "tied_output": tied,
            "tokenizer": tok_info,
            "selection": selection.summary(),
            **rows.info,
            "words": [
                {"word": w, "token": t, "id": i, "method": u,
                 **({"count": selection.counts[j]} if selection.counts is not None else {}),
                 **(mixture(j) if u == "mixture" else {})}
                for j, (w, t, i, u) in enumerate(zip(selection.words, selection.tokens, new_ids, rows.used))
            ],
        })
        write_json(tmp / REPORT_FILE, result)
    return result


def check_output_dir(out: str | os.PathLike, force: bool) -> None:
    """Refuse a file, or an existing non-empty directory unless ``force``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"output {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OutputExistsError(f"output directory {out} exists and is not empty (pass force=True to replace it)")

