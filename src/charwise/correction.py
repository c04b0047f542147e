"""Spelling correction from character vectors: :class:`Corrector` (``charwise correct``).

A word is looked at only if it could be a misspelling the teacher cannot read: it is alphabetic,
at least ``min_length`` characters long, and the encoding policy (``oov`` by default: every word
that is not one whole-word token of the teacher) sends it to the character encoder. Every other
word is kept as written. For a word looked at:

1. **Candidates**: the word as written; the ``k`` whole-word rows of the teacher nearest to its
   vector (``encoder.embed``, with the encoder's manifold projection); with a decoder, the
   ``beam`` best spellings of its raw vector (:meth:`CharDecoder.spell`). A decoder spelling that
   is neither a whole-word row nor a word of ``wordfreq``'s list for the language is dropped: the
   decoder may reach words outside the teacher's vocabulary (inflections, rare words), never
   invent them.
2. **Score** of a candidate ``c`` for the word's raw vector ``v``::

       score(c) = logp(c | v) / (len(c) + 1)  +  cos_weight * cos(v, vec(c))  +  freq_weight * zipf(c)

   ``logp`` is the decoder's log-probability of spelling ``c`` from ``v`` (END included; 0
   without a decoder), ``vec(c)`` the teacher's row of ``c`` if it has one, else the encoder's
   vector of ``c``, and ``zipf`` wordfreq's Zipf frequency of ``c`` (0 for unknown words, about 3
   for a common misspelling, 5 to 7 for common words).
3. The best candidate replaces the word if its score beats the word as written by ``margin``.

The weights are tuned on a seeded half of Wikipedia's list of common misspellings (split by the
correct word) together with correctly spelled words the teacher splits (they must stay as they
are); see ``benchmarks/correct.py`` and ``docs/correction.md``. A lower-casing teacher's
correction takes the case pattern of the word (``Recieve`` -> ``Receive``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from charwise.encoders.base import CharEncoder
from charwise.errors import ConfigError
from charwise.hybrid.policies import Policy, get_policy
from charwise.retrieval import topk_rows
from charwise.words import join_words, split_words

SOURCES = ("written", "row", "decoder")


@dataclass
class CorrectorSettings:
    """How a :class:`Corrector` chooses (see the module docstring)."""

    k: int = 5  # nearest whole-word rows
    beam: int = 5  # decoder spellings (0: no decoder candidates)
    # Defaults: chosen by benchmarks/correct.py for the shipped MiniLM encoder and decoder; without
    # a decoder use CorrectorSettings.tuned(decoder=False).
    cos_weight: float = 4.0
    freq_weight: float = 1.0
    margin: float = 0.0
    min_length: int = 3
    policy: str = "oov"
    language: str = "en"  # wordfreq's language for zipf and for the decoder's known words

    @classmethod
    def tuned(cls, decoder: bool = True, **overrides: Any) -> "CorrectorSettings":
        """The weights benchmarks/correct.py chose for the shipped MiniLM encoder, with or without
        its decoder (then ``beam`` is 0)."""
        weights = dict(cos_weight=4.0, freq_weight=1.0, margin=0.0) if decoder else dict(
            cos_weight=1.0, freq_weight=0.25, margin=0.0, beam=0)
        return cls(**{**weights, **overrides})

    def __post_init__(self) -> None:
        for name in ("k", "beam", "min_length"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be an integer >= 0, got {value!r}")
        if self.k == 0 and self.beam == 0:
            raise ConfigError("a corrector needs candidates: k or beam must be > 0")
        for name in ("cos_weight", "freq_weight", "margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise ConfigError(f"{name} must be a number, got {value!r}")


@dataclass
class Candidate:
    """One possible correction and its score's parts."""

    text: str
    source: str  # "written" (the word itself), "row" (a nearest row) or "decoder" (a spelling)
    score: float
    logp: float
    cos: float
    zipf: float


@dataclass
class WordCorrection:
    """What the corrector did with one word."""

    word: str
    correction: str
    looked_at: bool  # False: kept without a look (not alphabetic, short, or a vocabulary word)
    source: str = "written"  # where the correction came from (SOURCES)
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.correction != self.word


@dataclass
class CorrectedText:
    """A corrected text, word by word."""

    text: str
    corrected: str
    words: list[WordCorrection]
    space_before: list[bool]

    def marked(self) -> str:
        """The corrected text with each change shown as ``[written -> correction]``."""
        shown = [f"[{w.word} -> {w.correction}]" if w.changed else w.word for w in self.words]
        return join_words(shown, self.space_before)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "corrected": self.corrected,
                "words": [{**asdict(w), "changed": w.changed} for w in self.words if w.looked_at]}


@lru_cache(maxsize=200_000)
def _zipf(word: str, language: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, language))


def _same_case(word: str, correction: str) -> str:
    if len(word) > 1 and word.isupper():
        return correction.upper()
    if word[:1].isupper():
        return correction[:1].upper() + correction[1:]
    return correction


