"""Word forms a speller accepts as written but never suggests: :class:`FormTable` (Spanish) and
:func:`archaic_verb` (English).

The Spanish lexicon (:mod:`charwise.speller.lexicon`) keeps the forms of ``simplemma``'s form ->
lemma table that wordfreq lists (145k): a lexicon word is also a suggestion, and a rare form as a
suggestion turns typos into rare words. The other 680k forms are words all the same (``asnas``,
``mamarás``, ``apercibida``, ``hiriere``, ``librad``), and correcting them damages clean text: of
the 28 words the speller changed in the development verses of the Reina-Valera Bible, 9 were such
forms and 7 verbs with pronouns (below). The form table accepts them as written, without making
them suggestions.

It also accepts a verb with enclitic pronouns (``diciéndole``, ``dámelo``, ``avergonzaos``,
``hablóles``), which no dictionary holds whole (those wordfreq lists with the accent the pronouns bring
are also suggestions: :mod:`charwise.speller.lexicon`): the word cut into a verb form and one or two pronouns
(``me te se nos os le les lo la los las``). So that a typo is not read as a verb and a pronoun
(``cabeles`` is not ``cabe`` + ``les``), the verb form must be an infinitive (``decirte``), or the
word must carry a written accent, which a pronoun's added syllable brings (``dámelo``,
``diciéndole``, older ``fuése``) and a slip rarely does, or end in ``os`` after an imperative's
dropped ``d`` (``avergonzaos``), or be an imperative that takes one pronoun without an accent: the
one-syllable imperatives of tú (``dile``, ``hazlo``, ``ponte``) and those of vosotros (``ponedlo``,
``guardadlos``). A verb's present that simplemma reads as a noun (``mira``, ``guarda``, ``compra``: one
lemma a form) is still a verb form when its infinitive is one (``mírala``, ``guárdame``, ``cómpralo``).

A plain form is left out when the table also has it with accents (``mamaras`` beside ``mamarás``):
a missing accent stays an error the speller corrects.

English has no form table, but the Early Modern English forms of a common verb (``giveth``,
``goeth``, ``givest``, ``calledst``: the King James Bible's) are accepted the same way
(:func:`archaic_verb`): on its development verses they were 18 of the 21 words the speller changed.

The table is memory-mapped from the cache (``$CHARWISE_CACHE/speller/forms-<language>-<key>``),
built once from simplemma (a few seconds), shared by every process that reads it.

Example::

    forms = FormTable.load("es")
    forms.accepts("mamarás"), forms.accepts("dámelo"), forms.accepts("cabeles")   # True, True, False
    forms.accepts("hazlo"), forms.accepts("cómpralo"), forms.accepts("compralo")  # True, True, False
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING

import numpy as np

from charwise.cache import StringTable, cache_root, mapped_or_built

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon

FORM_LANGUAGES = frozenset({"es"})  # languages with a form table (simplemma's)
FORMAT = 1  # bump when the table's layout or rules change
RARE, VERB = 1, 2  # per-form flags: accepted as written (wordfreq does not list it); a verb form
# a form whose lemma ends like an infinitive counts as a verb form: simplemma gives no part of
# speech, so a noun such as lugar or mujer counts too (lugarle is no typo anyone makes)
VERB_LEMMA_ENDINGS = ("ar", "er", "ir", "ír", "arse", "erse", "irse", "írse")
INFINITIVE_ENDINGS = ("ar", "er", "ir", "ír")
_SINGLE = ("me", "te", "se", "nos", "os", "le", "les", "lo", "la", "los", "las")
_FIRST = ("me", "te", "se", "nos", "os")
_SECOND = ("me", "te", "le", "les", "lo", "la", "los", "las")
#: enclitic pronouns, one or two, longest first (``selo`` before ``lo``)
CLITICS = tuple(sorted({*_SINGLE, *(a + b for a in _FIRST for b in _SECOND if a != b)}, key=len, reverse=True))
# the shortest verb forms that take enclitics have two letters: the imperatives da, di, ve (dame, dilo, vete)
MIN_STEM = 2
# the one-syllable imperatives of tú (RAE, Nueva gramática, 4.12): one pronoun adds no written accent
# (dile, hazlo, ponte, vete, dales); haz and sal are nouns' lemmas to the form table, so they are named here
SHORT_IMPERATIVES = frozenset({"da", "di", "haz", "pon", "sal", "ten", "ve", "ven"})
# the imperative of vosotros ends in d (poned, partid, guardad): a pronoun after it adds no accent (ponedlo)
PLURAL_IMPERATIVE_ENDINGS = ("ad", "ed", "id")


class FormTable:
    """Forms of a language's form table, each flagged :data:`RARE` and/or :data:`VERB` (see the
    module docstring)."""

    def __init__(self, table: StringTable, flags: np.ndarray) -> None:
        if len(flags) != len(table):
            raise ValueError("one flag per form is needed")
        self._table = table
        self._flags = flags

    @classmethod
    def load(cls, language: str, cache: bool = True) -> "FormTable":
        """The table of ``language`` (one of :data:`FORM_LANGUAGES`), from the cache or built."""
        from charwise.speller.lexicon import _version

        key = hashlib.sha256(json.dumps([FORMAT, language, _version("simplemma"), _version("wordfreq")]).encode())
        path = cache_root() / "speller" / f"forms-{language}-{key.hexdigest()[:16]}.safetensors"

        def build() -> dict[str, np.ndarray]:
            forms, flags = form_flags(language)
            return {**StringTable.arrays(forms), "flags": flags}

        arrays = mapped_or_built(path, f"the {language} table of word forms", ("blob", "starts", "slots", "flags"),
                                 build, cache)
        return cls(StringTable(arrays["blob"], arrays["starts"], arrays["slots"]), arrays["flags"])

    def _flag(self, word: str) -> int:
        i = self._table.find(word)
        return int(self._flags[i]) if i >= 0 else 0

    def accepts(self, word: str) -> bool:
        """Whether lower-case ``word`` is a rare form of the table or a verb with enclitic pronouns."""
        return bool(self._flag(word) & RARE) or self.enclitic(word)

    def enclitic(self, word: str) -> bool:
        """Whether lower-case ``word`` is a verb form followed by one or two pronouns (module docstring)."""
        from charwise.speller.lexicon import strip_accents

        if not word.isalpha():
            return False
        accented = strip_accents(word) != word
        for clitic in CLITICS:
            if not word.endswith(clitic) or len(word) - len(clitic) < MIN_STEM:
                continue
            stem = word[: -len(clitic)]
            plain = strip_accents(stem)  # without the accent the pronoun brought (dá-me-lo, mírala)
            if clitic == "os" and self._flag(stem + "d") & VERB:  # avergonzaos: avergonzad + os
                return True
            if not self.verb_form(plain) and not self._flag(stem) & VERB:  # refirió-le: the stem as written
                continue
            if accented or stem.endswith(INFINITIVE_ENDINGS):
                return True
            if clitic in _SINGLE and (stem in SHORT_IMPERATIVES
                                      or (stem.endswith(PLURAL_IMPERATIVE_ENDINGS) and clitic != "os")):
                return True  # dile, hazlo; ponedlo, guardadlos (vosotros with os drops the d: avergonzaos)
        return False

    def verb_form(self, plain: str) -> bool:
        """Whether ``plain`` (no written accent) is a verb form: the table says so, it is a one-syllable
        imperative, or the present of a verb whose form the table gives a noun's lemma (``mira``: mirar,
        ``guarda``: guardar, ``compra``: comprar; ``escribe``: escribir)."""
        if self._flag(plain) & VERB or plain in SHORT_IMPERATIVES:
            return True
        if plain.endswith("a"):
            return bool(self._flag(plain + "r") & VERB)
        return plain.endswith("e") and bool((self._flag(plain + "r") | self._flag(plain[:-1] + "ir")) & VERB)


# the verb must be a common word (Zipf 2.5: once per three million words or more). Swept 2 to 4
# (2026-11-30, session script): on 3,000 KJV verses 44, 44, 45, 45 and 49 words changed (2.5 keeps
# spakest), the seeded misspellings of UD EWT dev corrected alike (637 of 1,000), and every line of WNUT17,
# LexNorm and 62,327 fresh comments the same at 2.5 as at 3
ARCHAIC_MIN_ZIPF = 2.5


def archaic_verb(word: str, lexicon: Lexicon) -> bool:
    """Whether lower-case ``word`` is an Early Modern English form of a common word of ``lexicon``:
    ``-eth`` (``giveth``, ``passeth``, ``carrieth``), ``-est`` (``givest``, ``trustest``) or
    ``-edst`` (``calledst``). An ``-est`` word that is a slip in a superlative (``bigest`` for
    ``biggest``, ``happyest`` for ``happiest``) is not one."""
    if len(word) < 5 or not word.isalpha():
        return False
    if word.endswith("edst"):
        return _common(word[:-2], lexicon)  # called + st
    ending = word[-3:]
    if ending not in ("eth", "est"):
        return False
    stem = word[:-3]
    bases = [stem, stem + "e"]  # trust-est, giv(e)-eth
    if len(stem) >= 3 and stem[-1] == stem[-2]:
        bases.append(stem[:-1])  # shutt-eth
    if stem.endswith("i"):
        bases.append(stem[:-1] + "y")  # carri-eth
    slips = [b + b[-1] + "est" for b in bases if b] + [b[:-1] + "iest" for b in bases if b.endswith("y")]
    if ending == "est" and any(lexicon.knows(slip) for slip in slips):
        return False  # bigest: biggest; thinest: thinnest; happyest: happiest
    return any(_common(base, lexicon) for base in bases)


def repeated_syllable(word: str) -> bool:
    """Whether lower-case ``word`` is two or three letters written again and again (``hehe``,
    ``hahaha``, ``xoxo``): a laugh or a sign-off, which no English annotator changes (the LexNorm
    2015 training tweets keep every ``haha`` and ``hahaha``), not a misspelling of ``he``."""
    found = _REPEATED_SYLLABLE.fullmatch(word)
    return found is not None and len(set(found.group(1))) > 1  # kkkkkk is one letter drawn out


_REPEATED_SYLLABLE = re.compile(r"([a-z]{2,3})\1+")


def _common(word: str, lexicon: Lexicon) -> bool:
    return len(word) >= 2 and lexicon.knows(word) and lexicon.zipf(word) >= ARCHAIC_MIN_ZIPF


def form_flags(language: str) -> tuple[list[str], np.ndarray]:
    """Every form of ``language``'s form table and its flags (see the module docstring)."""
    from wordfreq import get_frequency_dict

    from charwise.speller.lexicon import _lemma_table, strip_accents

    lemmas = _lemma_table(language)
    freq = get_frequency_dict(language, "best")
    forms = sorted(w for w in lemmas if w.isalpha())
    accented_twins = {strip_accents(w) for w in forms if strip_accents(w) != w}
    flags = np.zeros(len(forms), dtype=np.uint8)
    for i, form in enumerate(forms):
        if freq.get(form, 0.0) == 0 and form not in accented_twins:
            flags[i] |= RARE
        if lemmas[form].endswith(VERB_LEMMA_ENDINGS):
            flags[i] |= VERB
    return forms, flags

