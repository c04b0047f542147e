"""Language codes: the one check of a code against what a part of charwise knows.

Each part keeps its own list (the speller's lexicons: :data:`SPELLER_LANGUAGES`; the sound keys,
the error model's rule tables, the language models' Bible sides) and checks a code with
:func:`check_language`, which raises the same one-line :class:`~charwise.errors.ConfigError`
everywhere::

    check_language("es")                                   # 'es' (the speller's languages by default)
    check_language("xx")
    # ConfigError: no speller lexicon for language 'xx'; known: en, es
    check_language("fr", ("en", "es"), "sound keys")       # ConfigError: no sound keys for language 'fr'; ...
"""

from __future__ import annotations

from collections.abc import Collection

from charwise.errors import ConfigError

#: The languages the speller has lexicons, shipped scorers and sound keys for.
SPELLER_LANGUAGES = ("en", "es")


def check_language(language: object, known: Collection[str] = SPELLER_LANGUAGES, what: str = "speller lexicon",
                   note: str = "") -> str:
    """``language`` if it is one of ``known``, else a one-line :class:`ConfigError`: ``what`` has no
    such language (``note``: a hint appended to the message)."""
    if not isinstance(language, str) or language not in known:
        raise ConfigError(f"no {what} for language {language!r}; known: {', '.join(known)}{note}")
    return language
