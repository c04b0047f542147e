"""Slang and chat forms: what people write for a word in informal text (``thnx`` -> ``thanks``,
``2day`` -> ``today``, ``wen`` -> ``when``, ``stoopid`` -> ``stupid``).

Annotated tweets teach the normaliser the forms they hold (its table), but each new form is met
unannotated: of the normalisations of the LexNorm 2015 training tweets the default missed (two
folds), more than a third had no candidate at all. A slang dictionary is evidence of another kind: the written form
is one people use for that word. It enters the normaliser as one more candidate source (``slang``)
for words the lexicon does not accept; the fitted judge decides, with the table's counts, the words'
frequencies and the context, and learns from the annotated tweets how far to trust it (the
dictionary's entries are not all a normalisation: ``lol`` -> ``laughing out loud``, ``bt`` -> ``bit
torrent``). A valid word gets no candidate from it (``bros``, ``sis``, ``pita`` -> ``pain in the
ass``): on fresh comments, valid words the dictionary changed were names and national spellings
too often (``FUNK BROS``, ``arse``, ``no homo``).

The dictionary is noslang.com's as the ``ekphrasis`` package ships it
(``ekphrasis/dicts/noslang/slangdict.py``, 5,429 entries in ekphrasis 0.5.4; Baziotis et al. 2017,
the package under the MIT licence), read from the installed package at run time and never copied
into charwise. Only English has one. Entries are kept when the written form is a word the
normaliser reads (:func:`~charwise.speller.normalisation_rules.normalisable`, lower case) and its
expansion one to :data:`MAX_WORDS` words of the lexicon (``w8`` -> ``wait``; not ``*4u``, not a
definition).

Example::

    >>> from charwise.speller import Speller
    >>> expansions(Speller.load("en").lexicon)["thnx"]
    'thanks'
"""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from charwise.errors import ConfigError
from charwise.speller.normalisation_rules import normalisable

if TYPE_CHECKING:
    from charwise.speller.lexicon import Lexicon

#: the language whose slang the dictionary holds
LANGUAGE = "en"
#: the longest expansion kept, in words (``idk`` -> ``i don't know``; LexNorm annotates no longer one)
MAX_WORDS = 4


@lru_cache(maxsize=1)
def slang_dictionary() -> dict[str, str]:
    """Every entry of the slang dictionary, written form -> expansion, both lower-case and stripped.
    The dictionary is a Python literal in ekphrasis's source, read as data (``ast.literal_eval``):
    importing that module would write a pickle of it into the working directory."""
    try:
        source = (resources.files("ekphrasis") / "dicts" / "noslang" / "slangdict.py").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise ConfigError("the slang dictionary comes from the ekphrasis package: "
                          "pip install ekphrasis (a dependency of charwise)") from None
    with warnings.catch_warnings():  # a string of the source holds an invalid escape, \e
        warnings.simplefilter("ignore", DeprecationWarning)  # SyntaxWarning from Python 3.12
        warnings.simplefilter("ignore", SyntaxWarning)
        tree = ast.parse(source)
    found = [node.value for node in tree.body if isinstance(node, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "slangdict" for t in node.targets)
             and isinstance(node.value, ast.Dict)]
    if not found:
        raise ConfigError("this version of ekphrasis holds no slang dictionary charwise can read: "
                          "pip install 'ekphrasis>=0.5.4'")
    entries = ast.literal_eval(found[0])
    # the one-letter entries are dropped, as ekphrasis drops them after its literal
    return {k.strip().lower(): " ".join(str(v).lower().split()) for k, v in entries.items() if len(k.strip()) > 1}


def expansions(lexicon: Lexicon) -> dict[str, str]:
    """The dictionary's entries a normaliser over ``lexicon`` may propose (see the module docstring):
    none for a language other than :data:`LANGUAGE`."""
    if lexicon.language != LANGUAGE:
        return {}
    out = {}
    for written, expansion in slang_dictionary().items():
        words = expansion.split(" ")
        if (written != expansion and normalisable(written) and len(words) <= MAX_WORDS
                and all(lexicon.knows(w) for w in words)):
            out[written] = expansion
    return out
