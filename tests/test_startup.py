"""Start-up: ``import charwise`` and building the command line's parser load neither torch nor
transformers (times live in benchmarks; here, which modules a fresh interpreter imported, and a
generous bound on ``import charwise``), the torch-free names the parser is built from are the ones
the models accept, and ``import charwise`` still makes transformers' Auto classes know every charwise
model type, whichever of the two a fresh interpreter imports first (charwise.auto)."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import charwise
from charwise import auto

HEAVY = ("torch", "transformers")  # what makes start-up slow (seconds, not milliseconds)


def imported_after(code: str) -> dict[str, bool]:
    """Which of :data:`HEAVY` a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(str(m in sys.modules) for m in {HEAVY!r}))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return dict(zip(HEAVY, (word == "True" for word in result.stdout.split())))


def test_import_charwise_loads_no_model_library():
    assert imported_after("import charwise") == dict.fromkeys(HEAVY, False)


def test_import_charwise_takes_milliseconds():
    code = "import time\nt = time.perf_counter()\nimport charwise\nprint(time.perf_counter() - t)"
    seconds = []
    for _ in range(3):  # the best of three: the machine may be busy with other work
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        seconds.append(float(result.stdout))
    assert min(seconds) < 0.1, seconds


def test_transformers_alone_loads_no_torch_after_import_charwise():
    # ``import transformers`` is lazy; charwise's hook waits for the Auto classes and imports nothing itself.
    assert imported_after("import charwise, transformers") == {"torch": False, "transformers": True}


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
        decoder,
        generation,
        lm,
        losses,
        pretraining,
        translation,
        tuning,
    )

    assert approximation.TrainConfig is config.TrainConfig and losses.LossWeights is config.LossWeights
    assert decoder.SpellingConfig is config.SpellingConfig and tuning.TuneConfig is config.TuneConfig
    assert pretraining.PretrainConfig is config.PretrainConfig and generation.GeneratorConfig is config.GeneratorConfig
    assert lm.LMConfig is config.LMConfig and translation.TranslateConfig is config.TranslateConfig
    assert tagging_model.TaggerConfig is tagging_config.TaggerConfig
    assert s2w.FEATURE_MODES is tagging_config.FEATURE_MODES


# --- transformers' Auto classes after ``import charwise`` ----------------------------------------------
SRC = Path(charwise.__file__).parent
SHIPPED = SRC / "pretrained"

#: run in a fresh interpreter after the imports of each order: every directory loads with AutoConfig
#: and AutoModel (``from_config`` for the ones saved as a config only); prints the classes it got.
AUTO_PROBE = """
import json, sys
import transformers
cases = json.loads(sys.argv[1])
before = sorted(m for m in sys.modules if m in {modules!r})
got = {{}}
for path, how in cases:
    config = transformers.AutoConfig.from_pretrained(path)
    model = (transformers.AutoModel.from_pretrained(path) if how == "pretrained"
             else transformers.AutoModel.from_config(config))
    got[path] = [f"{{type(config).__module__}}.{{type(config).__name__}}", config.model_type,
                 f"{{type(model).__module__}}.{{type(model).__name__}}"]
print(json.dumps({{"before": before, "got": got}}))
"""

#: import order -> (the imports, the charwise model modules they import before any look-up)
IMPORT_ORDERS = {
    "charwise first": ("import charwise\nimport transformers", []),
    "transformers first": ("import transformers\nimport charwise", []),
    "AutoConfig loaded first": ("from transformers import AutoConfig, AutoModel\nimport charwise", []),
    # the hook fires inside charwise.encoders.base's own ``from transformers import AutoConfig``
    "a charwise model module first": ("import charwise.encoders.base\nimport transformers",
                                      ["charwise.encoders.base"]),
}


@pytest.fixture(scope="module")
def saved_models(tmp_path_factory, small_charset) -> list[tuple[str, str, str]]:
    """(directory, how AutoModel loads it, model type) for every charwise model type: the shipped
    encoder, decoder and speller scorer, and tiny ones saved here."""
    from charwise.hybrid.generation import WordHead, WordHeadConfig
    from charwise.lm.model import build_lm
    from charwise.translation.data import Subwords
    from charwise.translation.model import TranslationConfig, TranslationModel

    root = tmp_path_factory.mktemp("auto")
    build_lm("char-small", ["<unk>", "</s>", "the", "cat"], small_charset, char_dim=8, widths=[1, 2],
             channels=[4, 4], hidden=8, word_dim=8).save_pretrained(root / "lm")
    WordHead(WordHeadConfig(hidden_size=8, dim=4, inner=8)).save_pretrained(root / "word-head")
    subwords = Subwords.train(["y dijo dios sea la luz", "and god said let there be light"] * 5, 300)
    config = TranslationConfig(source_vocab=300, target_vocab=300, dim=8, heads=2, ffn=16, encoder_layers=2,
                               encoder_subword_layers=1, decoder_layers=2, decoder_subword_layers=1, max_positions=16)
    TranslationModel(config, subwords, subwords).save_pretrained(root / "translation")
    config.save_pretrained(root / "translation-config")  # a config alone: AutoModel.from_config
    return [(str(SHIPPED / "minilm"), "pretrained", "charwise-encoder"),
            (str(SHIPPED / "decoders" / "minilm"), "pretrained", "charwise-decoder"),
            (str(SHIPPED / "speller-minilm-en"), "pretrained", "charwise-speller"),
            (str(root / "lm"), "pretrained", "charwise-char-lm"),
            (str(root / "word-head"), "pretrained", "charwise-word-head"),
            (str(root / "translation"), "pretrained", "charwise-translation"),
            (str(root / "translation-config"), "config", "charwise-translation")]


