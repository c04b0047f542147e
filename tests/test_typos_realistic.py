"""Tests for charwise.typos.realistic (realistic spelling errors) and the ``noise`` training option.

Every example below was written for these tests from the rules' descriptions; no list of real
misspellings was used.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import asdict

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from charwise.cli import main
from charwise.errors import ConfigError
from charwise.training.approximation import BatchSource, TrainConfig
from charwise.training.losses import LossWeights
from charwise.typos.realistic import KIND_WEIGHTS, LANGUAGES, MisspellConfig, RealisticNoiser
from charwise.typos.single import OPERATIONS, NoiseNotApplicable

NOISER = RealisticNoiser()


def outputs(word: str, kind: str, draws: int = 60, noiser: RealisticNoiser = NOISER) -> set[str]:
    """Every result of ``draws`` single edits of ``kind`` (seeded)."""
    rng = random.Random(f"{word}-{kind}")
    return {noiser.apply(word, kind, rng) for _ in range(draws)}


# --- each kind fires where it should ------------------------------------------------------------
RULE_CASES = [
    ("ie-ei", "receive", {"recieve"}),
    ("ie-ei", "believe", {"beleive"}),
    ("double", "occurred", {"occured", "ocurred"}),
    ("double", "develop", {"devellop"}),  # v is not doubled in English
    ("schwa", "separate", {"seperate", "separote"}),
    ("schwa", "definite", {"definate"}),
    ("suffix", "appearance", {"appearence"}),
    ("suffix", "independent", {"independant"}),
    ("suffix", "relevantly", {"relevently"}),
    ("suffix", "responsible", {"responsable"}),
    ("suffix", "acceptably", {"acceptibly"}),
    ("suffix", "realise", {"realize"}),
    ("suffix", "organizing", {"organising"}),
    ("silent", "knowledge", {"nowledge"}),
    ("silent", "wrongly", {"rongly"}),
    ("silent", "thumbs", {"thums"}),
    ("silent", "rhythm", {"rythm"}),
    ("silent", "ghostly", {"gostly"}),
    ("silent", "definite", {"definit"}),
    ("ph-f", "physical", {"fysical"}),
    ("ph-f", "fantastic", {"phantastic"}),
    ("c-k", "tackle", {"takle", "tacle"}),
    ("c-k", "music", {"musik", "musick"}),
    ("c-k", "kangaroo", {"cangaroo"}),
    ("c-s", "decide", {"deside"}),
    ("c-s", "consider", {"concider"}),
    ("ou-o", "should", {"shold"}),
    ("ou-o", "colours", {"colors"}),
    ("ou-o", "flavor", {"flavour"}),
    ("y-i", "rhythm", {"rhithm"}),
    ("y-i", "simple", {"symple"}),
    ("tion-sion", "position", {"posision"}),
    ("tion-sion", "version", {"vertion"}),
    ("tion-sion", "mission", {"mition", "mision"}),
    ("syllable", "probably", {"probly", "probabably"}),
]


@pytest.mark.parametrize("kind,word,expected", RULE_CASES)
def test_each_kind_produces_its_form(kind: str, word: str, expected: set[str]) -> None:
    seen = outputs(word, kind)
    assert expected <= seen, f"{kind} on {word!r}: {sorted(seen)}"
    assert word not in seen and "" not in seen


def test_every_english_kind_is_covered_and_weighted() -> None:
    assert set(LANGUAGES["en"]) | {"syllable"} == {kind for kind, _, _ in RULE_CASES}
    assert sum(NOISER.weights.values()) == pytest.approx(1.0)
    rules = sum(w for k, w in NOISER.weights.items() if k in LANGUAGES["en"])
    assert rules == pytest.approx(0.6)
    assert set(NOISER.kinds) == set(LANGUAGES["en"]) | set(KIND_WEIGHTS)
    uncased = RealisticNoiser(MisspellConfig(cased=False))
    assert "toggle" not in uncased.kinds and sum(uncased.weights.values()) == pytest.approx(1.0)


SPANISH = RealisticNoiser(MisspellConfig(language="es"))
SPANISH_CASES = [
    ("b-v", "vino", {"bino"}),
    ("b-v", "haber", {"haver"}),
    ("ll-y", "caballo", {"cabayo"}),
    ("c-s-z", "hacer", {"haser", "hazer"}),
    ("c-s-z", "zapato", {"sapato"}),
    ("h", "hombre", {"ombre"}),
    ("h", "orden", {"horden"}),
    ("accent", "corazón", {"corazon"}),
    ("g-j", "gente", {"jente"}),
    ("g-j", "mujer", {"muger"}),
    ("rr-r", "tierra", {"tiera"}),
]


@pytest.mark.parametrize("kind,word,expected", SPANISH_CASES)
def test_each_spanish_kind_produces_its_form(kind: str, word: str, expected: set[str]) -> None:
    seen = outputs(word, kind, noiser=SPANISH)
    assert expected <= seen, f"{kind} on {word!r}: {sorted(seen)}"
    assert word not in seen and "" not in seen


def test_every_spanish_kind_is_covered_and_weighted() -> None:
    assert set(LANGUAGES["es"]) == {kind for kind, _, _ in SPANISH_CASES}
    assert sum(SPANISH.weights.values()) == pytest.approx(1.0)
    assert sum(w for k, w in SPANISH.weights.items() if k in LANGUAGES["es"]) == pytest.approx(0.6)


def test_schwa_keeps_the_first_vowel() -> None:
    for out in outputs("separate", "schwa", draws=200):
        assert out.startswith("sep") and out[-1] == "e"  # first vowel and final (silent) e untouched


def test_rules_keep_the_case_of_the_match() -> None:
    assert "Recieve" in outputs("Receive", "ie-ei")
    assert "RECIEVE" in outputs("RECEIVE", "ie-ei")
    assert "Nowledge" in outputs("Knowledge", "silent")
    assert "Fysical" in outputs("Physical", "ph-f")


def test_rules_that_cannot_apply_say_so() -> None:
    with pytest.raises(NoiseNotApplicable):
        NOISER.apply("banana", "ie-ei", random.Random(0))
    with pytest.raises(NoiseNotApplicable):
        NOISER.apply("xxxxx", "syllable", random.Random(0))
    with pytest.raises(ConfigError):
        NOISER.apply("banana", "spoonerism", random.Random(0))


@pytest.mark.parametrize("op", OPERATIONS)
def test_keyboard_kinds_are_the_single_typo_operations(op: str) -> None:
    for out in outputs("receive", op, draws=20):
        if op == "swap":
            assert sorted(out) == sorted("receive")
        elif op == "repeat":
            assert len(out) == 8
        elif op == "drop":
            assert len(out) == 6
        elif op == "toggle":
            assert out.lower() == "receive"
        elif op == "punct":
            assert len(out) == 8 and out[0] == "r" and out[-1] == "e"
        else:
            assert len(out) == 7


# --- corrupt: edit counts, determinism, never unchanged -----------------------------------------
def edit_counts(noiser: RealisticNoiser, word: str, draws: int) -> Counter[int]:
    rng = random.Random(7)
    return Counter(noiser.corrupt(word, rng)[1].count("+") + 1 for _ in range(draws))


def test_edit_count_distribution() -> None:
    counts = edit_counts(NOISER, "unnecessarily", 3000)
    for n, p in ((1, 0.6), (2, 0.3), (3, 0.1)):
        assert counts[n] / 3000 == pytest.approx(p, abs=0.03), counts
    assert set(counts) == {1, 2, 3}
    always_two = RealisticNoiser(MisspellConfig(edit_counts=(0, 1)))
    assert edit_counts(always_two, "unnecessarily", 200) == Counter({2: 200})


def test_rule_share_selects_the_kinds() -> None:
    rng = random.Random(3)
    only_rules = RealisticNoiser(MisspellConfig(rule_share=1.0))
    never_rules = RealisticNoiser(MisspellConfig(rule_share=0.0))
    words = ["receive", "separately", "occurrence", "physician", "knowledge"]
    for word in words * 20:
        assert set(only_rules.corrupt(word, rng)[1].split("+")) <= set(LANGUAGES["en"])
        assert set(never_rules.corrupt(word, rng)[1].split("+")) <= set(KIND_WEIGHTS)


WORDS = ["receive", "occurrence", "Separately", "independent", "knowledgeable", "rhythms", "xxxxx",
         "12345", "naïve", "Straße", "мирные", "中文中文中", "e-mail", "don't", "AAAAA", "aaaaaa"]


def test_deterministic_per_seed() -> None:
    def run(seed: int) -> list[tuple[str, str]]:
        rng = random.Random(seed)
        return [NOISER.corrupt(w, rng) for w in WORDS for _ in range(5)]

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_never_unchanged_or_empty() -> None:
    rng = random.Random(0)
    for word in WORDS * 30:
        noisy, description = NOISER.corrupt(word, rng)
        assert noisy and noisy != word and 1 <= len(description.split("+")) <= 3


def test_short_words_are_not_eligible() -> None:
    assert not NOISER.eligible("ship") and NOISER.eligible("ships")
    with pytest.raises(NoiseNotApplicable):
        NOISER.corrupt("ship", random.Random(0))


def test_unknown_language_and_bad_settings() -> None:
    with pytest.raises(ConfigError, match="language 'xx'") as info:
        MisspellConfig(language="xx")
    assert "\n" not in str(info.value)
    for bad in (dict(edit_counts=()), dict(edit_counts=(0, 0)), dict(rule_share=1.5), dict(max_tries=0),
                dict(kind_weights={"spoonerism": 1.0}), dict(layouts=("nope",))):
        with pytest.raises(ConfigError):
            RealisticNoiser(MisspellConfig(**bad))
    with pytest.raises(ConfigError):
        RealisticNoiser(MisspellConfig(rule_share=0.0, kind_weights={}))


@settings(max_examples=300, deadline=None)
@given(word=st.text(min_size=5, max_size=20), seed=st.integers(0, 2**32), cased=st.booleans())
def test_any_unicode_string_is_corrupted_or_refused(word: str, seed: int, cased: bool) -> None:
    noiser = NOISER if cased else RealisticNoiser(MisspellConfig(cased=False))
    try:
        noisy, description = noiser.corrupt(word, random.Random(seed))
    except NoiseNotApplicable:
        return
    assert noisy and noisy != word and description


# --- the training option ------------------------------------------------------------------------
def tiny_config(**overrides) -> TrainConfig:
    params = dict(teacher="tiny-wordpiece", encoder="cnn", preset=None, steps=6, batch_size=256, noise_ratio=1.0,
                  losses=LossWeights(cos=1, l2=1, nbr=0, ce=0, contrastive=0))
    params.update(overrides)
    return TrainConfig(**params)


def test_single_noise_batches_are_unchanged(wordpiece_teacher) -> None:
    """The digest of these batches was computed with charwise 0.2 (before the noise option)."""
    source = BatchSource(wordpiece_teacher, torch.arange(1000, 9000), TrainConfig(batch_size=256, noise_ratio=1.0,
                                                                                  seed=3))
    texts = [t for step in range(4) for t in source.batch(step)[0]]
    digest = hashlib.sha256(json.dumps(texts).encode()).hexdigest()
    assert digest == "0fb68ad3a81b08a4013fdb3c26b57256dc7d7eb73ca2bacc3d469a660748598a"


def test_realistic_batches_differ_and_are_deterministic(wordpiece_teacher) -> None:
    rows = torch.arange(2000, 6000)
    single = BatchSource(wordpiece_teacher, rows, tiny_config())
    realistic = BatchSource(wordpiece_teacher, rows, tiny_config(noise="realistic"))
    again = BatchSource(wordpiece_teacher, rows, tiny_config(noise="realistic"))
    texts, _, ids = realistic.batch(0)
    assert texts == again.batch(0)[0] and texts != single.batch(0)[0]
    assert torch.equal(ids, single.batch(0)[2]), "the noise model changes the strings, never the targets"
    surfaces = [wordpiece_teacher.vocab.surfaces[i] for i in ids.tolist()]
    assert all(t == s for t, s in zip(texts, surfaces) if len(s) <= 4)
    changed = [(t, s) for t, s in zip(texts, surfaces) if t != s]
    assert changed and all(t for t, _ in changed)
    assert any(abs(len(t) - len(s)) >= 2 or sum(a != b for a, b in zip(t, s)) >= 2 for t, s in changed), \
        "some samples carry more than one edit"


def test_noise_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="noise must be"):
        TrainConfig(noise="gaussian")
    with pytest.raises(ConfigError, match="language"):
        TrainConfig(noise="realistic", noise_language="xx")
    with pytest.raises(ConfigError, match="'xx'"):
        TrainConfig(noise="realistic", noise_language="en+xx")


def test_several_languages_share_the_realistic_noise(wordpiece_teacher) -> None:
    from charwise.training.approximation import noisers_for, noisy_word

    both = noisers_for(wordpiece_teacher, "realistic", language="en+es")
    assert [n.config.language for n in both] == ["en", "es"]
    mixed = noisers_for(wordpiece_teacher, "mixed", language="en+es")
    # Half single typos, half spelling errors, whatever the number of languages.
    assert sum(isinstance(n, RealisticNoiser) for n in mixed) == len(mixed) // 2 == 2
    assert len(noisers_for(wordpiece_teacher, "mixed")) == 2  # one language: as before
    rng = random.Random(0)
    assert {noisy_word("corazones", both, rng) for _ in range(200)} - {"corazones"}
    TrainConfig(noise="realistic", noise_language="en+es")  # accepted


def test_old_configs_load_as_single_and_round_trip() -> None:
    old = asdict(TrainConfig())
    del old["noise"], old["noise_language"], old["losses"]["ce_negatives"], old["init_encoder"]  # added after 0.2
    config = TrainConfig.from_dict(json.loads(json.dumps(old)))
    assert config.noise == "single" and config.noise_language == "en"
    assert json.loads(json.dumps(config.to_dict())) == json.loads(json.dumps(old)), \
        "a default run saves the 0.2 configuration, so 0.2 runs resume"
    realistic = TrainConfig(noise="realistic")
    assert realistic.to_dict()["noise"] == "realistic"
    assert TrainConfig.from_dict(json.loads(json.dumps(realistic.to_dict()))).noise == "realistic"


def test_train_realistic_noise_from_the_command_line(tmp_path, tiny_bert_dir) -> None:
    run = tmp_path / "run"
    args = ["train", "--teacher", str(tiny_bert_dir), "--out", str(run), "--preset", "kim-small", "--steps", "2",
            "--batch-size", "32", "--eval-every", "2", "--nbr", "0", "--hard-negatives", "0",  # no neighbour tables
            "--noise", "realistic", "--quiet", "--no-report"]
    assert main(args) == 0
    saved = json.loads((run / "train_config.json").read_text())
    assert saved["noise"] == "realistic" and saved["steps"] == 2
    assert json.loads((run / "checkpoint" / "state.json").read_text())["step"] == 2
    # --resume rebuilds the configuration from train_config.json (a finished run: a no-op).
    assert main(args[:-4] + ["--resume", "--quiet", "--no-report"]) == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--out", str(tmp_path / "x"), "--noise", "gaussian"])
    assert exit_info.value.code == 2
