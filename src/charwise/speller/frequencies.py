"""wordfreq's Zipf frequencies, read from a memory-mapped table: :func:`zipf_frequency`.

The speller asks wordfreq how frequent the words it looks at are (a written word the lexicon lacks,
a neighbour the context counts lack). wordfreq answers from its whole frequency list, which it
loads into Python objects on the first question: 30 MB and 0.1-0.2 s in every process that
corrects one word. Here the list is kept as a :class:`~charwise.cache.StringTable` with each
word's Zipf frequency as wordfreq computes it (``$CHARWISE_CACHE/speller/zipf-*.safetensors``,
keyed by the language and wordfreq's version, built once), and a word is answered from it when
wordfreq would have looked that one word up: when its tokenizer makes it a single token without
digits. Anything else (several tokens, digits) is asked of wordfreq itself, so the answer is always
wordfreq's (tested).

Example::

    zipf_frequency("despues", "es")      # 4.87, as wordfreq.zipf_frequency gives it
"""

from __future__ import annotations

import importlib.metadata
import re
from functools import lru_cache

import numpy as np

from charwise.cache import StringTable, building, cache_lock, cache_root, map_table, mark_used, save_tables

FORMAT = 1  # the table's layout; a new one is a new file
ANSWERS = 100_000  # answers remembered (running text asks about the same words again and again)


class ZipfTable:
    """One language's wordfreq list: its words (a :class:`StringTable`) and their Zipf frequencies."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._answers: dict[str, float] = {}
        version = _wordfreq_version()
        path = cache_root() / "speller" / f"zipf-{FORMAT}-{language}-{version}.safetensors"
        with cache_lock(path):
            try:
                self.table = StringTable(*(map_table(path, name) for name in ("blob", "starts", "slots")))
                self.zipf = map_table(path, "zipf")
                if len(self.zipf) != len(self.table):
                    raise ValueError(f"{path}: inconsistent tables")
                mark_used(path)
            except (OSError, ValueError, KeyError):  # missing or damaged: made (again) from wordfreq
                what = f"the {language} word frequency table (wordfreq {version})"
                with building(what, path):
                    tables = self._build()
                    try:
                        save_tables(tables, path, what)
                    except OSError:
                        pass  # a read-only cache costs wordfreq's own load next time, nothing else
                self.table = StringTable(tables["blob"], tables["starts"], tables["slots"])
                self.zipf = tables["zipf"]

    def _build(self) -> dict[str, np.ndarray]:
        from wordfreq import get_frequency_dict, lossy_tokenize, zipf_frequency

        # the words wordfreq reads as themselves (one token, no digits: it keeps digit sequences as
        # zeros and weighs them apart), each with the frequency wordfreq gives it
        words = [w for w in get_frequency_dict(self.language)
                 if not any(c.isdigit() for c in w) and lossy_tokenize(w, self.language) == [w]]
        zipf = np.array([zipf_frequency(w, self.language) for w in words], dtype=np.float64)
        return {**StringTable.arrays(words), "zipf": zipf}

    def get(self, word: str) -> float:
        """wordfreq's ``zipf_frequency(word, language)``."""
        answer = self._answers.get(word)
        if answer is None:
            if len(self._answers) >= ANSWERS:  # wordfreq's own "drop everything" cache, for the same reason
                self._answers.clear()
            answer = self._answers[word] = self._look_up(word)
        return answer

    def _look_up(self, word: str) -> float:
        if _PLAIN.fullmatch(word):  # wordfreq's tokenizer gives such a word back as it is (tested), and
            tokens = [word]  # importing the tokenizer costs a start a third of a second
        else:
            from wordfreq import lossy_tokenize

            tokens = lossy_tokenize(word, self.language)
        if len(tokens) != 1 or any(c.isdigit() for c in tokens[0]):
            from wordfreq import zipf_frequency as wordfreq_zipf

            return float(wordfreq_zipf(word, self.language))
        i = self.table.find(tokens[0])
        return float(self.zipf[i]) if i >= 0 else 0.0


_PLAIN = re.compile("[a-z]+")  # ASCII lower-case letters


@lru_cache(maxsize=None)
def zipf_table(language: str) -> ZipfTable:
    """The table of ``language`` (read once per process)."""
    return ZipfTable(language)


def zipf_frequency(word: str, language: str) -> float:
    """wordfreq's Zipf frequency of ``word`` in ``language`` (0 when wordfreq does not list it)."""
    return zipf_table(language).get(word)


def _wordfreq_version() -> str:
    try:
        return importlib.metadata.version("wordfreq")
    except importlib.metadata.PackageNotFoundError:
        return "absent"
