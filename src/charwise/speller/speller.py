"""A spelling corrector that reads characters: :class:`Speller` (``charwise correct``).

For each word it is asked about, the speller

1. gathers **candidates** from the lexicon: words within two edits (``symspellpy``), words with the
   same sound key (the realistic error model's rules undone) and the encoder's nearest whole-word
   rows (:mod:`charwise.speller.candidates`, over the lexicon's encoder vectors of
   :mod:`charwise.speller.vectors`);
2. **ranks** them with the learned scorer (:mod:`charwise.speller.scorer`) over edit, frequency and encoder
   features (:class:`~charwise.speller.features.Featurizer`, a whole batch of words at once): the encoder's
   cosine finds what edit distance and frequency miss (phonetic and multi-edit errors);
3. **judges** the best one: the probability that the written word is a misspelling of it, against a valid word the
   lexicon lacks (a name, a new word).

The :class:`Speller` remembers scores (running text repeats its unknown words) and decides which words to look
at (the rules below) and which to change: :meth:`Speller.correct` changes a word only when that probability
reaches the threshold (tuned on dev text so that clean text is left alone). Words are left alone without a
look when they are known to the lexicon, not alphabetic, shorter than ``min_length`` or longer than
``max_length``, with a capital after the first letter (``McDonal``) or, in English, with letters outside
ASCII (``Jürgen``: a foreign word or name). A capitalised word is read lower-case and keeps its capital,
changed when a decision fitted on development text (:mod:`charwise.speller.capital_decision`: the scorer's
probability, the list of known misspellings, how often the written form and the candidate are written)
finds it a misspelling rather than a name (``Wierd``, not ``Jahmaal``), at a threshold for a sentence's first
word and a higher one inside a sentence (``Britian``; names are far more common there: ``Wycombe``). A word
in capitals is read as its lower-case form, changed when the same decision, at a threshold of its own, finds
it a misspelling (names are written in capitals too), corrected in capitals (``SERVISE`` -> ``SERVICE``; the
normaliser reads it too: ``CANT`` -> ``CAN'T``) from ``capitals_min_length`` letters (4) up: shorter ones
(``FBI``) and those the lexicon knows anyway (``NASA``) are acronyms; ``read_capitals=False`` leaves them all.
In Spanish, an unknown word whose best candidate only puts back its missing accents (``despues`` ->
``después``) is changed at ``accent_threshold`` (0: whenever the ranking puts that candidate first).

Valid words can be the wrong word too (``went to there house``): in English, a known word of a
confusion set is changed to another member when the sentence's bigram counts favour it a hundred
times over (:mod:`charwise.speller.real_words`); such changes have ``kind="real_word"``. Contractions and the
sets a fitted model decides (:mod:`charwise.speller.confusions`: ``its``/``it's``; in Spanish the accent twins,
``esta en casa`` -> ``está``, kind ``accent``) are that model's alone.

Text as people write it (``u``, ``dont``, ``goin``, ``soooo``, ``youcould``) is normalised in English by one fitted
judge over candidates from annotated tweets and rules (:mod:`charwise.speller.normalise`), and the slips between words
are mended (``don´t``, ``the the``, ``a apple``: :mod:`charwise.speller.slips`); ``style="social"`` lets that judge
undo the speller's own corrections in tweets and chat, ``"auto"`` (the default) in the sentences that read like them.

What is not a word of the language is never changed: URLs, e-mail addresses, @handles, #hashtags, file paths,
code identifiers, numbers with units and emoticons (:func:`charwise.words.protected_spans`), whatever the
patterns of ``settings.protect`` (or a call's ``protect=``) match, and, in English, a sentence written in another
language (:mod:`charwise.speller.foreign`). Every change has a kind
(:data:`~charwise.speller.corrections.CHANGE_KINDS`); ``settings.changes`` lists those it may make (all by default).

Example (run by tests/test_doctests.py)::

    >>> speller = Speller.load("en")
    >>> speller.suggest(["recieve"])[0][0]     # the best candidate and its probability
    Suggestion(word='receive', probability=0.9...)
    >>> speller.correct("I recieved teh pakage").corrected   # teh: a known misspelling of the
    'I received the package'
    >>> speller.correct("i dont know wat u mean").corrected    # informal spellings normalised
    "i don't know what you mean"
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Sequence, TypeAlias, overload

import numpy as np

from charwise.cache import LRUCache
from charwise.errors import ConfigError
from charwise.speller.candidates import CandidateIndex
from charwise.speller.capital_decision import SCORER_THRESHOLD, CapitalDecision, capitalised_odds, change_evidence
from charwise.speller.confusion_lm import decided_members
from charwise.speller.confusions import SETS as CONFUSION_MODELS
from charwise.speller.confusions import ConfusionModel, decide_sentences, decided_by_model
from charwise.speller.context import neighbours
from charwise.speller.corrections import (
    CorrectedText,
    Suggestion,
    WordCorrection,
    restores_accents,
    same_case,
    starts_after,
    text_lines,
    word_spans,
)
from charwise.speller.features import Featurizer, rank_order, segment_max
from charwise.speller.foreign import ForeignSentences
from charwise.speller.lexicon import ACCENTED, Lexicon
from charwise.speller.loading import SHIPPED_SCORERS, load_speller  # noqa: F401 (SHIPPED_SCORERS: re-exported)
from charwise.speller.looking import WordKinds, one_word, shouted  # noqa: F401 (shouted: re-exported)
from charwise.speller.merges import join_split_words
from charwise.speller.normalisation_rules import social_sentences
from charwise.speller.normalise import NORMALISED, Normaliser
from charwise.speller.real_words import CONFUSION_SETS, RealWordChecker, check_sentences
from charwise.speller.run_together import SplitDecision, join_by_counts, split_run_together
from charwise.speller.scoring import ScorerArrays, check_scorer_language
from charwise.speller.settings import SpellerSettings, check_threshold
from charwise.speller.slips import mend_text
from charwise.words import clear_spans_cache, compile_patterns, protected_words, split_words, words_protected

if TYPE_CHECKING:
    from charwise.speller.context_model import ContextModel
    from charwise.speller.scorer import SpellScorer
    from charwise.speller.vectors import WordEncoder

    Scorer: TypeAlias = SpellScorer | ScorerArrays  # the fitted model, or its arrays read without torch

DEFAULT_ENCODERS = {"en": "minilm", "es": "e5-multilingual"}
SCORE_CACHE_SIZE = 50_000  # scored words remembered across calls
Context = tuple[str | None, str | None]  # a word's left and right neighbour, lower-case
NO_CONTEXT: Context = (None, None)


class Speller:
    """Lexicon + candidates + learned scorer (see the module docstring).

    ``featurizer``: candidates and features already built for ``lexicon`` and ``encoder`` (with
    ``settings``' ``max_distance`` and ``per_key``), shared instead of built again.
    """

    def __init__(self, lexicon: Lexicon, encoder: WordEncoder, scorer: Scorer,
                 settings: SpellerSettings | None = None, *, featurizer: Featurizer | None = None) -> None:
        check_scorer_language(scorer, lexicon.language)
        self.settings = settings or SpellerSettings()
        if featurizer is None:
            featurizer = Featurizer(lexicon, encoder, max_distance=self.settings.max_distance,
                                    per_key=self.settings.per_key, neighbours=self.settings.neighbours)
        elif featurizer.lexicon is not lexicon or featurizer.encoder is not encoder:
            raise ConfigError("the featurizer was built for another lexicon or encoder")
        elif (featurizer.index.max_distance, featurizer.index.per_key) != (self.settings.max_distance,
                                                                           self.settings.per_key):
            raise ConfigError("the featurizer's max_distance and per_key differ from the settings'")
        self._scored = LRUCache(SCORE_CACHE_SIZE)
        self._word_kinds = WordKinds()
        self._real_word_checker: RealWordChecker | None = None
        self._confusion_model: ConfusionModel | None = None
        self._normaliser: Normaliser | None = None
        self.foreign = ForeignSentences.for_language(lexicon)  # sentences in another language: left whole
        self.lexicon = lexicon
        self.encoder = encoder
        self.language = lexicon.language
        self.featurizer = featurizer
        self.scorer = scorer  # the property (a fresh score cache); assigned later, it checks the language too
        #: a second look at the words in doubt (:mod:`charwise.speller.neural`); None: the scorer alone
        self.context_model: ContextModel | None = None

    @classmethod
    def from_featurizer(cls, featurizer: Featurizer, scorer: Scorer,
                        settings: SpellerSettings | None = None) -> "Speller":
        """The speller of ``featurizer``'s lexicon and encoder with ``scorer`` (default settings but
        the featurizer's candidate settings)."""
        if settings is None:
            settings = SpellerSettings(neighbours=featurizer.neighbours, max_distance=featurizer.index.max_distance,
                                       per_key=featurizer.index.per_key)
        return cls(featurizer.lexicon, featurizer.encoder, scorer, settings, featurizer=featurizer)

    @property
    def index(self) -> CandidateIndex:
        """The edit and sound candidate sources (the symmetric-delete index is built on first use)."""
        return self.featurizer.index

    @property
    def scorer(self) -> Scorer:
        """The learned scorer; another one assigned forgets the cached scores (a change in place: the cache keys)."""
        return self._scorer

    @scorer.setter
    def scorer(self, scorer: Scorer) -> None:
        check_scorer_language(scorer, self.language)
        self._scorer = scorer
        self._scored.clear()
        #: how a capitalised word or a word in capitals is decided (fitted with the scorer's probabilities)
        self.capital_decision = CapitalDecision.from_dict(getattr(scorer.config, "capital_decision", None))

    @property
    def threshold(self) -> float:
        t = self.settings.threshold
        return float(self.scorer.config.threshold if t is None else t)

    @property
    def alone_threshold(self) -> float:
        """The probability at which a text of one word alone (a word list, a lookup) is changed: the scorer's
        ``alone_threshold`` (no sentence tells a name from a misspelling there), unless ``settings.threshold`` is."""
        alone = self.scorer.config.alone_threshold
        return self.threshold if alone is None or self.settings.threshold is not None else float(alone)

    # --- loading --------------------------------------------------------------------------------
    @classmethod
    def load(cls, language: str = "en", *, encoder: str | WordEncoder | None = None,
             scorer: str | os.PathLike | None = None, lexicon: Lexicon | None = None,
             word_files: tuple[str | os.PathLike, ...] = (), settings: SpellerSettings | None = None,
             context: str | None = None, device: str | None = None, precision: str = "auto") -> "Speller":
        """The speller of ``language`` with its shipped encoder and scorer (or the ones given);
        ``word_files`` add words to the lexicon (one per line). ``context``: ``"ngram"`` (or None,
        the default: the scorer's bigram evidence alone) or ``"smollm2"`` (SmolLM2 judges the words
        in doubt again, on ``device`` at ``precision``; English only: :mod:`charwise.speller.neural`).

        A CNN encoder named by a string (the shipped ones are) runs in numpy and the scorer is read as
        arrays (:class:`~charwise.speller.scoring.ScorerArrays`): no torch or transformers import, which
        would take longer than the rest. A torch :class:`~charwise.encoders.base.CharEncoder` embeds with torch.

        Loading leaves the global random generators (torch, numpy, ``random``) as they were: a policy may
        load its speller in a seeded training run, which must stay the same whether or not it was resumed."""
        return load_speller(cls, language, encoder, scorer, lexicon, word_files, settings, context, device, precision)

    def clear_cache(self) -> None:
        """Forget the scores of earlier calls (reused while the scorer, its weights and the settings they
        depend on stay the same) and which words are looked at: the next call computes everything again."""
        self._scored.clear()
        self._word_kinds.clear()
        clear_spans_cache()  # the process's protected spans of texts seen (charwise.words)
        if self._real_word_checker is not None:
            self._real_word_checker.clear_cache()

    # --- suggestions ----------------------------------------------------------------------------
    def suggest(self, words: list[str], k: int | None = None) -> list[list[Suggestion]]:
        """Ranked candidates for each word (compared lower-case), best first, each with the probability
        that the word is a misspelling of it; at most ``k`` (default ``settings.suggestions``) per word."""
        if isinstance(words, str):
            raise TypeError("suggest() takes a list of words, not a single string")
        return [list(s) for s, _ in self._score([w.lower() for w in words], k)]  # each caller's own list

    def _score(self, words: list[str], k: int | None = None,
               contexts: list[Context] | None = None) -> list[tuple[tuple[Suggestion, ...], float]]:
        """(suggestions, probability of the best) for each lower-case word (read between its
        ``contexts``: left and right neighbours, when the scorer reads context). The suggestions are
        the cache's own tuples, shared by every word that hit the same entry: give callers a copy."""
        keep = self.settings.suggestions if k is None else k
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ConfigError(f"k must be an integer >= 1, got {keep!r}")
        # scores reused (running text repeats its unknown words), keyed by the scorer, its weights and settings
        scorer = self.scorer
        setting = (keep, self.settings.neighbours, self.settings.per_key, id(scorer), scorer.weights_version())
        # a word's score depends on its neighbours only for a scorer that reads them
        keys: list[Any] = (list(zip(words, contexts)) if contexts is not None and scorer.reads_context
                           else [(w, NO_CONTEXT) for w in words])
        scored: dict[Any, tuple[tuple[Suggestion, ...], float]] = {}
        for key in dict.fromkeys(keys):
            hit = self._scored.get((key, setting))
            if hit is not None:
                scored[key] = hit
        distinct = [key for key in dict.fromkeys(keys) if key not in scored]
        size = self.settings.batch_size
        for start in range(0, len(distinct), size):
            batch = distinct[start : start + size]
            results = self._score_batch([w for w, _ in batch], keep, scorer,
                                        [c for _, c in batch] if scorer.reads_context else None)
            for key, result in zip(batch, results):
                scored[key] = result
                self._scored.put((key, setting), result)
        return [scored[key] for key in keys]

    def _score_batch(self, words: list[str], keep: int, scorer: Scorer,
                     contexts: list[Context] | None = None) -> list[tuple[tuple[Suggestion, ...], float]]:
        """(suggestions, probability of the best) for each lower-case word: one featurizer call, one
        ranker call and one judge call for the batch."""
        batch = self.featurizer.featurize(words, self.settings.neighbours, contexts)
        scores = scorer.rank(batch.rows)
        order = rank_order(scores, batch.offsets)
        p_best = scorer.judge(self.featurizer.word_rows(batch, scores, order))  # words with candidates
        # each candidate's probability: the best's, times its softmax share relative to the best's
        has = batch.counts > 0
        probability = (np.repeat(p_best, batch.counts[has]) * np.exp(scores - segment_max(scores, batch.offsets)))
        names, offsets = batch.names, batch.offsets.tolist()
        results: list[tuple[tuple[Suggestion, ...], float]] = []
        judged = iter(p_best.tolist())
        for i in range(len(words)):
            start, end = offsets[i], offsets[i + 1]
            if start == end:
                results.append(((), 0.0))
                continue
            top = order[start : min(end, start + keep)]
            results.append((tuple(Suggestion(names[j], p) for j, p in zip(top.tolist(), probability[top].tolist())),
                            next(judged)))
        return results

    # --- correction -----------------------------------------------------------------------------
    def changes(self, word: str, probability: float, threshold: float | None = None,
                suggestion: str | None = None, inside: bool = False) -> bool:
        """Whether a looked-at ``word`` whose best suggestion (``suggestion``) has ``probability`` is
        changed (see :meth:`decision`)."""
        value, needed = self.decision(word, probability, threshold, suggestion, inside)
        return value >= needed

    def decision(self, word: str, probability: float, threshold: float | None = None,
                 suggestion: str | None = None, inside: bool = False) -> tuple[float, float]:
        """``(the probability that decides, the probability it needs)`` for changing looked-at
        ``word`` to its best ``suggestion``, which the scorer gives ``probability``: that probability
        at ``threshold`` (default :attr:`threshold`); in Spanish, a suggestion that only puts back the
        word's missing accents at ``settings.accent_threshold``; a capitalised word (``inside`` a sentence
        or not) or a word in capitals the :attr:`capital_decision`'s probability at its threshold for that
        case (the scorer's at :data:`~charwise.speller.capital_decision.SCORER_THRESHOLD` where the decision
        has none; ``settings.capital_threshold``, where given, in place of it); never below ``threshold``."""
        if suggestion is not None and self.language in ACCENTED and restores_accents(word.lower(), suggestion):
            return probability, self.settings.accent_threshold
        base = self.threshold if threshold is None else threshold
        if not word[:1].isupper():
            return probability, base
        own, rule = self.settings.capital_threshold, self.capital_decision
        needed = rule.capitals_threshold if shouted(word) else rule.inside_threshold if inside else rule.threshold
        if suggestion is None or needed is None or rule.reads_scorer_only:
            return probability, max(base, SCORER_THRESHOLD if own is None else own)
        value = rule.probability(probability, *change_evidence(self.lexicon, word, suggestion))
        named = inside and not shouted(word) and capitalised_odds(suggestion) < rule.inside_odds  # never a common word
        return 0.0 if named else value, max(base, needed if own is None else own)

    def looked_at(self, words: list[str], start: bool = True, inside_capitals: bool | None = None) -> list[bool]:
        """Which words the speller considers (see the module docstring); ``start``: whether they begin a
        sentence (False for a window continuing one); ``inside_capitals``: whether capitalised words inside
        a sentence are read (default: where the capitals decision reads them)."""
        return self._looks(words, start, inside_capitals)[0]

    def _looks(self, words: list[str], start: bool = True, inside: bool | None = None) -> tuple[list[bool], list[bool]]:
        """Which ``words`` are looked at, and which begin a sentence."""
        inside = self.capital_decision.inside_threshold is not None if inside is None else inside
        return self._word_kinds.looked_at(self.settings, self.lexicon, words, start, inside)

    @staticmethod
    def sentence_start_after(words: Sequence[str], start: bool = True) -> bool:
        """Whether a text after ``words`` (a sentence start if ``start``) begins one: the next window's ``start``."""
        previous = ""
        for word in words:
            start, previous = starts_after(word, start, previous), word
        return start

    @overload
    def correct(self, text: str, **options: Any) -> CorrectedText: ...

    @overload
    def correct(self, text: Sequence[str], **options: Any) -> list[CorrectedText]: ...

    def correct(self, text: str | Sequence[str], **options: Any) -> CorrectedText | list[CorrectedText]:
        """Correct one text (a sentence or a line), or each text of a list (as
        :meth:`correct_lines`, with the same ``options``)."""
        if isinstance(text, str):
            return self.correct_lines([text], **options)[0]
        return self.correct_lines(list(text), **options)

    def correct_lines(self, texts: list[str], threshold: float | None = None, *,
                      starts: Sequence[bool] | None = None, protect: Sequence[str] = ()) -> list[CorrectedText]:
        """Correct several texts at once (their unknown words are scored together); ``threshold``
        overrides :attr:`threshold` for this call. ``starts`` says for each text whether it begins
        a sentence (default: all do); a long text corrected window by window gives each window the
        :meth:`sentence_start_after` of the one before, so that it is corrected as if whole.
        ``protect``: regular expressions whose matches are left alone, beside ``settings.protect``."""
        if isinstance(texts, str):
            raise TypeError("correct_lines() takes a list of texts, not a single string")
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"correct_lines() takes texts (str), got {type(text).__name__}")
        patterns = compile_patterns(self.settings.protect) + compile_patterns(protect)  # once per call
        # a line break ends a sentence, as in a file read line by line: each line is corrected on its own
        lines, line_starts = text_lines(texts, starts)
        splits = [split_words(line) for _, _, line in lines]
        spans = [word_spans(line, split.words) for (_, _, line), split in zip(lines, splits)]
        protected = [protected_words(line, where, patterns) for (_, _, line), where in zip(lines, spans)]
        corrected = self._correct([s.words for s in splits], threshold, line_starts, protected,
                                  [s.space_before for s in splits])
        out = [CorrectedText(text, []) for text in texts]
        for (owner, offset, line), where, words, first in zip(lines, spans, corrected, line_starts):
            for entry, (start, end) in zip(words, where):
                entry.start, entry.end = offset + start, offset + end
            mend_text(line, words, self.lexicon, self.settings.changes, first)  # goin', don´t, the the, a apple
            out[owner].words += words
        return out

    def correct_words(self, sentences: list[list[str]], threshold: float | None = None, *,
                      starts: Sequence[bool] | None = None, space_before: Sequence[Sequence[bool]] | None = None,
                      protect: Sequence[str] = ()) -> list[list[WordCorrection]]:
        """Correct pre-split sentences, one :class:`WordCorrection` per word (offsets left at 0);
        the unknown words of all sentences are scored together. ``threshold`` overrides
        :attr:`threshold` for this call; ``starts`` and ``protect``: see :meth:`correct_lines`.
        ``space_before`` says, per word, whether whitespace preceded it (as
        :func:`~charwise.words.split_words` gives it; default: words from a tokenizer,
        :func:`~charwise.words.tokenised_spacing`): words glued together are read as one for
        protection (``@`` + ``joejonas``)."""
        patterns = compile_patterns(self.settings.protect) + compile_patterns(protect)  # once per call
        if space_before is None:
            space_before = [None] * len(sentences)  # type: ignore[list-item]
        elif len(space_before) != len(sentences):
            raise ValueError(f"space_before has {len(space_before)} entries for {len(sentences)} texts")
        protected = [words_protected(words, spaces, patterns) for words, spaces in zip(sentences, space_before)]
        return self._correct(sentences, threshold, starts, protected, space_before)

    def _correct(self, sentences: list[list[str]], threshold: float | None, starts: Sequence[bool] | None,
                 protected: list[list[bool]], spaces: Sequence[Sequence[bool] | None] | None = None
                 ) -> list[list[WordCorrection]]:
        """:meth:`correct_words` once each word's protection (and, where known, spacing) is known."""
        check_threshold(threshold)
        if starts is None:
            starts = [True] * len(sentences)
        elif len(starts) != len(sentences):
            raise ValueError(f"starts has {len(starts)} entries for {len(sentences)} texts")
        if self.foreign is not None:
            protected = [[True] * len(w) if self.foreign(w) else g for w, g in zip(sentences, protected)]
        # sentence starts are per sentence (or as given); a protected word is never looked at
        looked = [self._looks(list(words), bool(start)) for words, start in zip(sentences, starts)]
        looks = [[f and not keep for f, keep in zip(flags, guard)] for (flags, _), guard in zip(looked, protected)]
        todo = [(words, i) for words, look in zip(sentences, looks) for i, f in enumerate(look) if f]
        todo_words = [words[i].lower() for words, i in todo]
        # the sentence decides too: each word's neighbours, for a scorer that reads context
        contexts = [neighbours(words, i) for words, i in todo] if self.scorer.reads_context else None
        scored = iter(self._score(todo_words, contexts=contexts)) if todo_words else iter(())
        allowed = self.settings.changes
        out = []
        for words, look, guard, (_, begins) in zip(sentences, looks, protected, looked):
            flat = []
            # only a looked-at word reads the threshold: the count of words is skipped without one
            here = self.alone_threshold if threshold is None and any(look) and one_word(words) else threshold
            for word, flag, keep, first in zip(words, look, guard, begins):
                entry = WordCorrection(word, word, False, protected=keep)
                if flag:
                    suggestions, p = next(scored)
                    # a list of the entry's own: a caller changing it changes no other result, nor the cache
                    entry.looked_at, entry.suggestions, entry.probability = True, list(suggestions), p
                    best = suggestions[0].word if suggestions else None
                    value, needed = self.decision(word, p, here, best, not first) if best is not None else (p, 1.0)
                    if best is not None and best != word.lower() and value >= needed:
                        kind = "accent" if restores_accents(word.lower(), best) else "spelling"
                        if kind in allowed:
                            entry.correction, entry.kind = same_case(word, best), kind
                            where = " inside a sentence" if not first and not shouted(word) else ""
                            judged = f", capitals decision{where}: {value:.2f}" if value != p else ""
                            entry.decided_by = (f"spelling scorer: {p:.2f}{judged} >= {needed:.2f} (candidates: "
                                                "edits, sound keys, known misspellings, encoder neighbours)")
                flat.append(entry)
            out.append(flat)
        normaliser = self.normaliser
        informal = None if normaliser is None else normaliser.table.informal_words
        social = social_sentences(self.settings.style, sentences, informal, spaces)
        # the context model's second look at the words in doubt; not in a social sentence when the
        # normaliser's judge reads the model: it re-reads those words (docs/correction.md)
        reads = normaliser is not None and normaliser.lm_judge is not None
        kept = [i for i, s in enumerate(social) if not (s and reads)]
        if "spelling" in allowed and self.context_model is not None and kept:
            self.context_model.rerank([sentences[i] for i in kept], [out[i] for i in kept])
        if normaliser is not None:  # a threshold given (settings or call) applies to every change
            normaliser.apply(out, allowed, self.settings.threshold if threshold is None else threshold,
                             social=social, lm=self.context_model, starts=starts,
                             capitals=self.settings.capitals_min_length if self.settings.read_capitals else 0)
        confusions = self.confusion_model  # contractions and real-word errors the fitted model decides
        checker = self.real_word_checker  # valid words the sentence says are another of their confusion set
        if checker is not None:  # the members a fitted decision decides (the model's, the LM's) are its alone
            decided = frozenset() if confusions is None else decided_by_model(confusions) | (
                decided_members(confusions) if self.context_model else frozenset())
            check_sentences(checker, out, allowed, self.settings.real_word_margin,
                            accents_only=self.language in ACCENTED, lm=self.context_model,
                            lm_margin=self.settings.real_word_lm_margin, skip=decided)
        if confusions is not None:
            decide_sentences(confusions, out, allowed, self.context_model, spaces)
        if "merge" in allowed and self.context_model is not None:  # split words joined: only a model judges
            join_split_words(out, self.lexicon, self.context_model, starts, informal or frozenset())
        elif "merge" in allowed and self.language == "en":  # without a model: the web counts' frequencies
            join_by_counts(out, self.lexicon, starts, informal or frozenset())
        split = SplitDecision.load(self.language) if "split" in allowed else None
        if split is not None and normaliser is not None:  # words run together, cut by the fitted decision
            split_run_together(out, self.lexicon, normaliser.rules, starts, split)
        return out

    @property
    def confusion_model(self) -> ConfusionModel | None:
        """The fitted model of contractions and real-word errors (:mod:`charwise.speller.confusions`,
        loaded on first use), or None when ``settings.changes`` leaves out ``real_word`` (``accent``
        in Spanish, where it puts back accents: ``esta en casa`` -> ``está``) or the language has none."""
        kind = "accent" if self.language in ACCENTED else "real_word"
        if kind not in self.settings.changes or self.language not in CONFUSION_MODELS:
            return None
        if self._confusion_model is None:
            self._confusion_model = ConfusionModel.load(self.language)
        return self._confusion_model

    @property
    def normaliser(self) -> Normaliser | None:
        """The judge of informal spellings, contractions and run-together words (loaded on first
        use: :mod:`charwise.speller.normalise`), or None when ``settings.changes`` has neither
        ``normalisation`` nor ``split`` or the language has no normalisation model."""
        if not {"normalisation", "split"} & set(self.settings.changes) or self.language not in NORMALISED:
            return None
        if self._normaliser is None:
            self._normaliser = Normaliser.load(self.language, self.lexicon)
        return self._normaliser

    @normaliser.setter
    def normaliser(self, normaliser: Normaliser | None) -> None:
        if normaliser is not None and normaliser.lexicon is not self.lexicon:
            raise ConfigError("the normaliser was built for another lexicon")
        self._normaliser = normaliser

    @property
    def real_word_checker(self) -> RealWordChecker | None:
        """The confusion-set checker (loaded on first use), or None when ``settings.changes`` leaves
        out ``real_word`` (and, in a language with accents, ``accent``) or the language has no
        confusion sets."""
        wanted = "real_word" in self.settings.changes or (
            "accent" in self.settings.changes and self.language in ACCENTED)  # accent twins: el/él
        if not wanted or self.language not in CONFUSION_SETS:
            return None
        if self._real_word_checker is None:
            self._real_word_checker = RealWordChecker.load(self.language)
        return self._real_word_checker