class Corrector:
    """Corrects misspelled words with a character encoder and, optionally, a character decoder.

    Example::

        corrector = Corrector("minilm", decoder=charwise.encoders.shipped.shipped_decoder("minilm"))
        corrector.correct("The pacakge arrives tomorow").corrected
        # 'The package arrives tomorrow'
    """

    def __init__(self, encoder: CharEncoder | str = "minilm", decoder: Any = None,
                 settings: CorrectorSettings | None = None) -> None:
        from charwise.decoders.lstm import CharDecoder
        from charwise.encoders.shipped import load

        self.encoder = load(encoder) if isinstance(encoder, str) else encoder
        self.teacher = self.encoder.teacher
        self.decoder: CharDecoder | None = (CharDecoder.from_pretrained(decoder) if isinstance(decoder, (str, Path))
                                            else decoder)
        if self.decoder is not None and self.decoder.charset.to_dict() != self.encoder.charset.to_dict():
            raise ConfigError("the decoder writes another alphabet than the encoder reads: use the decoder "
                              "trained for this encoder")
        self.settings = settings or CorrectorSettings()
        self.policy: Policy = get_policy(self.settings.policy)
        vocab = self.teacher.vocab
        self.rows = {s: i for i, s in reversed(list(enumerate(vocab.surfaces)))
                     if vocab.kinds[i] == "normal" and vocab.word_start[i]}
        self.candidate_mask = self.teacher.normal_mask & self.teacher.word_start_mask

    def _looked_at(self, words: list[str]) -> list[bool]:
        s = self.settings
        pieces = self.teacher.piece_ids(words) if words else []
        chosen = self.policy.select(words, pieces, self.teacher) if words else []
        return [c and len(w) >= s.min_length and w.isalpha() for w, c in zip(words, chosen)]

    def correct_words(self, words: list[str]) -> list[WordCorrection]:
        """One :class:`WordCorrection` per word (words as :func:`~charwise.words.split_words` gives them)."""
        look = self._looked_at(list(words))
        out = [WordCorrection(w, w, False) for w in words]
        todo = [i for i, flag in enumerate(look) if flag]
        if not todo:
            return out
        for i, candidates in zip(todo, self._candidates([words[i] for i in todo])):
            word = words[i]
            written = next(c for c in candidates if c.source == "written")
            best = max(candidates, key=lambda c: c.score)
            out[i].looked_at, out[i].candidates = True, sorted(candidates, key=lambda c: -c.score)
            if best is not written and best.score > written.score + self.settings.margin:
                fixed = _same_case(word, best.text) if self.teacher.lowercase else best.text
                out[i].correction, out[i].source = fixed, best.source
        return out

    def correct(self, text: str) -> CorrectedText:
        """Correct one text (a sentence or a line)."""
        return self.correct_lines([text])[0]

    def correct_lines(self, texts: list[str]) -> list[CorrectedText]:
        """Correct several texts at once (their words are encoded and decoded together)."""
        splits = [split_words(t) for t in texts]
        flat = self.correct_words([w for s in splits for w in s.words])
        out, start = [], 0
        for text, split in zip(texts, splits):
            words = flat[start : start + len(split.words)]
            start += len(split.words)
            out.append(CorrectedText(text, join_words([w.correction for w in words], split.space_before), words,
                                     split.space_before))
        return out

    # --- candidates and scores ------------------------------------------------------------------
    def _candidates(self, words: list[str]) -> list[list[Candidate]]:
        s, teacher = self.settings, self.teacher
        raw = self.encoder.embed(words, manifold=False)
        projected = self.encoder.embed(words) if self.encoder.manifold is not None else raw
        texts: list[dict[str, str]] = [{self.encoder.charset.normalise(w): "written"} for w in words]
        if s.k > 0:
            _, ids = topk_rows(projected.float().cpu(), teacher.embeddings, s.k, candidates=self.candidate_mask)
            for found, row_ids in zip(texts, ids.tolist()):
                for r in row_ids:
                    found.setdefault(teacher.vocab.surfaces[r], "row")
        if self.decoder is not None and s.beam > 0:
            for found, options in zip(texts, self.decoder.spellings(raw, beam=s.beam)):
                for option in options:
                    text = option.text
                    if text and (text in self.rows or _zipf(text, s.language) > 0):
                        found.setdefault(text, "decoder")
        flat = [(n, t, source) for n, found in enumerate(texts) for t, source in found.items()]
        vectors = raw[[n for n, _, _ in flat]]
        own = [t for _, t, _ in flat]
        in_table = [self.rows.get(t) for t in own]
        outside = [j for j, r in enumerate(in_table) if r is None]
        targets = torch.empty(len(flat), raw.shape[1])
        if len(outside) < len(flat):
            inside = [j for j, r in enumerate(in_table) if r is not None]
            targets[inside] = teacher.embeddings[[in_table[j] for j in inside]].float()
        if outside:
            targets[outside] = self.encoder.embed([own[j] for j in outside], manifold=False).cpu()
        cos = F.cosine_similarity(vectors.float().cpu(), targets, dim=-1).tolist()
        logp = [0.0] * len(flat)
        if self.decoder is not None:
            with torch.inference_mode():
                ids = self.encoder.charset.batch(own, True).to(self.decoder.device)
                logp = self.decoder.log_probs(vectors.to(self.decoder.device), ids).tolist()
        result: list[list[Candidate]] = [[] for _ in words]
        for j, (n, text, source) in enumerate(flat):
            zipf = _zipf(text, s.language)
            score = logp[j] / (len(text) + 1) + s.cos_weight * cos[j] + s.freq_weight * zipf
            result[n].append(Candidate(text, source, score, logp[j], cos[j], zipf))
        return result
