"""Word classes for reading a word's neighbours: each word's most frequent universal part-of-speech
tag in a tagged corpus (UD English-EWT's training sentences for the shipped English confusion
model), and for a word the corpus lacks the tag its last three letters most often carry there, so
``bestest`` reads as an adjective. :mod:`charwise.speller.confusions` reads them.

Example::

    >>> from collections import Counter
    >>> classes = WordClasses.from_counts({"running": Counter(VERB=5), "jumping": Counter(VERB=1)})
    >>> classes("running"), classes("walking"), classes("42")
    ('VERB', 'VERB', 'NUM')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

START, END = "<s>", "</s>"  # the neighbours before a sentence's first word and after its last


@dataclass
class WordClasses:
    """Each word's most frequent universal POS tag in a tagged corpus, and for other words the tag
    most frequent for their last three letters (so ``bestest`` reads as an adjective and ``wanderin``
    as something): what a word's neighbours are, beside which words they are."""

    tags: dict[str, str] = field(default_factory=dict)
    suffixes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_counts(cls, counts: dict[str, Counter[str]]) -> "WordClasses":
        suffix_counts: dict[str, Counter[str]] = {}
        for word, tags in counts.items():
            if word.isalpha() and len(word) > 3:
                suffix_counts.setdefault(word[-3:], Counter()).update(tags)
        return cls({w: t.most_common(1)[0][0] for w, t in counts.items()},
                   {s: t.most_common(1)[0][0] for s, t in suffix_counts.items() if sum(t.values()) >= 5})

    @classmethod
    def read(cls, path: Path) -> "WordClasses":
        """The classes saved in ``path`` (``word<TAB>WORD<TAB>TAG`` and ``suffix<TAB>SUF<TAB>TAG`` lines)."""
        classes = cls()
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, key, tag = line.split("\t")
            (classes.tags if kind == "word" else classes.suffixes)[key] = tag
        return classes

    def __call__(self, word: str) -> str:
        if word in (START, END):
            return word
        tag = self.tags.get(word)
        if tag is not None:
            return tag
        if not any(c.isalnum() for c in word):
            return "PUNCT"
        if any(c.isdigit() for c in word):
            return "NUM"
        return self.suffixes.get(word[-3:], "X")


@lru_cache(maxsize=None)
def shipped_classes(language: str) -> WordClasses:
    """The word classes the shipped confusion model of ``language`` reads
    (``data/confusions-<language>/classes.tsv``)."""
    return WordClasses.read(Path(__file__).resolve().parents[1] / "data" / f"confusions-{language}" / "classes.tsv")
