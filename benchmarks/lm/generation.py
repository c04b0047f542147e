"""SmolLM2's next word: its own pieces vs the character decoder's spelling (XRayEmb's generation).

For every word of held-out text the model reads the words before it (plain pieces, or built by the
hybrid policy `oov`; clean or with typos) and predicts the *clean* word, scored three ways:

* **pieces**: the LM's own softmax. Word log-likelihood = sum of the word's pieces' log-probabilities
  (`HybridModel.word_log_likelihoods`); the word is *predicted* when greedy decoding writes exactly
  its pieces.
* **decoder**: the word head maps the LM's state before the word to a vector, the character decoder
  spells it (`charwise.hybrid.generation`). Word log-likelihood = the decoder's log-probability of
  the clean spelling (END included: a distribution over all strings); predicted when the greedy
  spelling is the word.
* **combined** (what `WordGenerator.generate` does): the decoder's greedy word when its probability
  beats the LM's most likely next piece, else the LM's greedy word; its perplexity is that of the
  50/50 mixture of the two distributions.

Per-word perplexity = exp(-mean word log-likelihood). Groups: every word, words SmolLM2 keeps whole
(one piece) and words it splits (the ones its vocabulary lacks as a unit).
Data: the last `--verses` KJV verses (as benchmarks/hybrid/hybrid_perplexity.py; the generator's training
text excludes them) and the first `--tweets` tweets of WNUT17 test; typos at `--typo-rate` per
eligible word (realistic noise model of `charwise.evaluation`, as the other SmolLM2 benchmarks).

Writes benchmarks/results/generation.json and .png.
Run: python -m benchmarks.lm.generation --generator runs/gen/smollm2/generator [--tuned runs/tune-smollm2/encoder]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from benchmarks.common.paths import RESULTS
from benchmarks.common.report import write_result
from benchmarks.lm.render import render_generation as render  # noqa: F401  (make_results reads it)
from charwise import HybridModel, Teacher, split_words  # noqa: E402
from charwise.corpora import read_sentences  # noqa: E402
from charwise.evaluation import noise_config_for  # noqa: E402
from charwise.hybrid.generation import WordGenerator, boundary_states  # noqa: E402
from charwise.io import data_root  # noqa: E402
from charwise.typos.single import add_typos  # noqa: E402

WRITES = ("generation",)
PAGE = "generation.md"
BEFORE: dict[str, list[str]] = {
    "generation": [
        "head -n -300 src/charwise/data/kjv/kjv_verses.txt > runs/kjv_train.txt",
        "charwise decoder train --encoder smollm2 --out runs/spell/smollm2 --steps 2000 --lr 3e-3 --eval-every 500",
        "charwise generator train runs/kjv_train.txt src/charwise/data/wnut17/raw_text/*.10000 \\",
        "    --decoder runs/spell/smollm2/decoder --out runs/gen/smollm2 --steps 300 --batch-size 12 --eval-every 100",
        "charwise tune runs/kjv_train.txt --teacher smollm2 --encoder smollm2 --objective lm \\",
        "    --out runs/tune-smollm2 --steps 80 --batch-size 8 --eval-every 40 --lr 5e-4",
        "# the tuned row used the encoder this run saved at step 40 (the run was stopped there for time)",
    ],
}

OUT = RESULTS
GROUPS = ("all", "whole", "split")


def datasets(verses: int, tweets: int) -> dict[str, tuple[list[list[str]], list[list[bool]]]]:
    kjv = [v for v in (data_root() / "kjv" / "kjv_verses.txt").read_text(encoding="utf-8").splitlines() if v.strip()]
    splits = [split_words(v) for v in kjv[-verses:]]
    wnut = read_sentences(data_root() / "wnut17" / "emerging.test.annotated")[:tweets]
    return {"kjv": ([s.words for s in splits], [s.space_before for s in splits]),
            "wnut17": (wnut, [[i > 0 for i in range(len(t))] for t in wnut])}


def score(hybrid: HybridModel, generator: WordGenerator, context: list[list[str]], clean: list[list[str]],
          spaces: list[list[bool]]) -> dict[str, list]:
    """Per scored word: group, pieces (ll, hit), decoder (ll, hit), combined hit."""
    rows: dict[str, list] = {k: [] for k in ("group", "lm_ll", "lm_hit", "dec_ll", "dec_hit", "comb_hit")}
    decoder = generator.decoder
    for k in range(0, len(context), 16):
        ctx, gold, sp = context[k : k + 16], clean[k : k + 16], spaces[k : k + 16]
        greedy: list[torch.Tensor] = []
        lls = hybrid.word_log_likelihoods(ctx, gold, space_before=sp, greedy=greedy)
        found = boundary_states(hybrid, ctx, sp)
        vectors = generator.head(found.states)
        targets = [gold[b][i] for b, i in found.owners]
        chars = decoder.charset.batch(targets, [True] * len(targets))
        dec_ll = decoder.log_probs(vectors, chars)
        best = decoder.spellings(vectors, beam=1, n_best=1)
        pieces = [hybrid.word_pieces(g, s) for g, s in zip(gold, sp)]
        for j, (b, i) in enumerate(found.owners):
            if math.isnan(float(lls[b][i])):
                continue
            want = decoder.charset.normalise(gold[b][i])
            spelled, logprob = (best[j][0].text, best[j][0].logprob) if best[j] else ("", -math.inf)
            dec_hit = spelled == want
            use_decoder = logprob > float(found.top_piece_logp[j])
            rows["group"].append("whole" if len(pieces[b][i]) == 1 else "split")
            rows["lm_ll"].append(float(lls[b][i]))
            rows["lm_hit"].append(bool(greedy[b][i]))
            rows["dec_ll"].append(float(dec_ll[j]))
            rows["dec_hit"].append(dec_hit)
            rows["comb_hit"].append(dec_hit if use_decoder else bool(greedy[b][i]))
    return rows


def summarise(rows: dict[str, list]) -> dict[str, dict]:
    out = {}
    for group in GROUPS:
        keep = [k for k, g in enumerate(rows["group"]) if group == "all" or g == group]
        if not keep:
            continue
        n = len(keep)
        lm = [rows["lm_ll"][k] for k in keep]
        dec = [rows["dec_ll"][k] for k in keep]
        mix = [math.log(0.5) + max(a, b) + math.log1p(math.exp(-abs(a - b))) for a, b in zip(lm, dec)]
        out[group] = {
            "words": n,
            "ppl_pieces": round(math.exp(-sum(lm) / n), 2), "ppl_decoder": round(math.exp(-sum(dec) / n), 2),
            "ppl_mixture": round(math.exp(-sum(mix) / n), 2),
            "acc_pieces": round(100 * sum(rows["lm_hit"][k] for k in keep) / n, 2),
            "acc_decoder": round(100 * sum(rows["dec_hit"][k] for k in keep) / n, 2),
            "acc_combined": round(100 * sum(rows["comb_hit"][k] for k in keep) / n, 2),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--generator", required=True, help="a generator directory (charwise generator train)")
    ap.add_argument("--tuned", default=None, help="an encoder hybrid-tuned with --objective lm (an extra row)")
    ap.add_argument("--verses", type=int, default=200)
    ap.add_argument("--tweets", type=int, default=200)
    ap.add_argument("--typo-rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="generation")
    args = ap.parse_args()
    result = run(args)
    write_result(OUT / f"{args.name}.json", result, plot)


def run(args: argparse.Namespace) -> dict:
    """Every input (pieces, hybrid, tuned hybrid) on every data set, clean and with typos."""
    teacher = Teacher.load("smollm2")
    generator = WordGenerator.load(args.generator, hybrid=HybridModel.from_teacher(teacher, policy="oov"))
    inputs = {"base (pieces)": HybridModel.from_teacher(teacher, policy="none"), "hybrid oov": generator.hybrid}
    if args.tuned:
        inputs["hybrid oov, tuned lm"] = HybridModel.from_teacher(teacher, policy="oov", encoder=args.tuned)
    noise = noise_config_for(teacher)
    result = {"benchmark": "SmolLM2 next word: pieces vs character decoder", "generator": args.generator,
              "tuned": args.tuned, "typo_rate": args.typo_rate, "threads": torch.get_num_threads(),
              "generator_training": generator.head.training_info.get("config"),
              "command": f"python -m benchmarks.lm.generation --generator {args.generator} --verses {args.verses} "
              f"--tweets {args.tweets} --typo-rate {args.typo_rate:g}"
              + (f" --tuned {args.tuned}" if args.tuned else ""),
              "rows": []}
    for data_name, (clean, spaces) in datasets(args.verses, args.tweets).items():
        noisy = [add_typos(w, args.typo_rate, args.seed * 1_000_003 + i, noise)[0] for i, w in enumerate(clean)]
        for setting, context in (("clean", clean), ("typos", noisy)):
            for input_name, hybrid in inputs.items():
                t0 = time.perf_counter()
                with torch.inference_mode():
                    rows = score(hybrid, generator, context, clean, spaces)
                row = {"data": data_name, "setting": setting, "input": input_name, "texts": len(clean),
                       **summarise(rows), "seconds": round(time.perf_counter() - t0, 1)}
                result["rows"].append(row)
                print(json.dumps(row), flush=True)
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    data = list(dict.fromkeys(r["data"] for r in rows))
    fig, axes = plt.subplots(1, len(data), figsize=(6 * len(data), 4), squeeze=False)
    for ax, name in zip(axes[0], data):
        mine = [r for r in rows if r["data"] == name]
        labels = [f"{r['input']}\n{r['setting']}" for r in mine]
        for j, (key, label) in enumerate((("acc_pieces", "pieces"), ("acc_decoder", "decoder"),
                                          ("acc_combined", "combined"))):
            ax.bar([i + 0.27 * j for i in range(len(mine))], [r["split"][key] if "split" in r else 0 for r in mine],
                   width=0.27, label=label)
        ax.set_xticks([i + 0.27 for i in range(len(mine))], labels, fontsize=7)
        ax.set_ylabel("next-word accuracy on split words, %")
        ax.set_title(f"SmolLM2, {name}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
