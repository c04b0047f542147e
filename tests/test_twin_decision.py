"""The Spanish accent-twin decision: its kinds of twin, its file and its candidates."""

from __future__ import annotations

import pytest

from charwise.errors import ConfigError
from charwise.speller.twin_decision import DROPPED, FEATURES, KINDS, TwinDecision, accent_twins, twin_kind


@pytest.mark.parametrize("plain, twin, kind", [
    ("llego", "llegó", "final -ó"), ("pense", "pensé", "final -é"), ("estaras", "estarás", "final -á"),
    ("parti", "partí", "final -í"), ("dias", "días", "hiatus"), ("reir", "reír", "hiatus"),
    ("musica", "música", "inner"), ("dolares", "dólares", "inner"), ("manana", "mañana", "tilde"),
])
def test_each_twin_has_its_kind(plain, twin, kind):
    assert twin_kind(plain, twin) == kind


def decision_dict(**changes: object) -> dict:
    data = {"weights": [0.0] * len(FEATURES), "bias": 0.0, "threshold": 0.9, "source": "a test",
            "kind_thresholds": {"hiatus": 0.9}}
    return {**data, **changes}


def test_only_the_kinds_decided_have_a_threshold():
    decision = TwinDecision.from_dict(decision_dict())
    assert decision.threshold_of("dias", "días") == 0.9
    assert decision.threshold_of("llego", "llegó") is None
    assert TwinDecision.from_dict(decision.to_dict()) == decision


@pytest.mark.parametrize("kinds", [None, ["hiatus"], {"plural": 0.9}, {"hiatus": 1.5}, {"hiatus": True}])
def test_a_broken_decision_file_is_a_one_line_error(kinds):
    with pytest.raises(ConfigError, match="kind_thresholds") as e:
        TwinDecision.from_dict(decision_dict(kind_thresholds=kinds))
    assert "\n" not in str(e.value)


class FakeLexicon:
    """Only what accent_twins reads: entries with a Zipf frequency, knows, zipf."""

    def __init__(self, zipf: dict[str, float]) -> None:
        self._zipf = zipf
        self.entries = {w: type("Entry", (), {"zipf": z})() for w, z in zipf.items()}

    def knows(self, word: str) -> bool:
        return word in self._zipf

    def zipf(self, word: str) -> float:
        return self._zipf.get(word, 0.0)


def test_candidates_are_known_twins_at_most_ten_times_rarer_never_a_dropped_accent_or_a_set_member():
    lexicon = FakeLexicon({"dias": 3.0, "días": 5.0, "solo": 5.5, "sólo": 4.0, "pena": 5.0, "peña": 4.2,
                           "la": 7.5, "lá": 2.0, "esta": 6.4, "está": 6.2, "mañana": 5.5})
    accented = [(w, z) for w, z in lexicon._zipf.items() if w not in ("dias", "solo", "pena", "la", "esta")]
    twins = accent_twins(lexicon, accented, decided_elsewhere={"esta", "está"})
    assert twins == {"dias": "días", "pena": "peña"}  # lá is too rare; sólo a dropped accent; manana no word
    assert "sólo" in DROPPED and set(KINDS) == {k.removeprefix("kind ") for k in FEATURES[5:]}
