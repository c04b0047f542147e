"""The reports ``charwise eval`` writes (no benchmark script): what they hold, and how to make them again."""

from __future__ import annotations

from benchmarks.approximation.render import eval_commands as commands
from benchmarks.approximation.render import eval_describe as describe
from benchmarks.approximation.render import render_eval as render

WRITES = ("eval",)
PAGE = {"eval": "approximation.md", "eval_e5": "multilingual.md"}
COMMANDS: dict[str, list[str]] = {
    "eval_e5": [
        "charwise eval e5-multilingual --max-words 2000 --json benchmarks/results/eval_e5.json",
    ],
    "eval_e5_es": [
        "cut -f2 src/charwise/data/bible_es_en/bible.es-en.tsv | tail -n +2 > runs/bible_es.txt",
        "charwise eval e5-multilingual --words-from runs/bible_es.txt --max-words 2000 \\",
        "    --json benchmarks/results/eval_e5_es.json",
    ],
    "eval_smollm2_v2": [
        "charwise eval runs/v2/src/charwise/pretrained/smollm2 --json benchmarks/results/eval_smollm2_v2.json",
    ],
    "eval_e5_en": [
        "cut -f3 src/charwise/data/bible_es_en/bible.es-en.tsv | tail -n +2 > runs/bible_en.txt",
        "charwise eval e5-multilingual --words-from runs/bible_en.txt --max-words 2000 \\",
        "    --json benchmarks/results/eval_e5_en.json",
    ],
}
BEFORE: dict[str, list[str]] = {
    "eval_minilm_v1": [
        "mkdir -p runs/v1",
        "git archive 3714bfe src/charwise/pretrained | tar -x -C runs/v1    # the v1 encoders (charwise 0.2)",
    ],
    "eval_smollm2_v1": [
        "mkdir -p runs/v1",
        "git archive 3714bfe src/charwise/pretrained | tar -x -C runs/v1    # the v1 encoders (charwise 0.2)",
    ],
    "eval_smollm2_v2": [
        "mkdir -p runs/v2",
        "git archive 746b787 src/charwise/pretrained | tar -x -C runs/v2    # SmolLM2's v2 encoder",
    ],
}

__all__ = ["commands", "describe", "render"]
