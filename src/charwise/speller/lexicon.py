"""The words a speller accepts as written, and how common each is: :class:`Lexicon`.

Membership comes from spelling dictionaries, never from a frequency list alone: ``wordfreq`` lists
common misspellings (``definately`` Zipf 2.9, ``recieved`` 2.8, ``teh`` 3.0), so it gives only the
*frequencies*. The sources, per language (:data:`DICTIONARIES`):

* ``pyspellchecker``: the word list ``pyspellchecker`` ships for the language (English 160k words,
  Spanish 86k);
* ``symspell``: SymSpell's English dictionary (82,765 words, the intersection of SCOWL and Google
  Books n-grams), shipped with ``symspellpy``;
* ``simplemma`` (Spanish): the inflected forms of ``simplemma``'s form -> lemma table (823k forms,
  every tense and person of every verb) that wordfreq lists in the language (145k): pyspellchecker's
  Spanish list lacks most verb forms and even ``hay``, ``está``, ``fue``, ``años``; and the verbs with
  enclitic pronouns wordfreq lists that carry the accent the pronouns bring (``dímelo``, ``cállate``,
  ``diciéndole``: 6,204, their accent-less chat spellings then corrected). The table's other forms,
  and other verbs with enclitic pronouns, are accepted as written but never suggested
  (:meth:`Lexicon.accepts`, :mod:`charwise.speller.forms`);
* English: the contractions of a grammar's closed class that the dictionaries lack (``that'll``,
  ``must've``, ``where'd``: :data:`CONTRACTIONS`; without them ``whered`` was read as ``where``);
* the teacher's whole-word rows that are alphabetic and that wordfreq lists in the language
  (``teacher=``): the words the model reads as one token are words it has seen many times;
* user words: ``extra_words`` and word-list files (one word per line, ``#`` comments), and corpora
  whose words are counted in (``corpora=``, a word seen ``min_count`` times or more).

Accents (Spanish): a word that is a more frequent word with its accents dropped (``despues``,
``estan``, ``asi``, ``aqui``, ``tecnica``: the form table and the teacher's rows hold some) is left
out when the accented word is five times as frequent, pyspellchecker does not list the plain one and
the form table lacks it or gives the accented word as its lemma (``asi`` -> ``así``); a form of a
lemma stays (``hablo``, ``visito`` beside ``habló``, ``visitó``; ``estan`` too, which the table
files under *estar*: a missed correction is better than a wrong one). Missing accents are then
errors to correct.

Case: keys are lower-case; a word that user files or corpora give only capitalised (``Paris``) is
remembered as such, so that ``Paris`` is known while ``paris`` is a lower-case word the lexicon
does not hold.

A lexicon is built once and cached under ``$CHARWISE_CACHE/speller`` (a safetensors file of its
columns, written atomically: read back in a fraction of a second), keyed by a hash of everything
it was built from (sources, package versions, the teacher, the user files' contents, not their
paths: the same word list under another name or in another folder is the same lexicon); a change
of any input builds a new one, and ``charwise cache prune`` removes those no longer used.

Example::

    lexicon = Lexicon.build("en", teacher="minilm")
    "receive" in lexicon, "recieve" in lexicon   # True, False
    lexicon.zipf("receive")                      # 4.9
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.metadata
import json
import math
import os
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from charwise.cache import (
    DAMAGED_ENTRY,
    array_text,
    building,
    cache_lock,
    cache_root,
    file_sha256,
    load_tables,
    mark_used,
    save_tables,
    text_array,
)
from charwise.errors import ConfigError
from charwise.io import atomic_file, check_input_file, iter_lines
from charwise.languages import SPELLER_LANGUAGES, check_language

if TYPE_CHECKING:
    from charwise.speller.forms import FormTable

LANGUAGES = SPELLER_LANGUAGES
#: The spelling dictionaries each language can use (the default is all of them).
DICTIONARIES: dict[str, tuple[str, ...]] = {"en": ("pyspellchecker", "symspell"), "es": ("pyspellchecker", "simplemma")}
CACHE_FORMAT = 6  # bump when the cache file's layout or the build rules change
ACCENTED = frozenset({"es"})  # languages whose words lose accents when mistyped
MAX_WORD_CHARS = 40  # longer "words" of a source are not words a speller should suggest

#: English contractions, a closed class (a pronoun, a wh-word, ``there`` or ``that`` and an auxiliary), accepted
#: whatever the dictionaries hold: pyspellchecker's list has ``how'd`` but not ``where'd``, ``that'll``, ``must've``
CONTRACTIONS: dict[str, tuple[str, ...]] = {"en": tuple(
    f"{head}'{tail}" for heads, tails in (
        (("i", "you", "he", "she", "it", "we", "they", "that", "there", "who", "what", "where", "when", "why", "how"),
         ("d", "ll")),
        (("you", "we", "they", "who", "what", "where", "how"), ("re",)),
        (("i", "you", "we", "they", "who", "what", "where", "there", "could", "would", "should", "might", "must"),
         ("ve",)),
        (("he", "she", "it", "that", "there", "here", "who", "what", "where", "when", "why", "how", "let"), ("s",)),
    ) for head in heads for tail in tails)}

# per-word source flags
DICTIONARY, TEACHER, USER, CORPUS = 1, 2, 4, 8


def _dictionary_words(name: str, language: str, freq: dict[str, float],
                      lemmas: dict[str, str] | None = None, forms: FormTable | None = None) -> Iterable[str]:
    """The words of spelling dictionary ``name`` (``freq``: wordfreq's frequencies in ``language``;
    ``lemmas``: its form table, when already loaded; ``forms``: the language's table of word forms, if it has one)."""
    if name == "pyspellchecker":
        return _pyspellchecker_words(language)
    if name == "simplemma":
        return _inflected_forms(lemmas if lemmas is not None else _lemma_table(language), freq, forms)
    if name == "symspell":
        import symspellpy

        path = Path(symspellpy.__file__).parent / "frequency_dictionary_en_82_765.txt"
        with open(path, encoding="utf-8") as f:
            return [line.split()[0] for line in f if line.strip()]
    raise ConfigError(f"unknown spelling dictionary {name!r}; known: pyspellchecker, symspell, simplemma")


def _pyspellchecker_words(language: str) -> list[str]:
    import spellchecker

    path = Path(spellchecker.__file__).parent / "resources" / f"{language}.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return list(json.load(f))


def strip_accents(word: str) -> str:
    """``word`` without its acute accents and diaeresis (``después`` -> ``despues``); ``ñ`` stays."""
    decomposed = unicodedata.normalize("NFD", word)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if c not in "\u0301\u0308"))


