"""Loading a :class:`~charwise.speller.Speller` (:meth:`Speller.load <charwise.speller.Speller.load>`
calls :func:`load_speller`): the shipped scorer, encoder and lexicon of a language, or those given,
with the global random generators left as they were."""

from __future__ import annotations

import contextlib
import os
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from charwise.errors import ConfigError
from charwise.languages import check_language
from charwise.speller.lexicon import Lexicon
from charwise.speller.scoring import ScorerArrays

if TYPE_CHECKING:
    from charwise.speller.settings import SpellerSettings
    from charwise.speller.speller import Speller
    from charwise.speller.vectors import WordEncoder

SHIPPED_SCORERS = {"en": "speller-minilm-en", "es": "speller-e5-es"}


def load_speller(cls: type[Speller], language: str, encoder: str | WordEncoder | None,
                 scorer: str | os.PathLike | None, lexicon: Lexicon | None, word_files: tuple[str | os.PathLike, ...],
                 settings: SpellerSettings | None, context: str | None, device: str | None,
                 precision: str) -> Speller:
    """:meth:`Speller.load <charwise.speller.Speller.load>` (its docstring says what each argument is)."""
    if context not in (None, "ngram"):
        from charwise.speller.neural import check_context

        check_context(context, language, precision)  # before the slow part
    python_state, numpy_state = random.getstate(), np.random.get_state()
    # torch's generator can only be in use if torch is imported already
    torch: Any = sys.modules.get("torch")
    with torch.random.fork_rng(devices=[]) if torch is not None else contextlib.nullcontext():
        try:
            speller = _parts(cls, language, encoder, scorer, lexicon, word_files, settings)
            if context not in (None, "ngram"):
                from charwise.speller.neural import load_context_model

                speller.context_model = load_context_model(context, language, device=device, precision=precision)
            return speller
        finally:
            random.setstate(python_state)
            np.random.set_state(numpy_state)


def _parts(cls: type[Speller], language: str, encoder: str | WordEncoder | None, scorer: str | os.PathLike | None,
           lexicon: Lexicon | None, word_files: tuple[str | os.PathLike, ...],
           settings: SpellerSettings | None) -> Speller:
    from charwise.encoders.shipped import SHIPPED_DIR, load_for_inference

    check_language(language)
    scorer_path = Path(scorer) if scorer is not None else SHIPPED_DIR / SHIPPED_SCORERS[language]
    model = ScorerArrays.from_pretrained(scorer_path)
    if encoder is None:
        encoder = model.config.encoder
    char_encoder = load_for_inference(encoder) if isinstance(encoder, (str, os.PathLike)) else encoder
    teacher_name = char_encoder.teacher_info.get("name")
    if lexicon is None:
        lexicon = Lexicon.build(language, teacher=teacher_name, word_files=word_files)
    elif word_files:
        raise ConfigError("give word_files to Lexicon.build, not beside a lexicon that is already built")
    return cls(lexicon, char_encoder, model, settings)
