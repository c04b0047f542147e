"""The speller's score cache and the scorer's numpy weights never outlive the weights they came from:
a scorer swapped in (by assignment, a freshly fitted one included), reloaded with ``load_state_dict``
or changed in place gives its own scores at once."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from charwise.errors import ConfigError
from charwise.speller import Speller
from charwise.speller.features import RANK_FEATURES, WORD_FEATURES
from charwise.speller.scorer import SpellScorer, SpellScorerConfig
from conftest import fitted_scorer


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CHARWISE_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def speller(tiny_speller) -> Speller:
    return tiny_speller


def sure_scorer() -> SpellScorer:
    """The tiny fitted ranker with a judge that is sure of every correction (bias +30)."""
    scorer = fitted_scorer()
    scorer.set_parts({"word_weight": np.zeros(len(WORD_FEATURES)), "word_bias": np.float32(30.0)})
    return scorer


def never_scorer() -> SpellScorer:
    """The tiny fitted ranker with a judge that never believes a correction (bias -30)."""
    scorer = fitted_scorer()
    scorer.set_parts({"word_weight": np.zeros(len(WORD_FEATURES)), "word_bias": np.float32(-30.0)})
    return scorer


def best(speller: Speller, word: str = "pakage") -> tuple[str, float]:
    (suggestions,) = speller.suggest([word])
    return suggestions[0].word, suggestions[0].probability


def test_assigning_another_scorer_gives_its_scores(speller):
    assert speller.correct("the pakage").corrected == "the package"  # cached under the first scorer
    speller.scorer = never_scorer()
    assert best(speller)[1] < 1e-6
    assert speller.correct("the pakage").corrected == "the pakage"
    speller.scorer = sure_scorer()
    assert best(speller) == ("package", pytest.approx(1.0))
    assert speller.correct("the pakage").corrected == "the package"
    with pytest.raises(ConfigError, match="trained for 'es'"):
        speller.scorer = fitted_scorer(language="es")
    assert best(speller)[1] == pytest.approx(1.0)  # the refused scorer was not installed


def test_load_state_dict_and_in_place_changes_reach_the_scores(speller):
    assert best(speller)[1] > 0.5
    speller.scorer.load_state_dict(never_scorer().state_dict())
    assert best(speller)[1] < 1e-6
    speller.scorer.load_state_dict(sure_scorer().state_dict())
    assert best(speller)[1] == pytest.approx(1.0)
    with torch.no_grad():  # any in-place change of a parameter
        speller.scorer.word_bias.fill_(-30.0)
    assert best(speller)[1] < 1e-6
    speller.scorer.word_bias = torch.nn.Parameter(torch.tensor(30.0), requires_grad=False)  # a new parameter
    assert best(speller)[1] == pytest.approx(1.0)


def test_the_scorer_reads_its_parameters_not_a_stale_copy():
    scorer = fitted_scorer()
    rows = np.random.default_rng(0).random((4, len(RANK_FEATURES)))
    words = np.random.default_rng(1).random((3, len(WORD_FEATURES)))
    before = scorer.rank(rows)
    other = SpellScorer(SpellScorerConfig())
    other.set_parts({"rank_weight": np.linspace(-1, 1, len(RANK_FEATURES)), "word_bias": np.float32(2.0)})
    scorer.load_state_dict(other.state_dict())
    assert np.allclose(scorer.rank(rows), other.rank(rows)) and not np.allclose(scorer.rank(rows), before)
    assert np.allclose(scorer.judge(words), other.judge(words))
    assert np.allclose(scorer(torch.tensor(rows, dtype=torch.float32)).numpy(), scorer.rank(rows), atol=1e-5)
    version = scorer.weights_version()
    assert scorer.weights_version() == version  # unchanged weights: the same version, no new copy
    scorer.set_parts({"rank_bias": np.float32(1.0)})
    assert scorer.weights_version() != version
    assert np.allclose(scorer.rank(rows), other.rank(rows) + 1.0)
    # parameters made under inference mode keep no version counter: their bytes are compared
    with torch.inference_mode():
        frozen = fitted_scorer()
        frozen_before = frozen.rank(rows)
        frozen.rank_weight.mul_(2.0)
        assert np.allclose(frozen.rank(rows), 2 * frozen_before - frozen.rank_bias.item())


def test_a_fitted_scorer_assigned_gives_its_scores(speller, monkeypatch):
    import charwise.training.scorer as training
    from charwise.training.scorer import ScorerTraining, fit_scorer

    # the tiny lexicon's words and a few clean dev words: a fit in a second or two
    monkeypatch.setattr(training, "training_sentences",
                        lambda language: [["the", "horsee", "and", "the", "house"], ["wycombe", "blorp"]])
    monkeypatch.setattr(training, "clean_dev_words", lambda language: [["the", "house", "and", "the", "horse"]])
    speller.scorer = never_scorer()
    assert speller.correct("the pakage").corrected == "the pakage"  # now cached: never a correction
    old = speller.scorer
    training = ScorerTraining(words=300, negatives=5, wikipedia=False, sentence_words=20, rank_hidden=2,
                              threshold=0.5)
    scorer, info = fit_scorer(speller.featurizer, training, compare=False)
    assert speller.scorer is old  # fitting reads the featurizer and changes no speller
    assert scorer.training_info is info and info["dev"]["threshold"] == 0.5 and info["dev"]["dev_words"] == 5
    assert (scorer.config.language, scorer.config.encoder, info["config"]["encoder"]) == ("en", "minilm", "minilm")
    speller.scorer = scorer
    fresh = Speller(speller.lexicon, speller.encoder, speller.scorer, speller.settings)
    assert speller.suggest(["pakage"]) == fresh.suggest(["pakage"])  # the new scorer's scores, not the cache's
    assert best(speller)[1] > 1e-6
    with pytest.raises(ConfigError, match="'es'"):
        fit_scorer(speller.featurizer, ScorerTraining(language="es"))


def test_the_dev_report_lists_changes_the_scorer_did_not_make(monkeypatch):
    """A change another decision made (an accent twin: no suggestions of the speller's own) is listed
    with the others, not an error."""
    import charwise.training.scorer as training
    from charwise.speller.corrections import WordCorrection
    from charwise.training.scorer import ScorerTraining, dev_changes

    class Corrected:  # what dev_changes reads of a speller: its threshold and its corrections
        threshold = 0.65

        @staticmethod
        def correct_words(sentences):
            entries = [WordCorrection(w, w, False) for w in sentences[0]]
            entries[2].correction, entries[2].kind, entries[2].probability = "está", "accent", 0.99
            return [entries]

    monkeypatch.setattr(training, "clean_dev_words", lambda language: [["mi", "madre", "esta", "aqui"]])
    info = dev_changes(Corrected(), ScorerTraining(language="es"))  # type: ignore[arg-type]
    assert info["changes"] == [(0.99, "esta", "está")] and (info["dev_words"], info["dev_changed"]) == (4, 1)
