"""Tests for charwise.noise (Char2Subword-style single-character typos)."""

from __future__ import annotations

import random
import time
import unicodedata

import pytest

from charwise.typos.single import (
    LAYOUTS,
    OPERATIONS,
    WITHIN_WORD_PUNCTUATION,
    NoiseConfig,
    NoiseNotApplicable,
    Noiser,
    add_typos,
    keyboard_neighbours,
)

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüñßàç"


def random_words(n: int, seed: int, lo: int = 5, hi: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(lo, hi))) for _ in range(n)]


def osa_distance(a: str, b: str, transpositions: bool = True) -> int:
    """Levenshtein distance (optimal string alignment if ``transpositions``)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if transpositions and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def diff_positions(a: str, b: str) -> list[int]:
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


WORDS = random_words(150, seed=1)
SEEDS = range(3)


def test_constants() -> None:
    assert OPERATIONS == ("mistype", "repeat", "swap", "drop", "toggle", "punct")
    assert {"us", "uk", "de", "fr", "es"} <= set(LAYOUTS)
    assert {"-", ".", "'"} <= set(WITHIN_WORD_PUNCTUATION)
    assert issubclass(NoiseNotApplicable, ValueError)


@pytest.mark.parametrize("layout", ["us", "uk", "de", "fr", "es"])
def test_mistype_is_one_neighbour_substitution(layout: str) -> None:
    noiser = Noiser()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out = noiser.apply(w, "mistype", rng, layout=layout)
            assert osa_distance(w, out, transpositions=False) == 1
            (i,) = diff_positions(w, out)
            assert out[i] in keyboard_neighbours(w[i], layout)


def test_repeat_duplicates_one_char() -> None:
    noiser = Noiser()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out = noiser.apply(w, "repeat", rng)
            assert osa_distance(w, out) == 1 and len(out) == len(w) + 1
            assert any(out == w[: i + 1] + w[i:] for i in range(len(w)))


def test_swap_is_one_adjacent_transposition() -> None:
    noiser = Noiser()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out = noiser.apply(w, "swap", rng)
            assert out != w and osa_distance(w, out) == 1 and len(out) == len(w)
            i, j = diff_positions(w, out)
            assert j == i + 1 and out[i] == w[j] and out[j] == w[i]


def test_drop_deletes_one_char() -> None:
    noiser = Noiser()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out = noiser.apply(w, "drop", rng)
            assert len(out) == len(w) - 1 and osa_distance(w, out) == 1


def test_toggle_changes_case_of_one_char() -> None:
    noiser = Noiser()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            if not any(c.isalpha() and c != "ß" for c in w):
                continue
            out = noiser.apply(w, "toggle", rng)
            assert out.casefold() == w.casefold()
            (i,) = diff_positions(w, out)
            assert out[i] == w[i].swapcase()


def test_punct_inserts_inside() -> None:
    noiser = Noiser()
    seen = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out = noiser.apply(w, "punct", rng)
            assert len(out) == len(w) + 1 and osa_distance(w, out) == 1
            matches = [
                (i, out[i])
                for i in range(1, len(w))
                if out[:i] == w[:i] and out[i + 1 :] == w[i:] and out[i] in WITHIN_WORD_PUNCTUATION
            ]
            assert matches, (w, out)
            seen.update(m for _, m in matches)
    assert {"-", "."} <= seen


def test_output_always_differs_and_corrupt_is_one_edit() -> None:
    noiser = Noiser(NoiseConfig(layouts=LAYOUTS))
    ops_seen = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        for w in WORDS:
            out, op = noiser.corrupt(w, rng)
            ops_seen.add(op)
            assert out != w and osa_distance(w, out) == 1
    assert ops_seen == set(OPERATIONS)


def test_combining_marks_stay_attached() -> None:
    noiser = Noiser()
    w = "cafe\u0301s\u0301"  # decomposed accents
    for seed in range(40):
        rng = random.Random(seed)
        for op in OPERATIONS:
            out = noiser.apply(w, op, rng)
            assert out != w
            assert unicodedata.category(out[0])[0] != "M"
            # each combining acute still follows a letter it was attached to
            for i, c in enumerate(out):
                if c == "\u0301":
                    assert out[i - 1] in "esES" or op == "mistype"
        assert not unicodedata.category(noiser.apply("e\u0301abc", "drop", rng)[0]).startswith("M")


def test_length_rule() -> None:
    noiser = Noiser()
    assert not noiser.eligible("abcd")
    assert noiser.eligible("abcde")
    with pytest.raises(NoiseNotApplicable):
        noiser.corrupt("abcd", random.Random(0))
    # apply ignores eligibility
    assert noiser.apply("abcd", "drop", random.Random(0)) != "abcd"
    assert Noiser(NoiseConfig(min_length=3)).eligible("abc")


def test_uncased_never_toggles() -> None:
    noiser = Noiser(NoiseConfig(cased=False))
    rng = random.Random(0)
    ops = {noiser.corrupt(w.lower(), rng)[1] for w in WORDS * 3}
    assert "toggle" not in ops
    assert ops == set(OPERATIONS) - {"toggle"}


def test_not_applicable_and_errors() -> None:
    noiser = Noiser()
    rng = random.Random(0)
    with pytest.raises(NoiseNotApplicable):
        noiser.apply("12345", "toggle", rng)
    with pytest.raises(NoiseNotApplicable):
        noiser.apply("aaaaa", "swap", rng)
    with pytest.raises(NoiseNotApplicable):
        noiser.apply("a", "drop", rng)
    with pytest.raises(NoiseNotApplicable):
        noiser.apply("a", "punct", rng)
    with pytest.raises(NoiseNotApplicable):
        Noiser(NoiseConfig(operations=("toggle", "swap"))).corrupt("11111", rng)
    assert Noiser(NoiseConfig(operations=("toggle", "swap"))).corrupt("aaaaa", rng)[1] == "toggle"
    with pytest.raises(ValueError):
        noiser.apply("hello", "shout", rng)
    with pytest.raises(ValueError):
        noiser.apply("hello", "mistype", rng, layout="dvorak")
    with pytest.raises(ValueError):
        keyboard_neighbours("a", "dvorak")
    with pytest.raises(ValueError):
        keyboard_neighbours("ab")
    with pytest.raises(ValueError):
        NoiseConfig(operations=("shout",))
    with pytest.raises(ValueError):
        NoiseConfig(layouts=())


def test_determinism() -> None:
    noiser = Noiser(NoiseConfig(layouts=LAYOUTS))

    def run(seed: int) -> list[tuple[str, str]]:
        rng = random.Random(seed)
        return [noiser.corrupt(w, rng) for w in WORDS]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_known_adjacencies() -> None:
    assert set("fhtyvb") <= set(keyboard_neighbours("g", "us"))
    assert set("FHTYVB") <= set(keyboard_neighbours("G", "us"))
    assert {"w", "a"} <= set(keyboard_neighbours("q", "us"))
    assert "g" not in keyboard_neighbours("g", "us")
    assert set("fhtyvb") <= set(keyboard_neighbours("g", "uk"))
    assert {"#", ";"} <= set(keyboard_neighbours("'", "uk"))
    assert {"t", "u"} <= set(keyboard_neighbours("z", "de"))
    assert {"x", "a"} <= set(keyboard_neighbours("y", "de"))
    assert {"l", "ä"} <= set(keyboard_neighbours("ö", "de"))
    assert {"z", "q"} <= set(keyboard_neighbours("a", "fr"))
    assert {"a", "s", "w"} <= set(keyboard_neighbours("q", "fr"))
    assert {"l", "´"} <= set(keyboard_neighbours("ñ", "es"))
    assert "ñ" in keyboard_neighbours("l", "es")
    # precomposed letters off the layout: base letter's neighbours + base letter
    assert {"a", "s"} <= set(keyboard_neighbours("á", "us"))


def test_every_layout_key_has_neighbours() -> None:
    for layout in LAYOUTS:
        for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789":
            n = keyboard_neighbours(c, layout)
            assert n and c not in n, (layout, c)
            if c.isupper():
                assert all(not x.islower() for x in n), (layout, c, n)


@pytest.mark.parametrize("char", ["д", "Ж", "λ", "Ω", "ש", "٣"])
def test_fallback_same_script_and_category(char: str) -> None:
    script = unicodedata.name(char).split()[0]
    n = keyboard_neighbours(char, "us")
    assert n and char not in n
    for c in n:
        assert unicodedata.category(c) == unicodedata.category(char)
        assert unicodedata.name(c).split()[0] == script


def test_mistype_non_latin_word() -> None:
    rng = random.Random(0)
    out = Noiser().apply("привет", "mistype", rng)
    assert osa_distance("привет", out) == 1
    assert all(unicodedata.name(c).startswith("CYRILLIC") for c in out)


def test_add_typos() -> None:
    words = random_words(600, seed=3, lo=1, hi=9)
    eligible = [len(w) >= 5 for w in words]
    out, mask = add_typos(words, 0.0, seed=0)
    assert out == words and not any(mask)
    out, mask = add_typos(words, 1.0, seed=0)
    assert len(out) == len(words) and mask == eligible
    assert all((a != b) == m for a, b, m in zip(words, out, mask))
    out, mask = add_typos(words, 0.3, seed=0)
    frac = sum(mask) / sum(eligible)
    assert 0.2 < frac < 0.4
    assert all((a != b) == m for a, b, m in zip(words, out, mask))
    assert add_typos(words, 0.3, seed=0) == (out, mask)
    assert add_typos(words, 0.3, seed=1) != (out, mask)
    with pytest.raises(ValueError):
        add_typos(words, 1.5, seed=0)


def test_speed() -> None:
    noiser = Noiser(NoiseConfig(layouts=LAYOUTS))
    words = random_words(20_000, seed=5)
    rng = random.Random(0)
    start = time.perf_counter()
    for w in words:
        noiser.corrupt(w, rng)
    assert time.perf_counter() - start < 1.5  # ~0.1 s normally; generous for busy CPUs
