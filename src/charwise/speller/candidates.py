"""Where a speller's candidates come from: :class:`CandidateIndex`.

Two sources over the lexicon's words that wordfreq lists (a word it has never seen is accepted as
written but never suggested, unless it is one of your own words), both torch-free (the encoder's nearest rows, the third
source, are added by :class:`~charwise.speller.Speller`, which holds the encoder):

* **edits**: every lexicon word within Damerau-Levenshtein distance ``max_distance`` (default 2),
  found by ``symspellpy``'s symmetric-delete index (``Verbosity.ALL``; its C edit distance from
  ``editdistpy``);
* **sounds**: the lexicon words that share the written word's sound key
  (:func:`charwise.typos.sounds.sound_key`: the realistic model's rules, phonetic, doubled letters,
  accents, undone at once), the ``per_key`` most frequent of them.

The symmetric-delete index takes a few seconds to build, so it is built on the first lookup: a
text whose words are all known never pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from charwise.errors import ConfigError
from charwise.speller.lexicon import USER
from charwise.typos.sounds import sound_key

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon

EDITS, SOUNDS, NEIGHBOURS, WRITTEN = 1, 2, 4, 8  # candidate source flags


class CandidateIndex:
    """Lexicon words near a written word, by edits and by sound (see the module docstring)."""

    def __init__(self, lexicon: Lexicon, max_distance: int = 2, per_key: int = 10, prefix_length: int = 7) -> None:
        for name, value, low in (("max_distance", max_distance, 1), ("per_key", per_key, 0),
                                 ("prefix_length", prefix_length, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        self.lexicon = lexicon
        self.max_distance = max_distance
        self.per_key = per_key
        self.prefix_length = prefix_length
        self._symspell = None
        # words wordfreq has never seen are accepted as written but not suggested (your own words are)
        self.suggestible = [w for w, e in lexicon.entries.items() if e.zipf > 0 or e.sources & USER]
        by_key: dict[str, list[str]] = {}
        for word in self.suggestible:
            by_key.setdefault(sound_key(word, lexicon.language), []).append(word)
        zipf = lexicon.entries
        self.by_key = {k: sorted(ws, key=lambda w: -zipf[w].zipf)[:per_key] for k, ws in by_key.items()}

    @property
    def symspell(self) -> Any:
        """The symmetric-delete index (built on first use)."""
        if self._symspell is None:
            from symspellpy import SymSpell
            from symspellpy.editdistance import DistanceAlgorithm, EditDistance

            index = SymSpell(max_dictionary_edit_distance=self.max_distance, prefix_length=self.prefix_length,
                             distance_comparer=EditDistance(DistanceAlgorithm.DAMERAU_OSA_FAST))
            for word in self.suggestible:
                index.create_dictionary_entry(word, max(1, int(10 ** self.lexicon.entries[word].zipf)))
            self._symspell = index
        return self._symspell

    def lookup(self, word: str) -> dict[str, int]:
        """Candidates of a lower-case ``word``: ``{candidate: source flags}`` (the word itself, flag
        ``WRITTEN``, when the lexicon holds it)."""
        from symspellpy import Verbosity

        found: dict[str, int] = {}
        if word in self.lexicon.entries:
            found[word] = WRITTEN
        for item in self.symspell.lookup(word, Verbosity.ALL, max_edit_distance=self.max_distance,
                                         transfer_casing=False):
            found[item.term] = found.get(item.term, 0) | EDITS
        for candidate in self.by_key.get(sound_key(word, self.lexicon.language), ()):
            found[candidate] = found.get(candidate, 0) | SOUNDS
        return found
