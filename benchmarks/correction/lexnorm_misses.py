"""Where the ERR the default speller misses on LexNorm 2015 lies: every annotated normalisation it did
not make, by kind.

    OMP_NUM_THREADS=1 python -m benchmarks.correction.lexnorm_misses    # -> results/lexnorm_misses.json + .png

The protocol of ``normaliser_constants.py`` (:class:`~benchmarks.correction.normaliser_constants.Folds`):
the LexNorm 2015 training tweets in two halves, the normalisation table and judge learned on one and
the default speller scored on the other, both ways. Each token the annotators normalised and the
speller did not is put in the first kind that fits (:func:`kind`):

* **declined by design**: a slur as a word's normal form (``NEVER_PROPOSED``), ``rt -> retweet``, a
  British spelling made American (``spelling_variants``: the writer's choice is kept);
* **changed, to another word**;
* **run together, not cut** (``justunfollow -> just unfollow``);
* **several words for one** (``af -> as fuck``, ``rn -> right now``);
* **one or two characters** (``2 -> to``, ``b -> be``, ``ya -> you``);
* **other short forms and respellings** (``tho``, ``goin``, ``fone``).

Development data only (the LexNorm training split): nothing here is a test figure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common.markdown import table
from benchmarks.common.paths import RESULTS, SPELLING_DATA
from benchmarks.common.report import pyplot, save_figure, write_result
from benchmarks.correction.lexnorm import MAX_DAMAGE

WRITES = ("lexnorm_misses",)
PAGE = "correction-experiments.md"
KINDS = ("declined: slur", "declined: rt -> retweet", "declined: British spelling", "changed, to another word",
         "run together, not cut", "several words for one", "one or two characters",
         "other short forms and respellings")
SHOWN = 15  # commonest misses listed per kind


def kind(written: str, normal: str, output: str) -> str:
    """The kind of one missed normalisation (see the module docstring)."""
    from charwise.speller.normalisation_rules import NEVER_PROPOSED, spelling_variants

    if normal in NEVER_PROPOSED:
        return "declined: slur"
    if written == "rt" and normal == "retweet":
        return "declined: rt -> retweet"
    if spelling_variants(written, normal):
        return "declined: British spelling"
    if output != written:
        return "changed, to another word"
    if " " in normal and normal.replace(" ", "") == written:
        return "run together, not cut"
    if " " in normal:
        return "several words for one"
    return "one or two characters" if len(written) <= 2 else "other short forms and respellings"


def run(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.correction.normaliser_constants import Folds

    folds = Folds("en", args.data)
    misses: Counter[tuple[str, str, str]] = Counter()
    right = wrong = needing = 0
    for test, changes in folds.outputs(args.max_damage):
        for t, tweet in enumerate(test):
            for i, (raw, normal) in enumerate(tweet):
                out = changes.get((t, i), raw)
                needing += raw != normal
                if raw != normal and out == normal:
                    right += 1
                elif raw != normal:
                    misses[(raw.lower(), normal, out.lower())] += 1
                elif out != raw:
                    wrong += 1
    kinds: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for (raw, normal, out), n in misses.items():
        shown = f"{raw} -> {normal}" + ("" if out == raw else f" (made {out})")
        kinds[kind(raw, normal, out)][shown] += n
    declined = sum(sum(kinds[k].values()) for k in KINDS if k.startswith("declined"))
    return {"command": "python -m benchmarks.correction.lexnorm_misses", "tweets": sum(len(t) for _, t in folds.folds),
            "needing": needing, "right": right, "changed_wrongly": wrong, "missed": sum(misses.values()),
            "err": round(100 * (right - wrong) / needing, 2),
            "err_with_the_declined": round(100 * (right + declined - wrong) / needing, 2),
            "right_needed_for_err_70": int(0.7 * needing + 0.999) - (right - wrong),
            "kinds": {k: {"missed": sum(c.values()), "commonest": [[w, n] for w, n in c.most_common(SHOWN)]}
                      for k, c in kinds.items()}}


def render(result: dict[str, Any]) -> list[str]:
    rows = [[k, str(v["missed"]), ", ".join(f"`{w}` {n}" for w, n in v["commonest"][:6])]
            for k, v in result["kinds"].items()]
    return [f"LexNorm 2015, two folds: {result['right']} normalisations made right, {result['missed']} missed, "
            f"{result['changed_wrongly']} correct tokens changed: ERR {result['err']} "
            f"({result['err_with_the_declined']} with every declined one made; ERR 70 needs "
            f"{result['right_needed_for_err_70']} more right changes net).", "",
            *table(["kind", "missed", "commonest"], rows, {1})]


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.4))
    names = list(result["kinds"])
    ax.barh(names[::-1], [result["kinds"][k]["missed"] for k in names][::-1], color="tab:grey")
    ax.set_xlabel("annotated normalisations missed")
    ax.set_title(f"LexNorm 2015, two folds: ERR {result['err']}")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SPELLING_DATA)
    parser.add_argument("--max-damage", type=float, default=MAX_DAMAGE, help="the judges' damage bound, as lexnorm's")
    parser.add_argument("--out", type=Path, default=RESULTS / "lexnorm_misses.json")
    args = parser.parse_args(argv)
    return write_result(args.out, run(args), plot)


if __name__ == "__main__":
    sys.exit(main())
