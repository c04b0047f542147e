"""SmolLM2 in float32 and in bfloat16 as the speller's context model: the same decisions, and how fast.

    python -m benchmarks.correction.lm_precision   # -> benchmarks/results/lm_precision.json + .png

``--context smollm2`` runs the model at ``--precision auto``: bfloat16 where the device computes it
natively (:func:`charwise.devices.inference_dtype`), float32 elsewhere. This measures what that
choice changes, on development data only, with torch on every core:

* **tweets**: the last ``--tweets`` LexNorm 2015 training tweets, ``--style social`` (the
  normaliser's judge reads the model's gains);
* **sentences**: UD EWT dev sentences, half with a misspelling put in (as ``speller_dev.py`` does),
  half clean, the default style (the model judges the words the speller is in doubt about again).

Each set is corrected once per precision (scores computed anew, the same speller and model, only
the dtype changed): seconds, and every word whose output differs between the two.
"""

from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.common.paths import RESULTS, SPELLING_DATA  # noqa: E402
from benchmarks.common.report import invocation, pyplot, write_result  # noqa: E402
from benchmarks.correction.render import render_lm_precision as render  # noqa: E402, F401  (make_results reads it)

WRITES = ("lm_precision",)
PAGE = "correction-experiments.md"
PRECISIONS = ("float32", "bfloat16")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tweets", type=int, default=600, help="the last N LexNorm training tweets")
    parser.add_argument("--sentences", type=int, default=400,
                        help="EWT dev sentences with a misspelling (and as many clean)")
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--out", type=Path, default=RESULTS / "lm_precision.json")
    args = parser.parse_args(argv)
    command = invocation("benchmarks.correction.lm_precision", argv)
    return write_result(args.out, {"command": command, **run(args)}, plot)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from benchmarks.correction.lexnorm import TWEETS, read_tweets
    from benchmarks.correction.speller_dev import dev_sentences
    from charwise.devices import cpu_has_native_bf16
    from charwise.speller import Speller, SpellerSettings
    from charwise.speller.neural import LMReranker

    torch.set_num_threads(os.cpu_count() or 1)
    lm = LMReranker.load("smollm2", precision="float32")
    social = Speller.load("en", settings=SpellerSettings(style="social"))
    standard = Speller.load("en")
    social.context_model = standard.context_model = lm
    tweets = [[raw for raw, _ in t] for t in read_tweets(args.data / TWEETS)[-args.tweets :]]
    drawn = dev_sentences("en", standard.lexicon, args.sentences, 0)
    sentences = [w[:i] + [bad] + w[i + 1 :] for w, i, bad in drawn] + [w for w, _, _ in drawn]
    sets = {"tweets (--style social)": (social, tweets), "EWT dev sentences (default style)": (standard, sentences)}
    float32 = lm.model
    outputs: dict[str, dict[str, list[list[str]]]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for precision in PRECISIONS:
        # a copy: Module.to converts in place, and the float32 weights must stay float32
        lm.model = float32 if precision == "float32" else copy.deepcopy(float32).to(getattr(torch, precision))
        lm.score_texts(["The first pass sets the kernels up; it is not timed."])
        for name, (speller, texts) in sets.items():
            speller.clear_cache()
            started = time.perf_counter()
            corrected = speller.correct_words(texts)
            seconds = time.perf_counter() - started
            outputs.setdefault(name, {})[precision] = [[e.correction for e in row] for row in corrected]
            rows.setdefault(name, {"texts": len(texts), "words": sum(map(len, texts))})[precision] = {
                "seconds": round(seconds, 1), "texts_per_s": round(len(texts) / seconds, 1),
                "changes": sum(e.changed for row in corrected for e in row)}
    for name, row in rows.items():
        a, b = (outputs[name][p] for p in PRECISIONS)
        row["differing_words"] = [f"{t}:{i} {x} / {y}" for t, (ra, rb) in enumerate(zip(a, b))
                                  for i, (x, y) in enumerate(zip(ra, rb)) if x != y]
        row["speed_up"] = round(row["float32"]["seconds"] / row["bfloat16"]["seconds"], 2)
    return {"roles": "development only (LexNorm 2015 training tweets; UD EWT dev)", "cores": os.cpu_count(),
            "native_bf16": cpu_has_native_bf16(), "torch_threads": torch.get_num_threads(), "sets": rows}


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    names = list(result["sets"])
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.38
    for k, precision in enumerate(PRECISIONS):
        ax.bar([x + (k - 0.5) * width for x in range(len(names))],
               [result["sets"][n][precision]["texts_per_s"] for n in names], width, label=precision)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("texts / s")
    ax.set_title(f"SmolLM2 context model, {result['torch_threads']} threads "
                 f"({'native' if result['native_bf16'] else 'emulated'} bfloat16)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
