"""Raw text -> words: the one documented word splitter used by hybrid models and the CLI.

A *word* is one of:

- a run of letters, digits and combining marks (Unicode categories L*, N*, M*), where an
  apostrophe (``'`` or ``’``) or a hyphen between two such characters keeps the run together
  (``don't``, ``state-of-the-art``);
- a single punctuation character (``,`` ``.`` ``(``), as BERT's basic tokenizer splits them;
- a run of symbols (categories S*: emoji, currency, maths), with the joiners, variation
  selectors and skin-tone modifiers that belong to them, so that one emoji stays one word.

Whitespace separates words and is remembered per word (``space_before``), because byte-level BPE
tokenizers spell a word differently after a space (``Ġworld``) than glued to the previous word.
Format characters (zero-width space, joiners, bidi marks) never split a word: they stay inside the
word they touch, and the character encoder drops them during normalisation. No character of the
input is lost except whitespace.

Limits (for text of any length in bounded memory): ``split_words(text, max_words=N)`` stops after
``N`` words, and ``max_word_chars=C`` shortens a longer word to its first and last ``C // 2``
characters (:func:`shorten_word`); with both, only the first ``N * (C + 1)`` characters of the text
are read. :attr:`SplitText.truncated` says whether either limit changed the result. Hybrid models
split with their window as ``max_words`` and :data:`MAX_WORD_CHARS`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from itertools import accumulate, chain
from typing import Callable, Sequence

from charwise.errors import ConfigError

JOINERS = {"'", "\u2019", "-"}  # keep a word together between two word characters (don't, well-known)
MAX_WORD_CHARS = 256  # characters of a word that hybrid models and character encoders read


@dataclass(frozen=True)
class SplitText:
    """Words of a text and, for each, whether whitespace preceded it."""

    words: list[str]
    space_before: list[bool]
    truncated: bool = False  # a limit of split_words dropped words or shortened one


def shorten_word(word: str, max_chars: int = MAX_WORD_CHARS) -> str:
    """``word`` if it has at most ``max_chars`` characters, else its first and last ``max_chars // 2``
    (the stem and the ending, which is what a character encoder reads of a long word anyway)."""
    if len(word) <= max_chars:
        return word
    head = max_chars - max_chars // 2
    return word[:head] + word[len(word) - max_chars // 2 :]


def char_kind(char: str) -> str:
    """The splitter's class of a character: ``space``, ``word`` (letters, digits, marks, ``_``),
    ``format`` (Cf), ``symbol`` (S*, private use) or ``punct``."""
    if char.isspace():
        return "space"
    cat = unicodedata.category(char)
    if cat[0] in "LNM" or char == "_":
        return "word"
    if cat == "Cf":
        return "format"
    if cat[0] == "S" or cat == "Co":
        return "symbol"
    return "punct"


def check_limit(name: str, value: int | None) -> None:
    """A one-line ConfigError unless ``value`` is a positive integer or None."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ConfigError(f"{name} must be a positive integer or None, got {value!r}")


def split_words(text: str, *, max_words: int | None = None, max_word_chars: int | None = None) -> SplitText:
    """Split ``text`` into words (see the module docstring); ``""`` and whitespace give no words.

    ``max_words`` keeps the first words only; ``max_word_chars`` shortens longer words
    (:func:`shorten_word`); see the module's limits.
    """
    if not isinstance(text, str):
        raise TypeError(f"split_words() takes a string, got {type(text).__name__}")
    check_limit("max_words", max_words)
    check_limit("max_word_chars", max_word_chars)
    words: list[str] = []
    space_before: list[bool] = []
    seen_space = False
    truncated = False
    n = len(text)
    if max_words is not None and max_word_chars is not None and n > max_words * (max_word_chars + 1):
        n, truncated = max_words * (max_word_chars + 1), True
    i = 0
    while i < n:
        kind = char_kind(text[i])
        if kind == "space":
            seen_space, i = True, i + 1
            continue
        if max_words is not None and len(words) == max_words:
            truncated = True
            break
        start, i = i, i + 1
        if kind != "punct":
            run = kind if kind != "format" else ""  # a leading format character takes the next kind
            while i < n:
                char, nxt = text[i], char_kind(text[i])
                if nxt == "format" or nxt == run:
                    i += 1
                elif not run and nxt in ("word", "symbol"):
                    run, i = nxt, i + 1
                elif run == "symbol" and unicodedata.category(char)[0] == "M":
                    i += 1  # variation selectors and enclosing keycaps belong to the emoji
                elif run == "word" and char in JOINERS and i + 1 < n and char_kind(text[i + 1]) == "word":
                    i += 2
                else:
                    break
        word = text[start:i]
        if max_word_chars is not None and len(word) > max_word_chars:
            word, truncated = shorten_word(word, max_word_chars), True
        words.append(word)
        space_before.append(seen_space)
        seen_space = False
    return SplitText(words, space_before, truncated)


