"""What the speller asks of a context model, a second reader of whole sentences: :class:`ContextModel`.

The speller owns this interface and never imports an implementation at module level; the neural
one (:class:`~charwise.speller.neural.LMReranker`, SmolLM2) is loaded only when
``Speller.load(context="smollm2")`` asks for it, and implements it without knowing the speller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

if TYPE_CHECKING:
    from charwise.speller.corrections import WordCorrection


class ContextModel(Protocol):
    """Reads the sentence around a word, left and right, to judge the speller's corrections."""

    def score(self, sentences: Sequence[Sequence[str]], targets: Sequence[tuple[int, int]],
              candidates: Sequence[Sequence[str]]) -> list[list[float]]:
        """For each target ``(sentence, word position)``, a log-probability (nats) of the sentence
        around it with each of its ``candidates`` in place of the word (up to a constant shared by
        one target's candidates: only their differences are read)."""
        ...

    def has_context(self, words: Sequence[str], index: int) -> bool:
        """Whether the words around ``words[index]`` give the model anything to read."""
        ...

    def rerank(self, sentences: Sequence[Sequence[str]], corrected: Sequence[Sequence[WordCorrection]]) -> int:
        """Judge the words in doubt of ``corrected`` (the speller's output for ``sentences``)
        again, setting their correction in place; returns how many were judged."""
        ...
