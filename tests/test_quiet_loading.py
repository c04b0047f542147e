"""Loading a model prints nothing: transformers 5 draws a "Loading weights" bar in every
``from_pretrained`` (and the GGUF reader one of its own); charwise's loads switch them off, and
leave transformers' own setting as it was."""

from __future__ import annotations

import pytest
from transformers.utils import logging as hf_logging

from charwise.teachers import Teacher


@pytest.fixture
def bars_on():
    """transformers' progress bars switched on, as in a fresh Python session."""
    was = hf_logging.is_progress_bar_enabled()
    hf_logging.enable_progress_bar()
    yield
    if not was:
        hf_logging.disable_progress_bar()


def test_loading_a_model_directory_prints_nothing(tiny_bert_dir, bars_on, capfd):
    capfd.readouterr()
    teacher = Teacher.load(str(tiny_bert_dir))
    assert teacher.model is not None
    out, err = capfd.readouterr()
    assert "Loading weights" not in err and (out, err) == ("", "")
    assert hf_logging.is_progress_bar_enabled()  # the user's setting is left as it was


@pytest.mark.real
def test_loading_the_shipped_models_prints_nothing(bars_on, capfd):
    import charwise
    from charwise.speller.scorer import SpellScorer
    from charwise.speller.speller import SHIPPED_SCORERS

    capfd.readouterr()
    encoder = charwise.load("minilm")
    assert encoder.teacher.model is not None  # the teacher's full HF model too
    from charwise.encoders.shipped import SHIPPED_DIR

    SpellScorer.from_pretrained(SHIPPED_DIR / SHIPPED_SCORERS["en"])
    assert capfd.readouterr() == ("", "")
    assert hf_logging.is_progress_bar_enabled()


@pytest.mark.real
@pytest.mark.slow
def test_loading_a_gguf_teacher_prints_nothing(smollm2_gguf, bars_on, capfd):
    capfd.readouterr()
    assert Teacher.load(str(smollm2_gguf)).model is not None
    out, err = capfd.readouterr()
    # on a fresh cache, charwise's own two lines say the file is read once and kept (charwise.cache.building)
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith("charwise: buil"))
    assert "GGUF" not in err and "Loading weights" not in err and (out, err) == ("", "")