def join_words(words: list[str], space_before: list[bool]) -> str:
    """The inverse of :func:`split_words` up to the kind and amount of whitespace."""
    return "".join((" " if s and i else "") + w for i, (w, s) in enumerate(zip(words, space_before)))


def tokenised_spacing(words: Sequence[str]) -> list[bool]:
    """Whitespace before each of ``words`` as split by a tokenizer (CoNLL files such as WNUT17 and UD),
    where the text's own spacing is lost: a space before every word except after ``@``, ``#`` or ``\\``
    on their own, around ``_`` and in ``u / name``, ``/ r / name``: tokenizers cut ``@Qmechanic``,
    ``#tbt``, ``\\vert``, ``md_addam`` and ``/u/name`` there, and a sign alone before a name is far more often such
    a cut than the sign written apart (``meet @ 5``: a number, left alone either way)."""
    spaces = [True] * len(words)
    wordlike = [w[:1].isalnum() and w[-1:].isalnum() for w in words]
    for i in range(1, len(words)):
        before, word = words[i - 1], words[i]
        after_ok = i + 1 < len(words) and wordlike[i + 1]
        if before in ("@", "#", "\\") and wordlike[i]:
            spaces[i] = False
        elif word == "_" and wordlike[i - 1] and after_ok:  # md _ addam
            spaces[i] = spaces[i + 1] = False
        elif word == "/" and before in ("u", "r") and after_ok:  # u / name, / r / soccer
            spaces[i] = spaces[i + 1] = False
            if i >= 2 and words[i - 2] == "/":
                spaces[i - 1] = False
    return spaces


# --- protected spans: what is not a word of the language and must reach a model as written ---------
# URL endings a bare domain may have (``youtu.be``, ``bit.ly``): the common generic and country ones.
_TLDS = ("com|org|net|edu|gov|mil|int|info|biz|io|co|ai|app|dev|me|tv|ly|be|gl|fm|am|to|us|uk|ca|au|de|fr|es|"
         "it|nl|ru|jp|cn|in|br|mx|ar|ch|se|no|dk|fi|pl|ie|nz|za|kr|tk|xyz|online|site|news|blog")
_UNITS = ("km|cm|mm|nm|m|mi|ft|in|kg|mg|g|lb|lbs|oz|ml|l|mph|kph|km/h|ms|s|sec|secs|min|mins|h|hr|hrs|"
          "kb|mb|gb|tb|kbps|mbps|hz|khz|mhz|ghz|px|pt|em|v|w|kw|kwh|mah|k|x|am|pm|°c|°f|°|%|st|nd|rd|th")
