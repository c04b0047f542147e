"""Capitalised words inside a sentence (``Britian``; names far more often: ``Bisconti``, ``Wycombe``):
the capitals decision's threshold for them (``inside_threshold``) and how much more often their candidate
must be written capitalised (``inside_odds``, :func:`charwise.speller.capital_decision.capitalised_odds`: a
name is put right as a name), chosen for :mod:`benchmarks.correction.capitals` (``--ship``).

The texts are those the threshold for words in capitals is chosen on (development and fresh:
:func:`benchmarks.correction.shouted.texts`). Every change to such a word at the loosest setting is read
by hand (``capital_labels.tsv``); for each odds of :data:`INSIDE_ODDS`, the lowest threshold of
:data:`INSIDE_SWEEP` at which the changes are right at least nine times in ten and change at most
:data:`~benchmarks.correction.capitals.DAMAGE` of the capitalised words inside the sentences wrongly; of
those pairs, the one with the most right changes (none: such words stay unread).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchmarks.correction.capitals import DAMAGE, LABELS, nine_in_ten, read_labels

INSIDE_SWEEP = (0.85, 0.9, 0.95, 0.99)  # thresholds tried (never below the scorer's own)
# how much more often the candidate must be written capitalised (log-odds), chosen with the threshold. Any
# candidate (0) was swept on the development text alone (2026-12-01): 20 right and 9 wrong at 0.85, 2 and 1
# at 0.99 (names read as common words: Matfer -> matter, Anna Wintor -> winter, Chicksen -> chicken)
INSIDE_ODDS = (0.5, 1.0, 2.0)


def inside_changes(decision: Any) -> tuple[int, list[dict[str, Any]]]:
    """(how many capitalised words inside a sentence the texts of :func:`shouted.texts
    <benchmarks.correction.shouted.texts>` hold, every spelling change the default speller makes to one
    with such words read at the loosest setting of the sweep: its change, the decision's probability and
    how much more often its candidate is written capitalised). The decision reads each word on its own,
    so the changes of every setting of the sweep are among these."""
    from benchmarks.correction.shouted import texts as shouted_texts
    from benchmarks.correction.speller_dev import inside_flags
    from charwise.speller import Speller
    from charwise.speller.capital_decision import capitalised_odds
    from charwise.speller.looking import capitalised

    def holds(line: str) -> bool:
        return any(capitalised(w) and w.isalpha() for w in line.split()[1:])

    lines = [line for named in shouted_texts().values() for text in named.values() for line in text if holds(line)]
    speller = Speller.load("en")
    speller.capital_decision = dataclasses.replace(decision, inside_threshold=min(INSIDE_SWEEP), inside_odds=0.0)
    read, found = 0, []
    for i in range(0, len(lines), 500):
        for line, result in zip(lines[i:i + 500], speller.correct_lines(lines[i:i + 500])):
            for entry, inside in zip(result.words, inside_flags(result.words)):
                if inside and capitalised(entry.word) and entry.word.isalpha():
                    read += 1
                    if entry.changed and entry.kind == "spelling":
                        best = entry.correction.lower()
                        found.append({"change": f"{entry.word} -> {best}", "odds": capitalised_odds(best),
                                      "p": speller.decision(entry.word, entry.probability, None, best, True)[0],
                                      "context": line[max(0, entry.start - 50):entry.end + 50]})
    return read, found


def inside_choice(decision: Any) -> tuple[float | None, float, dict[str, Any]]:
    """``(inside_threshold, inside_odds, the changes at each pair)`` chosen as the module docstring says."""
    read, found = inside_changes(decision)
    labels = read_labels()
    found = [c for c in found if c["odds"] >= min(INSIDE_ODDS)]
    unread = sorted({c["change"] for c in found if c["change"] not in labels})
    if unread:
        raise SystemExit("capitals: changes of capitalised words inside sentences not read yet, label them in "
                         f"{LABELS.name}: " + "; ".join(unread))
    sweeps: dict[str, Any] = {}
    best: tuple[int, float, float | None] = (-1, 0.0, None)
    for odds in INSIDE_ODDS:
        sweep = sweeps[str(odds)] = {"rule": {"read": read, "right": 0, "wrong": 0, "not read": []}}
        for t in INSIDE_SWEEP:
            made = [labels[c["change"]] for c in found if c["p"] >= t and c["odds"] >= odds]
            sweep[str(t)] = {"read": read, "right": made.count(True), "wrong": made.count(False), "not read": []}
        chosen = nine_in_ten(sweep, INSIDE_SWEEP, DAMAGE)
        if chosen is not None and (sweep[str(chosen)]["right"], odds) > best[:2]:
            best = (sweep[str(chosen)]["right"], odds, chosen)
    return best[2], (best[1] if best[2] is not None else 0.0), sweeps
