"""The spelling suite's baselines: SymSpell and pyspellchecker, taking each word's case as charwise does."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.correction.speller import shipped_symspell, symspell_index
from charwise.speller.corrections import same_case  # the baselines take the word's case as charwise does


class Baselines:
    """SymSpell and pyspellchecker for one language, with their load times."""

    def __init__(self, language: str) -> None:
        from spellchecker import SpellChecker

        class Memoised(SpellChecker):  # one computation of candidates per word: correction() asks again
            def __init__(self, language: str) -> None:
                super().__init__(language=language)
                self.seen: dict[str, Any] = {}

            def candidates(self, word: str) -> Any:
                if word not in self.seen:
                    self.seen[word] = super().candidates(word)
                return self.seen[word]

        started = time.perf_counter()
        self.pyspell = Memoised(language)
        self.pyspell_load = time.perf_counter() - started
        started = time.perf_counter()
        if language == "en":
            self.symspell = shipped_symspell()
            self.symspell_dictionary = "symspellpy frequency_dictionary_en_82_765.txt"
        else:
            self.symspell = symspell_index(self.pyspell.word_frequency.dictionary.items())
            self.symspell_dictionary = "pyspellchecker's Spanish word frequencies (symspellpy ships none)"
        self.symspell_load = time.perf_counter() - started
        self.symspell_words = self.symspell.words

    def symspell_lookup(self, word: str) -> list[str]:
        from symspellpy import Verbosity

        return [s.term for s in self.symspell.lookup(word.lower(), Verbosity.ALL, max_edit_distance=2,
                                                     include_unknown=True)]

    def pyspell_ranked(self, word: str) -> list[str]:
        found = self.pyspell.candidates(word.lower()) or set()
        return sorted(found, key=lambda c: (-self.pyspell.word_usage_frequency(c), c))

    def pyspell_correction(self, word: str) -> str:
        return self.pyspell.correction(word.lower()) or word

    def pyspell_knows(self, word: str) -> bool:
        return bool(self.pyspell.known([word.lower()]))

    def symspell_token(self, token: str) -> str:
        if not token.isalpha():
            return token
        best = self.symspell_lookup(token)[0]
        return token if best == token.lower() else same_case(token, best)

    def pyspell_token(self, token: str) -> str:
        if not token.isalpha():
            return token
        best = self.pyspell_correction(token)
        return token if best.lower() == token.lower() else same_case(token, best)
