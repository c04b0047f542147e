"""Normalisation of user text: what people write (``u``, ``dont``, ``goin``, ``soooo``, ``youcould``)
mapped to the standard words a model was trained on, judged in context by one fitted model.

Spelling correction (:class:`~charwise.speller.Speller`) fixes slips in words the lexicon lacks. Real
text needs more: informal spellings that *are* in a web lexicon (``u``, ``wit``, ``goin``), lost
apostrophes (``dont``), slang (``pls``, ``cuz``), drawn-out letters (``soooo``), words run together
(``youcould``). The :class:`Normaliser` gathers **candidates** for a word from

* ``table``: every normal form annotators gave the written word in tweets, with counts (:class:`NormalisationTable`);
* ``repeat``: runs of three or more letters shortened to two or one, when that gives a word;
* ``contraction``: an apostrophe put back (``dont`` -> ``don't``), when that gives a word;
* ``ending``: a dropped ``g`` put back (``goin``, ``livin'`` -> ``going``, ``living``);
* ``abbreviation``: the most frequent words the written word abbreviates, letter by letter (``smth``);
* ``split``: the word cut in two known words (``youcould`` -> ``you could``);
* ``slang``: what a slang dictionary says it stands for (``thnx``, ``2day``: :mod:`charwise.speller.slang`);
* ``speller``: the speller's suggestions for a word it looked at, each with its probability;

and a fitted logistic **judge** (:class:`NormalisationJudge`) gives each candidate the probability that it is what
the writer meant, from the table's counts, the words' frequencies, the edit, the speller's own probability and the
context (how much better the candidate fits between the neighbours than the written word: bigram counts and, in
English, the neighbours' classes). The best candidate replaces the word when its probability reaches the judge's
threshold, stored with where it was chosen (development tweets only): a rule proposes, the judge decides.

The shipped English judge and table (``charwise/data/normalisation-en``) come from the LexNorm 2015 training
tweets (Baldwin et al. 2015; MultiLexNorm's English training split, van der Goot et al. 2021; rebuilt and
measured on their halves by ``benchmarks/correction/lexnorm.py``, ``--ship``).

Example (run by tests/test_doctests.py)::

    >>> from charwise.speller import Speller
    >>> normaliser = Speller.load("en").normaliser
    >>> normaliser.best("dont", "i", "know")      # the word, its neighbours -> (candidate, kind, probability)
    ("don't", 'normalisation', 0.9...)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from charwise.cache import LRUCache
from charwise.errors import ConfigError
from charwise.speller.class_context import class_gains
from charwise.speller.corrections import (  # noqa: F401 (speller_candidates: re-exported)
    WordCorrection,
    restores_accents,
    same_case,
    speller_candidates,
    starts_after,
)
from charwise.speller.lexicon import ACCENTED
from charwise.speller.looking import capitalised, in_capitals_text, named_by_capital, shouted
from charwise.speller.normalisation_judge import (  # noqa: F401 (re-exported)
    FEATURES,
    LM_DOUBT,
    SOURCES,
    NormalisationJudge,
    NormalisationTable,
    candidate_features,
    feature_names,
    lm_gains,
    read_model,
    write_model,
)
from charwise.speller.normalisation_rules import (  # noqa: F401 (re-exported)
    NEVER_PROPOSED,
    RULES,
    SOURCE_NAMES,
    Abbreviations,
    before_a_name,
    beside_apostrophe,
    laugh,
    normalisable,
    phonetic_variants,
    short_part_pair,
    spelling_variants,
)
from charwise.speller.slang import expansions
from charwise.speller.social_undo import UndoDecision, undoes
from charwise.speller.twin_decision import AccentTwins

if TYPE_CHECKING:
    from charwise.speller.context import NgramContext
    from charwise.speller.context_model import ContextModel
    from charwise.speller.lexicon import Lexicon

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
NORMALISED = ("en", "es")  # languages with a shipped normalisation model (charwise/data/normalisation-LANG)
JUDGED_CACHE_SIZE = 50_000  # (word, neighbours, suggestions) judged and remembered
MAX_SPLIT_CHARS = 24  # longer run-together strings are hashtags or noise, not two words
CAPITALS, SHORT_CAPITALS = "capitals", "short capitals"  # how a word in capitals is read (Normaliser._judged_words)
KEPT = "normalisation judge: kept; "  # a word the judge read and kept (--json)
# Swept on the development tweets, the judge refitted for each value: no other value surely better (python -m
# benchmarks.correction.normaliser_constants; docs/correction-experiments.md, "The reading constants swept")
PASSES = 2  # Normaliser.apply: passes over each sentence (see there)
RESPELLINGS = 5  # phonetic respellings offered, the most frequent first
ACCENT_ZIPF_GAP = 1.5  # an accented word proposed beside a plain word at most this much rarer
SPLIT_ZIPF = 4.0  # both parts of a split at least this frequent (``li vin``, ``sm th`` are no split)


class Normaliser:
    """Candidates + judge (see the module docstring) over a lexicon and a context model."""

    def __init__(self, lexicon: Lexicon, table: NormalisationTable, judge: NormalisationJudge | None,
                 context: NgramContext, lm_judge: NormalisationJudge | None = None) -> None:
        self.lexicon, self.table, self.judge, self.context = lexicon, table, judge, context
        self.lm_judge = lm_judge  # the judge that also reads a language model's gains, used when one is given
        self.lm_doubt = LM_DOUBT  # the plain judge's probabilities at which the model reads a word
        if lexicon.language not in RULES:
            raise ConfigError(f"no normalisation rules for {lexicon.language!r} (known: {', '.join(RULES)})")
        self.rules = RULES[lexicon.language]
        self.feature_names = feature_names(self.rules.sources)
        self._repeat = self.rules.repeat_pattern()
        self._judged_cache = LRUCache(JUDGED_CACHE_SIZE)
        # accent-dropped spellings (aqui -> aquí) and known words' twins (dias -> días): charwise.speller.twin_decision
        self.accents = AccentTwins.load(lexicon, context) if lexicon.language in ACCENTED else None
        self._apostrophe_words = {w.replace("'", ""): w for w in lexicon.entries if "'" in w and len(w) <= 12}
        self.abbreviated = Abbreviations(lexicon)  # what an abbreviation may stand for (smth -> something)
        self.slang = expansions(lexicon)  # what a chat form stands for (thnx -> thanks): charwise.speller.slang
        self.undo = UndoDecision.load(lexicon.language)  # the speller's corrections in informal text: social_undo

    @classmethod
    def load(cls, language: str, lexicon: Lexicon, path: str | Path | None = None) -> "Normaliser":
        """The shipped normaliser of ``language`` (``path``: a folder with ``table.tsv`` and
        ``judge.json``, and optionally ``judge-lm.json``, instead)."""
        from charwise.speller.context import NgramContext

        folder = Path(path) if path is not None else DATA_DIR / f"normalisation-{language}"
        if not (folder / "judge.json").is_file():
            raise ConfigError(f"no normalisation model for {language!r} at {folder} (English has one)")
        table, judge, lm_judge = read_model(folder)
        return cls(lexicon, table, judge, NgramContext.load(language), lm_judge)

    def save(self, folder: str | Path, note: str = "") -> None:
        """Write ``table.tsv`` and ``judge.json`` (and ``judge-lm.json``) to ``folder``, atomically;
        the table holds only words the judge reads (no handles, hashtags, links or punctuation)."""
        if self.judge is None:
            raise ConfigError("fit the judge before saving the normaliser")
        rows = [(str(w), str(n), int(str(c))) for w, n, c in self.table.to_rows() if normalisable(str(w))]
        write_model(Path(folder), rows, self.judge, self.lm_judge, note)

    # --- candidates ---------------------------------------------------------------------------
    def _known(self, word: str) -> bool:
        return all(self.lexicon.knows(part) for part in word.split(" "))

    def candidates(self, word: str, speller: dict[str, float] | None = None) -> dict[str, str]:
        """Candidate -> its source (:data:`SOURCES`) for a lower-case ``word``, given the speller's
        suggestions (``speller``); the first source wins."""
        known = self.lexicon.knows(word)  # a valid word: its table entries need more annotations (the rules')
        least = self.rules.known_word_annotations if known else 1
        found: dict[str, str] = {n: "table" for n, count in self.table.replacements(word).items() if count >= least}
        unknown = not self.lexicon.accepts(word)
        if self.rules.laughter and unknown:
            standard = laugh(word)
            if standard is not None:
                found.setdefault(standard, "laughter")
        for shorter in self._shortened(word, unknown):
            found.setdefault(shorter, "repeat")
        stem = word[:-1] if word.endswith("in'") else word
        if self.rules.dropped_g and stem.endswith("in") and len(stem) >= 4 and self.lexicon.knows(stem + "g"):
            found.setdefault(stem + "g", "ending")
        with_apostrophe = self._apostrophe_words.get(word) if "'" not in word else None
        if with_apostrophe is not None:
            found.setdefault(with_apostrophe, "contraction")
        if unknown:
            for full in self.abbreviated(word):
                found.setdefault(full, "abbreviation")
        if unknown or self.lexicon.zipf(word) < self.rules.respell_below_zipf:
            for respelled in self.respelled(word):
                found.setdefault(respelled, "phonetic")
        if 4 <= len(word) <= MAX_SPLIT_CHARS and unknown:
            split = self._best_split(word)
            if split is not None:
                found.setdefault(split, "split")
        if word in self.slang and unknown:
            found.setdefault(self.slang[word], "slang")
        for suggestion in speller or {}:
            found.setdefault(suggestion, "speller")
        found.pop(word, None)
        # a valid word's national spelling is a word in its own right; a slip is not
        for cand in [c for c in found if c in NEVER_PROPOSED or (known and spelling_variants(word, c))
                     or (word, c) in self.rules.failed_on_fresh]:  # read on fresh text, wrong too often
            del found[cand]
        return found

    def accented_form(self, text: str) -> str | None:
        """The most frequent word of the lexicon that is ``text`` with accents (``aqui`` -> ``aquí``), or None."""
        return None if self.accents is None else self.accents.accented.get(text)

    def _words_of(self, text: str) -> list[str]:
        """``text`` if it is a word, and its accented word when the lexicon has one (``aqui`` -> ``aquí``; ``tu``)."""
        out = [text] if self.lexicon.knows(text) else []
        accented = self.accented_form(text)
        # beside a word, only an accented word of similar frequency (tu/tú, not no/nó)
        if accented is None or (out and self.lexicon.zipf(accented) < self.lexicon.zipf(text) - ACCENT_ZIPF_GAP):
            return out
        return out + [accented]

    def _shortened(self, word: str, unknown: bool) -> list[str]:
        """The words ``word`` is, drawn out (``soooo`` -> ``so``; Spanish ``noo`` -> ``no``)."""
        if not self._repeat.search(word) or (len(set(word)) == 1 and word[0] not in self.rules.split_letters):
            return []  # one letter drawn out is a sound or a face (mmmm, the DDDD of :DDDD), unless a word (iiii)
        found: list[str] = []
        for repl in (r"\1\1", r"\1"):
            shorter = self._repeat.sub(repl, word)
            if " " not in shorter and (unknown or not self.rules.repeat_unknown_only):
                found += self._words_of(shorter)
        return list(dict.fromkeys(found))

    def respelled(self, word: str) -> list[str]:
        """The words ``word`` respells by sound (``aser`` -> ``hacer``), most frequent first, :data:`RESPELLINGS`."""
        if not self.rules.phonetic or not word.isalpha():
            return []
        drawn_out = self._repeat.sub(r"\1", word)
        variants = phonetic_variants(word, self.rules.phonetic) | phonetic_variants(drawn_out, self.rules.phonetic)
        found = {w for v in variants for w in self._words_of(v)} - {word}
        return sorted(found, key=lambda w: (-self.lexicon.zipf(w), w))[:RESPELLINGS]

    def _best_split(self, word: str) -> str | None:
        """``word`` cut in two known words, the cut whose rarer part is most frequent: one-letter parts only the
        language's one-letter words, in a :func:`short_part_pair` (``a lot``, ``could have``); no part one letter
        repeated, none beside its own letter (``yearsss`` is ``years`` drawn out, Spanish ``comoo`` ``como``)."""
        best, best_score = None, 0.0
        for i in range(1, len(word)):
            left, right = word[:i], word[i:]
            drawn_out = min(len(left), len(right)) == 1 and left[-1] == right[0]
            if (any(len(p) == 1 and p not in self.rules.split_letters or len(p) > 1 and len(set(p)) == 1
                    for p in (left, right)) or left in self.rules.split_prefixes or drawn_out):
                continue
            if not (self.lexicon.knows(left) and self.lexicon.knows(right)):
                continue
            second = right if min(len(left), len(right)) > 1 else short_part_pair(left, right, self.rules, self.context)
            if second is None:
                continue  # a one-letter part only in a pair the counts know; coulda: could have
            score = min(self.lexicon.zipf(left), self.lexicon.zipf(second))
            if score > best_score:
                best, best_score = f"{left} {second}", score
        return best if best_score >= SPLIT_ZIPF else None

    # --- features -------------------------------------------------------------------------------
    def features(self, word: str, candidates: dict[str, str], left: str | None, right: str | None,
                 speller: dict[str, float] | None = None, lm: dict[str, float] | None = None,
                 shares: dict[str, float] | None = None) -> np.ndarray:
        """One row of :data:`FEATURES` per candidate of lower-case ``word`` between ``left`` and ``right``."""
        return candidate_features(self, word, candidates, left, right, speller, lm, shares)

    def shares(self, word: str, sentence: Sequence[str], index: int) -> dict[str, float] | None:
        """Where annotators wrote two or more members of a confusion set for ``word`` (``ur``: ``your``,
        ``you're``): each one's probability at ``sentence[index]`` among them as the confusion model reads the
        sentence, ``word`` in its place (a later pass reads it as corrected so far; ``ConfusionModel.shares``)."""
        from charwise.speller.confusions import MEMBERS, ConfusionModel, normal

        forms = self.table.counts.get(normal(word), {})
        members = MEMBERS.get(self.lexicon.language, frozenset())
        if len(forms) < 2 or sum(form in members for form in forms) < 2:
            return None  # most words: no model loaded, no sentence read
        words = [normal(w) for w in (*sentence[:index], word, *sentence[index + 1:])]
        return ConfusionModel.load(self.lexicon.language).shares(words, index, forms)

    def _fit(self, text: str, left: str | None, right: str | None) -> tuple[float, bool]:
        """log10 fit of ``text`` (one or more words) between its neighbours, and whether a pair was counted."""
        parts = text.split(" ")
        score, seen = 0.0, False
        if left is not None:
            s, ok = self.context.log_score(parts[0], left)
            score, seen = score + s, seen or ok
        if right is not None:
            s, ok = self.context.log_score(right, parts[-1])
            score, seen = score + s - self.context.log_unigram(right), seen or ok
        return score, seen

    # --- deciding -------------------------------------------------------------------------------
    def judge_for(self, lm: dict[str, float] | None) -> NormalisationJudge:
        """The judge that decides with these language-model gains (the LM judge, if fitted; else the plain one)."""
        judge = self.lm_judge if lm is not None and self.lm_judge is not None else self.judge
        if judge is None:
            raise ConfigError("this normaliser has no judge yet: fit one (benchmarks/correction/lexnorm.py)")
        if judge.sources != self.rules.sources:
            raise ConfigError(f"the judge reads the sources {judge.sources}, this {self.lexicon.language!r} "
                              f"normaliser proposes {self.rules.sources}: fit a judge for this language")
        return judge

    def best(self, word: str, left: str | None, right: str | None, speller: dict[str, float] | None = None,
             lm: dict[str, float] | None = None, shares: dict[str, float] | None = None
             ) -> tuple[str, str, float] | None:
        """(candidate, change kind, probability) of the best candidate for ``word`` (read
        lower-case) between the words ``left`` and ``right`` (lower-case, None at an edge or beside
        punctuation), or None when it has none; ``lm``: the candidates' language-model gains
        (:func:`lm_gains`), read by the LM judge; ``shares``: :meth:`shares`."""
        judge = self.judge_for(lm)
        word = word.lower().replace("\u2019", "'")
        # running text repeats its words between the same neighbours ("i dont know"): judged once
        key = (word, left, right, tuple(speller.items()) if speller else None,
               tuple(sorted(lm.items())) if lm is not None else None, judge.serial,
               tuple(sorted(shares.items())) if shares else None)
        hit = self._judged_cache.get(key)
        if hit is None:
            hit = self._judge(word, left, right, speller, lm, judge, shares)
            self._judged_cache.put(key, hit)
        return hit or None

    def _judge(self, word: str, left: str | None, right: str | None, speller: dict[str, float] | None,
               lm: dict[str, float] | None, judge: NormalisationJudge, shares: dict[str, float] | None = None
               ) -> tuple[str, str, float] | tuple[()]:
        """:meth:`best` without the cache (``()`` for no candidate: a cache hit that is not a miss)."""
        found = self.candidates(word, speller)
        if not found:
            return ()
        p = judge.probability(self.features(word, found, left, right, speller, lm, shares))
        options = list(found.items())
        j = int(np.argmax(p))
        cand, source = options[j]
        for k, (other, other_source) in enumerate(options):
            if other_source == "split" and cand in other.split(" "):
                j, cand, source = k, other, other_source  # never drop a word of a run-together pair
        if source == "split":
            kind = "split"
        elif source == "speller" or (source in ("abbreviation", "repeat", "phonetic") and cand in (speller or {})):
            # a slip the speller found too (peole -> people), whatever proposed it first; of its kind
            kind = "accent" if restores_accents(word, cand) else "spelling"
        else:
            kind = "normalisation"
        if self.lexicon.knows(word) and not self._fits_better(word, cand, left, right):
            return ()  # a valid word is replaced only by a word its neighbours favour (the cause of)
        return cand, kind, float(p[j])

    def _fits_better(self, word: str, cand: str, left: str | None, right: str | None) -> bool:
        """Whether ``cand`` fits between ``left`` and ``right`` at least as well as ``word``, or nothing
        can be said (no neighbour, or no counted pair either way). A contraction the counts write as
        the word itself (``i'll`` counted as ``ill``) needs the word after: only there do they differ."""
        if right is None and cand != word and self.context.counted_form(cand) == word:
            return False
        if left is None and right is None:
            return True
        (fit, seen), (base, base_seen) = self._fit(cand, left, right), self._fit(word, left, right)
        return fit >= base or not (seen or base_seen)

    def _may_change(self, word: str, entry: WordCorrection) -> bool:
        """Whether lower-case ``word`` can have a candidate at all (most words of running text are
        known words that no source proposes anything for: they are passed over at once)."""
        return (entry.looked_at or entry.changed or not self.lexicon.accepts(word) or word in self._apostrophe_words
                or (self.accents is not None and word in self.accents.twins)
                or self.lexicon.zipf(word) < self.rules.respell_below_zipf
                or bool(self.table.replacements(word)) or self._repeat.search(word) is not None
                or (self.rules.dropped_g and word.endswith(("in", "in'"))))

    def apply(self, corrected: list[list[WordCorrection]], allowed: Sequence[str],
              threshold: float | None = None, *, social: bool | Sequence[bool] = False,
              lm: ContextModel | None = None, passes: int | None = None, starts: Sequence[bool] | None = None,
              capitals: int = 0) -> None:
        """Judge every normalisable, unprotected word of ``corrected`` (in place), left to right, each
        read between its neighbours: the best candidate replaces the word (and any spelling change) when
        its probability reaches ``threshold`` (default: the judge's ``threshold_for`` the sentence) and its
        kind is ``allowed``. In a ``social`` sentence (informal text; one flag, or one per sentence), a spelling
        change the judge takes no candidate over may be undone (:mod:`charwise.speller.social_undo`).
        ``starts`` says for each sentence whether it begins one (default: all do; the window of a long line
        that starts mid-sentence does not, and its first word, capitalised, is then a name as anywhere inside).
        A word written in capitals of at least ``capitals`` letters (0: none) is judged as its lower-case
        form and changed in capitals (``CANT`` -> ``CAN'T``), as the speller reads such words.

        The first pass reads each word between its left neighbour as judged and its right one as the
        speller left it; each further pass (``passes``) judges every word again from the speller's
        output, between neighbours as the pass before left them (``u r rite``: ``r`` is read beside
        ``right``), so that a word's neighbours are corrected first.

        With a language model ``lm`` (and an LM judge), every word with candidates is first read by
        it, the candidates in place of the word in its window of the sentence as the speller left
        it, all words of all sentences in one batch (:func:`lm_gains`); the LM judge then decides
        with those gains among its features. ``passes``: default :data:`PASSES`."""
        passes = PASSES if passes is None else passes
        if passes < 1:
            raise ConfigError(f"passes must be >= 1, got {passes}")
        if starts is None:
            starts = [True] * len(corrected)
        elif len(starts) != len(corrected):
            raise ValueError(f"starts has {len(starts)} entries for {len(corrected)} sentences")
        gains = self._lm_gains(corrected, lm, starts, capitals) if lm is not None and self.lm_judge is not None else {}
        social = [social] * len(corrected) if isinstance(social, bool) else list(social)
        for s, entries in enumerate(corrected):
            spelled = [(e.correction, e.kind, e.probability) for e in entries]
            current = [e.correction for e in entries]
            for done in range(passes):
                if done:  # again from the speller's output, the neighbours as the last pass left them
                    if current == [c for c, _, _ in spelled]:
                        break  # nothing changed: another pass would judge the same
                    for entry, (correction, kind, p) in zip(entries, spelled):
                        entry.correction, entry.kind, entry.probability = correction, kind, p
                for i, entry, caps in self._judged_words(entries, bool(starts[s]), capitals):
                    self._decide(entry, current, i, gains.get((s, i)), threshold, allowed, social[s], caps)
                    current[i] = entry.correction

    def _put_twin(self, entry: WordCorrection, left: str | None, right: str | None, allowed: Sequence[str]) -> bool:
        """Put a known word's twin in (``dias`` -> ``días``) where the twin decision says so; whether it did."""
        word = entry.word.lower()
        found = None if self.accents is None or entry.changed else self.accents.read(word, left, right)
        kind = "accent" if found is not None and restores_accents(word, found[0]) else "spelling"
        if found is not None and found[1] < found[2]:  # read and kept: --json says why
            entry.decided_by = f"accented twin: kept; {found[0]} {found[1]:.2f} < {found[2]:.2f}"
        if found is None or kind not in allowed or found[1] < found[2]:
            return False
        entry.correction, entry.kind, entry.probability = same_case(entry.word, found[0]), kind, found[1]
        entry.decided_by = (f"accented twin: {found[1]:.2f} >= {found[2]:.2f} (the twin decision: both spellings' "
                            "frequencies and their fit between the neighbours)")
        return True

    def _decide(self, entry: WordCorrection, current: list[str], i: int, lm_row: dict[str, float] | None,
                threshold: float | None, allowed: Sequence[str], social: bool, caps: str = "") -> None:
        """One word of :meth:`apply`, read between the neighbours of ``current``, changed in place
        (in capitals when ``caps``, :meth:`_judged_words`'s reading of a word written in capitals)."""
        from charwise.speller.real_words import adjacent_words

        left, right = adjacent_words(current, i)
        judge = self.judge_for(lm_row)
        # a capitalised word is read at a sentence start only (inside one it is a name); a short word in
        # capitals is as often an acronym (`U.N`, `QLD`) or a name (`WET N WILD`): both need the capitals' threshold
        named = (capitalised(entry.word) and (i == 0 or named_by_capital(current, i))) or caps == SHORT_CAPITALS
        needed = judge.threshold_for(social, named) if threshold is None else threshold
        if self._put_twin(entry, left, right, allowed):
            return
        shares = self.shares(entry.word, current, i)
        found = self.best(entry.word, left, right, speller_candidates(entry), lm_row, shares)
        # the speller changed a run-together pair into one of its words (youcould -> could): the pair, split, is it
        drops_word = (found is not None and entry.kind == "spelling" and found[1] == "split"
                      and entry.correction.lower() in found[0].split(" "))
        if drops_word and "split" not in allowed:
            entry.correction, entry.kind, entry.decided_by = entry.word, "", ""  # better unchanged than a word short
            return
        if found is None or (not drops_word and (found[2] < needed or found[1] not in allowed)):
            if found is not None and not entry.changed and found[0] != entry.word.lower() and (
                    not entry.decided_by or entry.decided_by.startswith(KEPT)):  # --json says why (the latest pass)
                entry.decided_by = f"{KEPT}{found[0]} {found[2]:.2f}" + (
                    f" < {needed:.2f}" if found[2] < needed else f" (a change of kind {found[1]!r} is not allowed)")
            if social and entry.kind == "spelling" and found is not None:  # tweets' unknown words: often names
                # the undo decision reads the plain judge's probabilities, what it was fitted on
                plain = judge if self.undo is None else self.judge_for(None)
                seen = (found if plain is judge
                        else self.best(entry.word, left, right, speller_candidates(entry), None, shares))
                if seen is not None and undoes(self.undo, plain, self.lexicon, entry, seen):
                    entry.correction, entry.kind = entry.word, ""  # undoes() said why in decided_by
            return
        cand, kind, p = found
        spelled = speller_candidates(entry)
        source = self.candidates(entry.word.lower().replace("\u2019", "'"), spelled).get(cand, "")
        also = "; the spelling candidates too" if source != "speller" and cand in spelled else ""
        if shares and cand in shares:  # the sentence split the table's share between a confusion set's members
            also += "; the sentence's share: " + ", ".join(f"{m} {q:.2f}" for m, q in shares.items())
        gains = class_gains(self.lexicon.language, [cand], entry.word.lower(), left, right)  # None: no tagged corpus
        also += "" if gains is None else f"; the neighbours' word classes {gains[cand]:+.1f} nats for it"
        entry.correction, entry.kind, entry.probability = cand.upper() if caps else same_case(entry.word, cand), kind, p
        verdict = (f"{p:.2f} >= {needed:.2f}" if p >= needed else
                   f"{p:.2f}, below {needed:.2f}, in place of the speller's change, which drops a word")
        entry.decided_by = (f"normalisation judge{' with the language model' if lm_row is not None else ''}: "
                            f"{verdict} (candidate from: {SOURCE_NAMES.get(source, source)}{also})")

    def _judged_words(self, entries: list[WordCorrection], start: bool = True,
                      capitals: int = 0) -> Iterator[tuple[int, WordCorrection, str]]:
        """The words of a sentence the normaliser judges, their positions, and how each is read in capitals:
        not (``""``), :data:`CAPITALS` or :data:`SHORT_CAPITALS` (shorter than ``capitals``, ``U`` too, amid text
        in capitals). ``start``: whether the words begin a sentence (not a window continuing one)."""
        written = [e.word for e in entries]  # a contraction's pieces are the writer's, whatever pass reads them
        for i, entry in enumerate(entries):
            at_start, start = start, starts_after(entry.word, start, entries[i - 1].word if i else "")
            # a capital inside a sentence, or a valid word before one (Lil Uzi), is a name; capitals read in lower case
            caps = "" if not capitals else CAPITALS if len(entry.word) >= capitals and shouted(entry.word) else (
                SHORT_CAPITALS if in_capitals_text(written, i) else "")
            named = not caps and (named_by_capital(written, i) if not at_start else entry.word[:1].isupper()
                                  and before_a_name([e.word for e in entries[i:i + 2]], self.lexicon))
            if (entry.protected or not (caps or normalisable(entry.word)) or named
                    or not self._may_change(entry.word.lower().replace("\u2019", "'"), entry)
                    or beside_apostrophe(written, i, self.rules.dropped_g)):
                continue
            yield i, entry, caps

    def _lm_gains(self, corrected: list[list[WordCorrection]], lm: ContextModel,
                  starts: Sequence[bool], capitals: int = 0) -> dict[tuple[int, int], dict[str, float]]:
        """(sentence, position) -> its candidates' LM gains, for every judged word that
        :meth:`lm_candidates` gives to the language model, read in the sentences as the speller left them."""
        sentences = [[e.correction for e in entries] for entries in corrected]
        targets: list[tuple[int, int, str, list[str]]] = []
        for s, entries in enumerate(corrected):
            for i, entry, _ in self._judged_words(entries, bool(starts[s]), capitals):
                found = self.lm_candidates(entry.word, sentences[s], i, speller_candidates(entry), lm)
                if found:
                    targets.append((s, i, entry.word, found))
        return {(s, i): row for (s, i, _, _), row in zip(targets, lm_gains(lm, sentences, targets))}

    def lm_candidates(self, word: str, sentence: Sequence[str], index: int, speller: dict[str, float] | None,
                      lm: ContextModel) -> list[str]:
        """The candidates of ``word`` (at ``sentence[index]``) the language model reads, or none: only when the plain
        judge is in doubt (its best within ``lm_doubt``, :data:`LM_DOUBT` unless set) and the word has neighbours."""
        from charwise.speller.real_words import adjacent_words

        found = self.candidates(word.lower().replace("\u2019", "'"), speller)
        if not found or not lm.has_context(sentence, index):
            return []
        left, right = adjacent_words(sentence, index)
        best = self.best(word, left, right, speller, shares=self.shares(word, sentence, index))
        return list(found) if best is not None and self.lm_doubt[0] <= best[2] < self.lm_doubt[1] else []