def _lemma_table(language: str) -> dict[str, str]:
    """simplemma's form -> lemma table of ``language``, lower-case."""
    from simplemma.strategies.dictionaries import DefaultDictionaryFactory

    table = DefaultDictionaryFactory().get_dictionary(language)

    def text(value: str | bytes) -> str:  # simplemma < 2 holds UTF-8 bytes
        return value.decode("utf-8") if isinstance(value, bytes) else value

    return {text(k).lower(): text(v).lower() for k, v in table.items()}


def _inflected_forms(lemmas: dict[str, str], freq: dict[str, float], table: FormTable | None = None) -> list[str]:
    """The forms of a simplemma table that wordfreq lists (see the module docstring), and the verbs with
    enclitic pronouns it lists with their written accent (``dímelo``, ``cómpralo``, ``diciéndole``: the
    form ``table``'s rule), so that chat's ``dimelo`` has the spelling it lacks an accent of to be corrected to."""
    forms = {w for w in lemmas if freq.get(w, 0.0) > 0}
    if table is not None:
        forms |= {w for w, f in freq.items() if f > 0 and w not in forms and w.isalpha() and strip_accents(w) != w
                  and table.enclitic(w)}
    return sorted(forms)


def _without_dropped_accents(words: Iterable[str], language: str, freq: dict[str, float],
                             lemmas: dict[str, str] | None = None) -> set[str]:
    """``words`` less those that are a five times more frequent word of ``words`` with its accents
    dropped, unless pyspellchecker lists them or the form table has them as a word (a form of
    another lemma: ``visito``, ``hablo``, ``publico`` are verb forms beside ``visitó``...)."""
    words = set(words)
    commonest: dict[str, str] = {}  # accent-dropped spelling -> its commonest accented word
    for word in words:
        plain = strip_accents(word)
        if plain != word and freq.get(word, 0.0) > freq.get(commonest.get(plain, ""), 0.0):
            commonest[plain] = word
    listed = set(_pyspellchecker_words(language))
    if lemmas is None:
        lemmas = _lemma_table(language)
    dropped = {w for w in words
               if w in commonest and w not in listed and freq.get(commonest[w], 0.0) >= 5 * freq.get(w, 0.0)
               and lemmas.get(w, commonest[w]) == commonest[w]}
    return words - dropped


