"""The spelling suite's sets: which files, which role, other people's figures, and reading them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from benchmarks.common.paths import SPELLING_DATA

SYSTEMS = ("charwise", "SymSpell", "pyspellchecker")


BLOCK = 256  # words per suggest() call when timing


# name: (language, file under the data folder, role)
WORD_SETS: dict[str, tuple[str, str, str]] = {
    "norvig_testset1": ("en", "norvig_spell_testsets/pairs_testset1.tsv", "development"),
    "norvig_testset2": ("en", "norvig_spell_testsets/pairs_testset2.tsv", "test"),
    "aspell": ("en", "aspell_norvig/pairs.tsv", "test"),
    "birkbeck": ("en", "birkbeck_missp/pairs.tsv", "test"),
    "toefl_spell": ("en", "toefl_spell/pairs.tsv", "test"),
    "symspell_noisy_query_1000": ("en", "symspell_noisy_query_1000/pairs.tsv", "test"),
    "jfleg_pairs": ("en", "neuspell_jfleg_spelling/pairs.tsv", "test"),
    "dl_typo_pairs": ("en", "characterbert_dl_typo/pairs.tsv", "test"),
    "wikipedia_es": ("es", "wikipedia_es_languagetool/pairs.tsv", "test"),
    "tweetnorm_es_dev": ("es", "tweetnorm_es/pairs_dev.tsv", "development"),
    "tweetnorm_es_test": ("es", "tweetnorm_es/pairs_test.tsv", "test"),
}


ALL_FORMS = {"tweetnorm_es_test": "tweetnorm_es/pairs_test_all_forms.tsv"}  # gold alternatives joined by |


SENTENCE_SETS: dict[str, tuple[str, str, str]] = {
    "jfleg_sentences": ("en", "neuspell_jfleg_spelling/sentences.tsv", "test"),
    "dl_typo_queries": ("en", "characterbert_dl_typo/sentences.tsv", "test"),
    "tweetnorm_es_dev_tweets": ("es", "tweetnorm_es/sentences_dev.tsv", "development"),
    "tweetnorm_es_test_tweets": ("es", "tweetnorm_es/sentences_test.tsv", "test"),
}


# Other people's figures (never computed here). "same_data": on these very pairs/sentences.
PUBLISHED: dict[str, list[dict[str, Any]]] = {
    "norvig_testset1": [{"system": "Norvig spell.py (big.txt)", "metric": "fixed", "value": 75.0, "same_data": True,
                         "source": "norvig.com/spell-correct.html output: 75% of 270 correct (6% unknown)"}],
    "norvig_testset2": [{"system": "Norvig spell.py (big.txt)", "metric": "fixed", "value": 68.0, "same_data": True,
                         "source": "norvig.com/spell-correct.html output: 68% of 400 correct (11% unknown)"}],
    "aspell": [{"system": "Norvig spell.py", "metric": "fixed", "value": 43.0, "same_data": True,
                "source": "spell.py output quoted in third-party READMEs: 43% of 531 correct (23% unknown)"}],
    "birkbeck": [{"system": "Norvig spell.py", "metric": "fixed", "value": 31.0, "same_data": True,
                  "source": "third-party README (Kaggle birkbeck.txt version): 31% of 36133 correct (11% unknown)"}],
    "toefl_spell": [{"system": "Flor et al. 2019 context-aware model (in context, with the essays)",
                     "metric": "accuracy", "value": 88.12, "same_data": False,
                     "source": "BEA 2019 W19-4407 abstract; uses essay context, not isolated words"}],
    "dl_typo_queries": [
        {"system": "Bing Spell Check API (authors' shipped output)", "metric": "exact queries", "value": 58,
         "of": 60, "same_data": True, "source": "computed from ielab/CharacterBERT-DR query.typo.ms.tsv (SOURCE.md)"},
        {"system": "pyspellchecker (authors' shipped output)", "metric": "exact queries", "value": 27, "of": 60,
         "same_data": True, "source": "computed from ielab/CharacterBERT-DR query.typo.py.tsv (SOURCE.md)"}],
    "jfleg_sentences": [
        {"system": "SymSpell, suggestion 1 per token (project issue)", "metric": "correction rate / damage",
         "value": 67.3, "damage": 0.437, "same_data": True, "source": "reported in the project's issue, same protocol"},
        {"system": "Aspell (NeuSpell README)", "metric": "correction rate", "value": 48.7, "same_data": False,
         "source": "NeuSpell README, BEA-60K (not these sentences)"},
        {"system": "JamSpell (NeuSpell README)", "metric": "correction rate", "value": 68.9, "same_data": False,
         "source": "NeuSpell README, BEA-60K"},
        {"system": "BERT (NeuSpell README)", "metric": "correction rate / damage", "value": 79.1, "damage": 2.2,
         "same_data": False, "source": "NeuSpell README, BEA-60K (word accuracy 96.58 %)"},
        {"system": "SC-LSTM + ELMo (NeuSpell README)", "metric": "correction rate", "value": 79.8,
         "same_data": False, "source": "NeuSpell README, BEA-60K"}],
}


# BASELINES.md (2026-11-25): SymSpell, the same protocol, an earlier run: (top1, top10)
BASELINES_MD = {"norvig_testset1": (74.4, 94.8), "norvig_testset2": (73.5, 92.0), "aspell": (51.2, 74.6),
                "toefl_spell": (73.7, 87.8), "jfleg_pairs": (69.0, 96.7), "dl_typo_pairs": (58.3, 91.7),
                "birkbeck": (33.3, 50.4), "symspell_noisy_query_1000": (57.0, 75.1)}


def default_data() -> Path:
    return SPELLING_DATA


def read_tsv(path: Path) -> list[tuple[str, str]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < 2:
            raise SystemExit(f"{path}:{n}: expected two tab-separated columns")
        rows.append((cells[0], cells[1]))
    return rows


def sample(n: int, limit: int | None, seed: int) -> list[int]:
    """Indices of the items to run: all, or a seeded sample of ``limit`` (in file order)."""
    if limit is None or limit >= n:
        return list(range(n))
    return sorted(random.Random(seed).sample(range(n), limit))


# --- the run -------------------------------------------------------------------------------------
def load_items(data: Path, name: str, limit: int | None, seed: int) -> tuple[list[Any], list[int], int]:
    language, rel, _ = WORD_SETS.get(name) or SENTENCE_SETS[name]
    rows = read_tsv(data / rel)
    idx = sample(len(rows), limit, seed)
    if name in SENTENCE_SETS:
        return [rows[i] for i in idx], idx, len(rows)
    forms = None
    if name in ALL_FORMS:
        forms = read_tsv(data / ALL_FORMS[name])
        if [w for w, _ in forms] != [w for w, _ in rows]:
            raise SystemExit(f"{ALL_FORMS[name]} does not list the words of {rel} in order")
    items = []
    for i in idx:
        written, gold = rows[i]
        alternatives = forms[i][1].split("|") if forms else [gold]
        items.append((written.strip(), [g.strip().lower() for g in alternatives]))
    return items, idx, len(rows)