def test_the_saved_models_cover_every_charwise_model_type(saved_models):
    assert {model_type for _, _, model_type in saved_models} == set(auto.MODEL_TYPES)


@pytest.mark.slow
@pytest.mark.parametrize("order", IMPORT_ORDERS)
def test_auto_classes_load_every_charwise_model_type_in_a_fresh_interpreter(saved_models, order):
    from transformers import AutoModel
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    imports, imported_before = IMPORT_ORDERS[order]
    probe = imports + AUTO_PROBE.format(modules=sorted(set(auto.MODEL_TYPES.values())))
    cases = [(path, how) for path, how, _ in saved_models]
    result = subprocess.run([sys.executable, "-c", probe, json.dumps(cases)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["before"] == imported_before  # nothing else charwise-heavy until transformers looks a type up
    for path, _, model_type in saved_models:
        config_class, config_type, model_class = report["got"][path]
        # the classes this interpreter registered for the type (the pytest process imported them all)
        expected_config = CONFIG_MAPPING[model_type]
        assert config_type == model_type
        assert config_class == f"{expected_config.__module__}.{expected_config.__name__}"
        module, _, name = model_class.rpartition(".")
        loaded = getattr(importlib.import_module(module), name)
        assert issubclass(loaded, AutoModel._model_mapping[expected_config]), (path, model_class)


@pytest.mark.slow
def test_a_lookup_imports_only_the_module_of_its_type():
    code = ("import charwise, json, sys, transformers\n"
            f"transformers.AutoConfig.from_pretrained({str(SHIPPED / 'decoders' / 'minilm')!r})\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m in {sorted(set(auto.MODEL_TYPES.values()))!r})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == ["charwise.decoders.lstm"]


def test_every_charwise_config_class_is_in_the_table():
    """Each module that registers a config with AutoConfig is in charwise.auto.MODEL_TYPES, under
    the model type its config class declares."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    registering = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if re.search(r"^AutoConfig\.register\(", text, flags=re.M) or re.search(r"\(PretrainedConfig\):", text):
            registering.add(".".join(path.relative_to(SRC.parent).with_suffix("").parts))
    table = set(auto.MODEL_TYPES.values())
    assert registering == table
    auto.register()
    for model_type, module in auto.MODEL_TYPES.items():
        config_class = CONFIG_MAPPING[model_type]
        assert config_class.model_type == model_type and config_class.__module__.startswith(module)
        assert transformers.AutoModel._model_mapping[config_class].config_class is config_class


def test_install_is_idempotent_and_keeps_registered_types():
    import transformers  # noqa: F401
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    auto.register()
    auto.install()
    auto.install()
    assert all(model_type in CONFIG_MAPPING for model_type in auto.MODEL_TYPES)
    assert not CONFIG_MAPPING._extra_content.pending  # every type is registered: nothing left to import
    assert set(auto.MODEL_TYPES) <= set(CONFIG_MAPPING.keys())
    assert sum(isinstance(f, auto._AfterImport) for f in sys.meta_path) == 0


def test_pending_entries_import_on_look_up_only(tmp_path, monkeypatch):
    (tmp_path / "charwise_test_registers.py").write_text(
        "from charwise_test_table import TABLE\nTABLE['charwise-test'] = complex\n", encoding="utf-8")
    (tmp_path / "charwise_test_table.py").write_text("TABLE = None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    pending = {"charwise-test": "charwise_test_registers", "charwise-broken": "charwise_test_no_such_module"}
    try:
        import charwise_test_table

        table = auto._PendingEntries({"known": int}, {**pending, "known": "not imported: registered already"})
        charwise_test_table.TABLE = table
        assert table.pending == pending
        assert "charwise-test" in table and "charwise-broken" in table and "other" not in table
        assert table.keys() == ["known", "charwise-test", "charwise-broken"]
        assert dict(table.items()) == {"known": int}  # only registered classes: nothing imported to list them
        assert "charwise_test_registers" not in sys.modules
        assert table["charwise-test"] is complex and table.get("charwise-test") is complex
        assert "charwise-test" not in table.pending and dict(table.items()) == {"known": int, "charwise-test": complex}
        with pytest.raises(ModuleNotFoundError):
            table["charwise-broken"]
        assert "charwise-broken" in table.pending  # the next look-up shows the error again
        with pytest.raises(KeyError):
            table["other"]
    finally:
        sys.modules.pop("charwise_test_registers", None)
        sys.modules.pop("charwise_test_table", None)
