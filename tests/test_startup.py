"""Start-up: ``import charwise`` and building the command line's parser load neither torch nor
transformers (times live in benchmarks; here, which modules a fresh interpreter imported), and the
torch-free names the parser is built from are the ones the models accept."""

from __future__ import annotations

import subprocess
import sys

import pytest

import charwise

HEAVY = ("torch", "transformers")  # what makes start-up slow (seconds, not milliseconds)


def imported_after(code: str) -> dict[str, bool]:
    """Which of :data:`HEAVY` a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(str(m in sys.modules) for m in {HEAVY!r}))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return dict(zip(HEAVY, (word == "True" for word in result.stdout.split())))


def test_import_charwise_loads_no_model_library():
    assert imported_after("import charwise") == dict.fromkeys(HEAVY, False)


def test_building_the_parser_loads_no_model_library():
    assert imported_after("import charwise.cli\ncharwise.cli.build_parser()") == dict.fromkeys(HEAVY, False)


def test_help_runs_without_model_libraries():
    code = ("import contextlib, io, charwise.cli\n"
            "for argv in (['--help'], ['train', '--help'], ['tag', 'train', '--help'], ['decoder', 'eval', '--help'],\n"
            "             ['translate', 'eval', '--help']):\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        charwise.cli.main(argv)")
    assert imported_after(code) == dict.fromkeys(HEAVY, False)


@pytest.mark.parametrize("name", charwise.__all__)
def test_every_public_name_resolves(name):
    value = getattr(charwise, name)
    assert getattr(value, "__name__", name) == name
    assert name in dir(charwise)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        charwise.nope  # noqa: B018
    assert not hasattr(charwise, "nope")


def test_the_parser_offers_the_names_the_models_accept():
    from charwise import presets
    from charwise.decoders import lstm
    from charwise.encoders import ENCODERS
    from charwise.hybrid import pooling
    from charwise.lm import data as lm_data
    from charwise.lm import model as lm_model
    from charwise.translation import data as translation_data
    from charwise.translation import features as translation_features
    from charwise.translation import model as translation_model

    assert set(ENCODERS) == set(presets.ENCODER_PRESETS)
    for kind, cls in ENCODERS.items():
        assert cls.PRESETS is presets.ENCODER_PRESETS[kind]
    assert lstm.PRESETS is presets.DECODER_PRESETS and lm_model.PRESETS is presets.LM_PRESETS
    assert tuple(pooling.POOLINGS) == presets.POOLINGS
    assert lm_data.LANGUAGES == presets.LM_LANGUAGES
    assert translation_model.ARCHITECTURES == presets.TRANSLATION_ARCHITECTURES
    assert translation_model.FEATURE_MODES == presets.TRANSLATION_FEATURE_MODES
    assert translation_features.FEATURES == presets.TRANSLATION_FEATURES
    assert translation_data.SPLITS == presets.TRANSLATION_SPLITS


def test_the_trainers_use_the_torch_free_configurations():
    from charwise.tagging import config as tagging_config
    from charwise.tagging import model as tagging_model
    from charwise.tagging import s2w
    from charwise.training import (
        approximation,
        config,
        generation,
        lm,
        losses,
        pretraining,
        spelling,
        translation,
        tuning,
    )

    assert approximation.TrainConfig is config.TrainConfig and losses.LossWeights is config.LossWeights
    assert spelling.SpellingConfig is config.SpellingConfig and tuning.TuneConfig is config.TuneConfig
    assert pretraining.PretrainConfig is config.PretrainConfig and generation.GeneratorConfig is config.GeneratorConfig
    assert lm.LMConfig is config.LMConfig and translation.TranslateConfig is config.TranslateConfig
    assert tagging_model.TaggerConfig is tagging_config.TaggerConfig
    assert s2w.FEATURE_MODES is tagging_config.FEATURE_MODES
