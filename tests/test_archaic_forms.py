"""The King James Bible's verb forms (``spakest``, ``knoweth``) are read as written when the verb is common
enough (``ARCHAIC_MIN_ZIPF``), and an invented verb's are not; on the shipped English speller (``real``)."""

from __future__ import annotations

import pytest

from charwise.speller import Speller
from charwise.speller.forms import ARCHAIC_MIN_ZIPF, archaic_verb


@pytest.mark.real
def test_archaic_forms_of_common_verbs_are_read_as_written():
    speller = Speller.load("en")
    lexicon = speller.lexicon
    assert lexicon.zipf("spake") >= ARCHAIC_MIN_ZIPF  # a verb the sweep kept: spakest was changed at 3
    for word in ("spakest", "knoweth", "lovest", "runneth", "shouldest"):
        assert archaic_verb(word, lexicon) or lexicon.accepts(word), word
    assert not lexicon.accepts("zorbeth")
    verse = "And he said unto him , Thou spakest well , for he knoweth all things ."
    assert speller.correct(verse).corrected == verse