#: The built-in protected kinds, each a regular expression over the text (checked in this order).
PROTECTED_PATTERNS: dict[str, str] = {
    "url": (r"(?i)(?:(?:https?|ftp)://|\bwww\.)[^\s<>\"]+[^\s<>\"'.,;:!?)\]}]"
            rf"|(?<![\w@.])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS})\b(?:/[^\s<>\"]*[^\s<>\"'.,;:!?)\]}}])?"),
    "email": r"(?i)\b[a-z0-9._%+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}\b",
    "handle": r"(?<![\w@])@\w+",
    "hashtag": r"(?<![\w#&])#\w+",
    # a Reddit user or community (``u/name``, ``/r/soccer``)
    "reddit": r"(?<![\w/])/?(?:u|r)/[\w-]+",
    "path": (r"(?:(?<![\w/])(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]*)+|\b[A-Za-z]:\\[^\s]+"
             r"|\b[\w-]+(?:/[\w-]+)*\.(?:py|js|ts|json|ya?ml|toml|txt|csv|tsv|md|html?|css|cpp|h|rs|go|java|sh|"
             r"cfg|ini|log|xml|pdf|png|jpe?g|gif|zip|gz|tar|parquet|ipynb|safetensors)\b)"),
    "initials": r"(?<![\w.])(?:[A-Za-z]\.){2,}",  # U.S., e.g., i.e.
    "identifier": (r"\b[A-Za-z]\w*_\w*[A-Za-z0-9]\w*\b|\b[a-z]+[A-Z]\w*\b"
                   r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}\b|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\("),
    "number": rf"(?i)(?<![\w.])[-+]?\d+(?:[.,:]\d+)*\s?(?:{_UNITS})?(?![\w])",
    # a word cut short where a post was truncated: glued to an ellipsis that ends the text, or that
    # only a link follows (``the following stateme…``, ``this girli… https://t.co/x``)
    "cut": r"\w[\w'-]*\u2026(?=\s*(?:https?://\S+\s*)?$)",
    # TeX: inline math that holds a command or a sub/superscript (``$\vert n\rangle$``, not ``$5 and $10``)
    # and a command or escape sequence on its own (``\alpha``, ``\nalert``)
    "math": r"\$\$?(?=[^$\n]*(?:\\\s?[A-Za-z]|[\^_{}]))[^$\n]{1,300}?\$\$?",
    "command": r"\\[A-Za-z]+",
    "emoticon": (r"(?<!\w)(?:[:;=8][-o'^]?[)(\]\[dDpP/\\|*3oO$@]|[xX][dDpP]|<3|</3|\^[_.]?\^|-_-|o_O|O_o|T_T)"
                 r"(?![\w])"),
    # inline code between backticks, on one line (Markdown, chat): ``use `recieve()` here``
    "code": r"`[^`\n]{1,200}`",
    # an SQL statement to its end (``;`` or the line's): its keywords in capitals, or in any case with a
    # WHERE clause (``select * from u where x = 1``: not ``select a photo from your gallery``)
    "sql": (r"\b(?:SELECT|DELETE)\b[^;\n]{0,200}?\bFROM\b[^;\n]*;?|\bINSERT\s+INTO\b[^;\n]*;?"
            r"|\bUPDATE\s+\w+\s+SET\b[^;\n]*;?|(?i:\bselect\b[^;\n]{0,200}?\bfrom\b[^;\n]{0,200}?\bwhere\b[^;\n]*;?)"),
    # a word masked with asterisks between its letters (``f*ck``, ``the s*n``, ``sh**ting``, ``*N*I*K*K*I*``):
    # its pieces are no words (``s*n`` is no ``s * and``); ``*really*``, a word stressed, is read
    "masked": r"(?:[^\W_]*[A-Za-z]|(?<=[A-Za-z]))\*+[A-Za-z][^\W_]*(?:\*+[^\W_]+)*",
    # a word quoted on its own is mentioned, not used (``the word 'its'``, ``"teh" is a meme``)
    # (the quote first, then what stands before it: most positions fail at once)
    "quoted": "['\u2018\"\u201c](?<![\\w'\u2018\u2019\"\u201c\u201d]['\u2018\"\u201c])[A-Za-z]+"
              "(?:['\u2019][A-Za-z]+)?['\u2019\"\u201d](?![\\w'\u2019\"\u201d])",
}
# What each kind needs somewhere in the text to match at all. A text without it skips that kind's
# alternative: the regular expression tries every alternative at every position, and most words of
# most texts need few of them (a quarter less time on WNUT17's tweets and raw tweets).
_DOT_THEN_TEXT = re.compile(r'\.[^\s<>"]')
_DOT_THEN_LOWER = re.compile(r"\.[a-z]")
_LETTER_DOT = re.compile(r"\.[A-Za-z]\.")
_CAMEL_OR_DOTTED = re.compile(r"[a-z][A-Z]|\.[A-Za-z_]")
_DIGIT = re.compile(r"\d")
_EMOTICON_SIGN = re.compile("[:;=8<^_]|[xX][dDpP]")
_SQL_WORD = re.compile(r"DELETE|INSERT|UPDATE|(?i:select)")  # every alternative starts so
_QUOTE = re.compile("[\"\u201c\u2018]|(?<!\\w)'")  # a quote that can open: not an apostrophe inside a word
_NEEDS: dict[str, Callable[[str], bool]] = {
    "url": lambda t: "://" in t or _DOT_THEN_TEXT.search(t) is not None,
    "email": lambda t: "@" in t,
    "handle": lambda t: "@" in t,
    "hashtag": lambda t: "#" in t,
    "reddit": lambda t: "/" in t,
    "path": lambda t: "/" in t or "\\" in t or _DOT_THEN_LOWER.search(t) is not None,
    "initials": lambda t: _LETTER_DOT.search(t) is not None,
    "identifier": lambda t: "_" in t or _CAMEL_OR_DOTTED.search(t) is not None,
    "number": lambda t: _DIGIT.search(t) is not None,
    "cut": lambda t: "\u2026" in t,
    "math": lambda t: "$" in t,
    "command": lambda t: "\\" in t,
    "emoticon": lambda t: _EMOTICON_SIGN.search(t) is not None,
    "code": lambda t: "`" in t,
    "sql": lambda t: _SQL_WORD.search(t) is not None,
    "masked": lambda t: "*" in t,
    "quoted": lambda t: _QUOTE.search(t) is not None,
}


# Texts whose protected spans are remembered (the least recently used forgotten first): a text read
# again (the same batches in every epoch or warm pass, a retweet) costs a look-up instead of the
# regular expression, a fifth of the repair policy's time on tweets; 10,000 texts of a few hundred
# characters hold a few MB. Longer texts (a long line read in windows) are not kept: at most
# SPANS_CACHE_CHARS characters a text bounds the cache at about 10 MB of text.
SPANS_CACHE_SIZE = 10_000
SPANS_CACHE_CHARS = 1_000


@functools.lru_cache(maxsize=None)
def _built_in(kinds: tuple[str, ...]) -> re.Pattern[str]:
    """One pass over the text: the alternatives of ``kinds`` in one expression, in the order of
    :data:`PROTECTED_PATTERNS` (so a text finds the spans all of them would), the case-blind ones
    scoped as ``(?i:...)``."""
    return re.compile("|".join(f"(?i:{p[4:]})" if p.startswith("(?i)") else f"(?:{p})"
                               for p in (PROTECTED_PATTERNS[k] for k in kinds)))


def compile_patterns(patterns: Sequence[str | re.Pattern[str]]) -> tuple[re.Pattern[str], ...]:
    """The user's own protected patterns, compiled (a one-line ConfigError for one that is invalid or
    that matches the empty string, which would protect nothing or everything)."""
    if isinstance(patterns, (str, re.Pattern)):
        patterns = [patterns]
    compiled = []
    for pattern in patterns:
        if isinstance(pattern, re.Pattern):
            compiled.append(pattern)
            continue
        if not isinstance(pattern, str):
            raise ConfigError(f"a protected pattern is a regular expression (str), got {type(pattern).__name__}")
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise ConfigError(f"invalid protected pattern {pattern!r}: {error}") from None
        if regex.fullmatch(""):
            raise ConfigError(f"the protected pattern {pattern!r} matches the empty string: give one that "
                              "matches what to keep")
        compiled.append(regex)
    return tuple(compiled)


def protected_spans(text: str, patterns: Sequence[str | re.Pattern[str]] = ()) -> list[tuple[int, int]]:
    """The character spans of ``text`` that no correction may change: URLs (with or without a
    scheme), e-mail addresses, @handles, #hashtags, file paths, code identifiers (``snake_case``,
    ``camelCase``, dotted names), initials (``U.S.``), numbers with units or ordinal endings (``5km``,
    ``22 nd``), words cut short where a post was truncated (``stateme…``), TeX math and commands
    (``$\\sqrt{n}$``, ``\\alpha``), emoticons, inline code between backticks and a word quoted on its
    own (a word mentioned, not used: ``the word 'its'``) (:data:`PROTECTED_PATTERNS`), and
    what the user's ``patterns`` (regular expressions) match. Sorted, possibly overlapping."""
    compiled = compile_patterns(patterns)
    return list(_spans(text, compiled) if len(text) <= SPANS_CACHE_CHARS else _spans.__wrapped__(text, compiled))


@functools.lru_cache(maxsize=SPANS_CACHE_SIZE)
def _spans(text: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[tuple[int, int], ...]:
    """:func:`protected_spans` of ``text``, remembered (see :data:`SPANS_CACHE_SIZE`)."""
    kinds = tuple(kind for kind in PROTECTED_PATTERNS if _NEEDS[kind](text))
    spans = [m.span() for m in _built_in(kinds).finditer(text) if m.end() > m.start()] if kinds else []
    for regex in patterns:
        spans += [m.span() for m in regex.finditer(text) if m.end() > m.start()]
    return tuple(sorted(spans))


def clear_spans_cache() -> None:
    """Forget the protected spans of the texts seen so far (:func:`protected_spans` finds them again)."""
    _spans.cache_clear()


def protected_words(text: str, spans: Sequence[tuple[int, int]],
                    patterns: Sequence[str | re.Pattern[str]] = ()) -> list[bool]:
    """For each word at ``spans`` (offsets into ``text``, in order), whether it touches a protected
    span of the text (:func:`protected_spans`): the one decision of what a correction leaves alone."""
    return _touching(protected_spans(text, patterns), spans)


def _touching(found: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[bool]:
    """For each of ``spans`` (in order), whether it overlaps one of ``found`` (sorted)."""
    if not found:
        return [False] * len(spans)
    merged: list[list[int]] = []  # the protected spans as disjoint, sorted intervals
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    flags, j = [], 0
    for start, end in spans:
        while j < len(merged) and merged[j][1] <= start:
            j += 1
        flags.append(j < len(merged) and merged[j][0] < end)
    return flags


def words_protected(words: Sequence[str], space_before: Sequence[bool] | None = None,
                    patterns: Sequence[str | re.Pattern[str]] = ()) -> list[bool]:
    """:func:`protected_words` for words already split (by :func:`split_words`, or by a tokenizer when
    ``space_before`` is None): the text is put back together to find the spans (``@`` and ``joejonas``
    glued together are one handle). Where the spacing is not known (:func:`tokenised_spacing`), the
    signs that tokenizers cut off handles, hashtags, Reddit names and underscored names are read glued."""
    if space_before is None:
        space_before = tokenised_spacing(words)
    if len(space_before) != len(words):
        raise ValueError(f"{len(words)} words but {len(space_before)} space flags")
    # the text: each word after one space where whitespace preceded it (none before the first)
    parts = list(chain.from_iterable(zip([" " if space and i else "" for i, space in enumerate(space_before)],
                                         words)))
    found = protected_spans("".join(parts), patterns)
    if not found:  # most sentences: no word to find the offsets of
        return [False] * len(words)
    bounds = list(accumulate(map(len, parts)))  # a word starts where the space before it ends
    return _touching(found, list(zip(bounds[::2], bounds[1::2])))