def _usable(word: str) -> bool:
    """A word a speller may suggest: letters only (an inner apostrophe or hyphen allowed), not too long."""
    return 0 < len(word) <= MAX_WORD_CHARS and word.replace("'", "").replace("-", "").isalpha()


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _read_word_file(path: Path) -> list[str]:
    """The words of a word-list file: one per line (the first field), ``#`` lines skipped."""
    words = []
    for line in iter_lines(path):
        field = line.strip().split("\t")[0].split(" ")[0] if line.strip() else ""
        if field and not field.startswith("#"):
            words.append(field)
    return words


@dataclass
class LexiconEntry:
    zipf: float  # wordfreq's Zipf frequency of the lower-case word (0: wordfreq does not list it)
    sources: int  # DICTIONARY | TEACHER | USER | CORPUS
    capitalised: bool = False  # only ever seen capitalised (a name): its lower-case form is not a word


class Lexicon:
    """Lower-case words with their Zipf frequency and where they come from (see the module docstring)."""

    def __init__(self, language: str, entries: dict[str, LexiconEntry], description: dict[str, object],
                 cache: bool = True) -> None:
        self.language = check_language(language)
        self.cache = cache  # read and write the form table (forms) in the cache
        self.entries = entries
        self.description = description
        self._forms: FormTable | None | Literal[False] = False  # not loaded yet

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.knows(word)

    def knows(self, word: str) -> bool:
        """Whether ``word`` is spelled right as written: its lower-case form is a word of the lexicon
        and, for a name known only capitalised, it is written capitalised."""
        entry = self.entries.get(word.lower())
        if entry is None:
            return False
        return not entry.capitalised or word[:1].isupper()

    def accepts(self, word: str) -> bool:
        """Whether ``word`` is left as written: a word of the lexicon (:meth:`knows`) or, where the
        lexicon has simplemma's forms, one of its rarer forms or a verb with enclitic pronouns
        (:class:`~charwise.speller.forms.FormTable`); in English, the Early Modern English form of a
        common verb (``giveth``, ``calledst``: :func:`~charwise.speller.forms.archaic_verb`) and a
        syllable written again and again (``hehe``). Accepted, never suggested."""
        if self.knows(word):
            return True
        if self.language == "en":
            from charwise.speller.forms import archaic_verb, repeated_syllable

            return archaic_verb(word.lower(), self) or repeated_syllable(word.lower())
        forms = self.forms
        return forms is not None and forms.accepts(word.lower())

    @property
    def forms(self) -> FormTable | None:
        """The language's table of rare forms (loaded on first use), or None."""
        if self._forms is False:
            from charwise.speller.forms import FORM_LANGUAGES, FormTable

            dictionaries = self.description.get("dictionaries", ())
            uses = self.language in FORM_LANGUAGES and isinstance(dictionaries, list) and "simplemma" in dictionaries
            self._forms = FormTable.load(self.language, self.cache) if uses else None
        return self._forms

    def zipf(self, word: str) -> float:
        """wordfreq's Zipf frequency of the lower-case word (0 when wordfreq does not list it)."""
        entry = self.entries.get(word.lower())
        if entry is not None:
            return entry.zipf
        from charwise.speller.frequencies import zipf_frequency

        return zipf_frequency(word.lower(), self.language)

    def words(self) -> list[str]:
        return list(self.entries)

    # --- building and caching ---------------------------------------------------------------------
    @classmethod
    def build(cls, language: str = "en", *, teacher: str | None = None, dictionaries: tuple[str, ...] | None = None,
              extra_words: Iterable[str] = (), word_files: Iterable[str | os.PathLike] = (),
              corpora: Iterable[str | os.PathLike] = (), min_count: int = 3, cache: bool = True) -> "Lexicon":
        """The lexicon of ``language`` from its sources (cached; see the module docstring).

        Args:
            language: ``en`` or ``es``.
            teacher: a teacher name (``minilm``...) whose alphabetic whole-word rows join the lexicon.
            dictionaries: names from :data:`DICTIONARIES` (default: all of the language's).
            extra_words: words to accept as written (case kept: ``Wycombe`` makes a capitalised entry).
            word_files: files of such words, one per line.
            corpora: text files whose words seen at least ``min_count`` times join the lexicon.
            cache: read and write the on-disk cache.
        """
        check_language(language)
        dictionaries = tuple(dictionaries) if dictionaries is not None else DICTIONARIES[language]
        for name in dictionaries:
            if name not in DICTIONARIES[language]:
                raise ConfigError(f"no {name} dictionary for {language!r}; known: {', '.join(DICTIONARIES[language])}")
        if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
            raise ConfigError(f"min_count must be an integer >= 1, got {min_count!r}")
        files = [Path(f) for f in word_files]
        texts = [Path(f) for f in corpora]
        for path in files:
            check_input_file(path, "word list")
        for path in texts:
            check_input_file(path, "corpus file")
        extra = sorted(set(extra_words))
        description: dict[str, object] = {
            "format": CACHE_FORMAT, "language": language, "dictionaries": list(dictionaries), "teacher": teacher,
            "versions": {p: _version(p) for p in ("pyspellchecker", "symspellpy", "wordfreq", "simplemma")},
            "extra_words": hashlib.sha256("\n".join(extra).encode("utf-8", "surrogatepass")).hexdigest(),
            # by content alone: the same file under another path is the same lexicon
            "word_files": [file_sha256(p) for p in files],
            "corpora": [file_sha256(p) for p in texts], "min_count": min_count,
        }
        key = hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()[:16]
        path = cache_root() / "speller" / f"lexicon-{language}-{key}.safetensors"
        with cache_lock(path if cache else None):
            if cache and path.is_file():
                try:
                    lexicon = cls(language, _read_cache(path), description)
                    mark_used(path)
                    return lexicon
                except DAMAGED_ENTRY:  # a damaged cache is rebuilt
                    pass
            added = len(files) + len(texts) + bool(extra)
            what = f"the {language} speller lexicon" + (f" with {added} user word source(s)" if added else "")
            with building(what, path) if cache else contextlib.nullcontext():
                entries = _build_entries(language, dictionaries, teacher, extra, files, texts, min_count, cache)
                lexicon = cls(language, entries, description, cache)
                if cache:
                    try:
                        _write_cache(entries, path, what)
                    except OSError:
                        pass  # a read-only cache directory costs a rebuild next time, nothing else
            return lexicon

    def save(self, path: str | os.PathLike) -> None:
        """Write the lexicon as a gzip TSV (word, zipf, sources, capitalised), atomically."""
        with atomic_file(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            for word, e in self.entries.items():
                f.write(f"{word}\t{e.zipf:.2f}\t{e.sources}\t{int(e.capitalised)}\n".encode("utf-8", "surrogatepass"))


def _write_cache(entries: dict[str, LexiconEntry], path: Path, what: str) -> None:
    """The lexicon as arrays (words, Zipf in hundredths, source flags, capitalised) in a safetensors file."""
    words = list(entries)
    save_tables({"words": text_array(words),
                 "zipf_centi": np.asarray([round(entries[w].zipf * 100) for w in words], dtype=np.int16),
                 "sources": np.asarray([entries[w].sources for w in words], dtype=np.uint8),
                 "capitalised": np.asarray([entries[w].capitalised for w in words], dtype=np.uint8)}, path, what)


def _read_cache(path: Path) -> dict[str, LexiconEntry]:
    tables = load_tables(path)
    words = array_text(tables["words"])
    columns = [tables[name].tolist() for name in ("zipf_centi", "sources", "capitalised")]
    if not words or any(len(c) != len(words) for c in columns):
        raise ValueError(f"{path}: inconsistent lexicon cache")
    return {w: LexiconEntry(z / 100, s, bool(c)) for w, z, s, c in zip(words, *columns)}


def _build_entries(language: str, dictionaries: tuple[str, ...], teacher: str | None, extra: list[str],
                   files: list[Path], corpora: list[Path], min_count: int,
                   cache: bool = True) -> dict[str, LexiconEntry]:
    from wordfreq import get_frequency_dict

    from charwise.speller.forms import FORM_LANGUAGES, FormTable
    from charwise.words import split_words

    sources: dict[str, int] = {}
    cased: dict[str, set[bool]] = {}  # lower-case key -> was it seen capitalised / lower-case (cased sources)

    def add(word: str, flag: int, keep_case: bool) -> None:
        if not _usable(word):
            return
        key = word.lower()
        sources[key] = sources.get(key, 0) | flag
        if keep_case:
            cased.setdefault(key, set()).add(word[:1].isupper())

    freq = get_frequency_dict(language, "best")
    # simplemma's form table (823k forms for Spanish), loaded once for both uses
    lemmas = _lemma_table(language) if language in ACCENTED or "simplemma" in dictionaries else None
    forms = FormTable.load(language, cache) if language in FORM_LANGUAGES and "simplemma" in dictionaries else None
    for name in dictionaries:
        for word in _dictionary_words(name, language, freq, lemmas, forms):
            add(word, DICTIONARY, False)
    for word in CONTRACTIONS.get(language, ()):
        add(word, DICTIONARY, False)
    if teacher is not None:
        from charwise.teachers import Teacher

        # a multilingual teacher's rows hold every language's words: only those wordfreq lists in this one
        for word in Teacher.load(teacher).whole_word_rows():
            if word.isalpha() and len(word) > 1 and freq.get(word.lower(), 0.0) > 0:
                add(word, TEACHER, False)
    for word in extra:
        add(word, USER, True)
    for path in files:
        for word in _read_word_file(path):
            add(word, USER, True)
    counts: Counter[str] = Counter()
    for path in corpora:
        for line in iter_lines(path, errors="replace"):
            counts.update(w for w in split_words(line).words if _usable(w))
    for word, n in counts.items():
        if n >= min_count:
            add(word, CORPUS, True)
    keep = (_without_dropped_accents(sources, language, freq, lemmas) if language in ACCENTED else sources)
    entries = {}
    for key, flag in sources.items():
        if key not in keep:
            continue
        f = freq.get(key, 0.0)
        seen = cased.get(key, set())
        # capitalised only when every cased source wrote it capitalised and no dictionary lists it
        capitalised = seen == {True} and not flag & (DICTIONARY | TEACHER)
        entries[key] = LexiconEntry(round(math.log10(f) + 9, 2) if f > 0 else 0.0, flag, capitalised)
    return entries
