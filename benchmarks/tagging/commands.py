"""The commands that wrote the tagging results, each joined from several runs (``benchmarks/tagging/tagging.py``
records none in the JSON): what ``make_results`` shows under each result (:func:`tagging_commands`)."""

from __future__ import annotations

COMMANDS: dict[str, list[str]] = {
    "tagging": [
        "python -m benchmarks.tagging.tagging --epochs 1 --train-sentences 2000 --dev-sentences 400 --lr 1e-4 \\",
        "    --threads 1 --budget-minutes 95    # resumes: runs what the JSON does not have yet",
        "# the second core: another invocation with its own JSON, joined afterwards",
        "python -m benchmarks.tagging.tagging --epochs 1 --train-sentences 2000 --dev-sentences 400 --lr 1e-4 \\",
        "    --threads 1 --settings chars-concat s2w+chars --json runs/fusion.json",
        "python -m benchmarks.tagging.tagging --merge runs/fusion.json",
    ],
    "tagging_full": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first hybrid-oov chars-concat --seeds 0 \\",  # noqa: E501
        "    --json runs/full_s0.json --work runs/tagging_full        # and --seeds 1 on the other core",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_full.json --seeds 0 1 \\",
        "    --merge runs/full_s0.json runs/full_s1.json",
    ],
    "tagging_full_v2": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings hybrid-oov chars-concat --seeds 0 \\",
        "    --json runs/v2_s0.json --work runs/tagging_v2        # and --seeds 1 on the other core",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_full_v2.json --seeds 0 1 \\",
        "    --merge runs/v2_s0.json runs/v2_s1.json",
    ],
    "tagging_2pt": [
        "python -m benchmarks.hybrid.pretraining --run runs/2pt/full --train --mode full --steps 800",
        "python -m benchmarks.tagging.tagging --teacher runs/2pt/full/model --tasks wnut17 --settings hybrid-oov --seeds 0 \\",  # noqa: E501
        "    --json runs/2pt/wnut_a.json --work runs/2pt/tag_a     # --seeds 1 and --settings base-first alongside",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_2pt.json --seeds 0 1 \\",
        "    --merge runs/2pt/wnut_a.json runs/2pt/wnut_s1.json runs/2pt/wnut_b.json",
    ],
    "tagging_2pt_ewt": [
        "python -m benchmarks.tagging.tagging --teacher runs/2pt/full/model --tasks ewt-upos --settings hybrid-oov --seeds 0 \\",  # noqa: E501
        "    --epochs 1 --json benchmarks/results/tagging_2pt_ewt.json --work runs/2pt/tag_a",
    ],
    "tagging_repair": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 1 --epochs 5 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair.json",
    ],
    "tagging_repair_normalise": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 --epochs 5 \\",
        "    --test-policies repair repair-normalise --json benchmarks/results/tagging_repair_normalise.json",
    ],
    "tagging_repair_protected": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 --epochs 5 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair_protected.json --work runs/tagging_prot",
    ],
    "tagging_repair_normalise_ewt": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 --epochs 1 \\",
        "    --test-policies repair repair-normalise --json benchmarks/results/tagging_repair_normalise_ewt.json",
    ],
    "tagging_repair_ewt": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 1 --epochs 1 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair_ewt.json",
    ],
    "tagging_repair_oov": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 --epochs 5 \\",
        "    --test-policies repair repair+oov --json benchmarks/results/tagging_repair_oov.json --threads 1",
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 1 --epochs 5 \\",
        "    --test-policies repair repair+oov --json benchmarks/results/tagging_repair_oov.json --threads 1",
    ],
    "tagging_repair_oov_ewt": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 1 --epochs 1 \\",
        "    --test-policies repair repair+oov --json benchmarks/results/tagging_repair_oov_ewt.json --threads 1",
    ],
    "tagging_ewt_full": [
        "python -m benchmarks.tagging.tagging --tasks ewt-upos --settings base-first --seeds 0 1 2 --epochs 1 \\",
        "    --json runs/ewt_base.json         # and --settings s2w+chars --json runs/ewt_chars.json alongside",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_ewt_full.json \\",
        "    --merge runs/ewt_base.json runs/ewt_chars.json",
    ],
    "tagging_repair_context": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 --epochs 5 \\",
        "    --test-policies repair --json benchmarks/results/tagging_repair_context.json --work runs/tagging_ctx",
    ],
    "tagging_oov_trained": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first repair+oov-first --seeds 0 \\",
        "    --epochs 5 --test-policies repair repair+oov --threads 1 \\",
        "    --json benchmarks/results/tagging_oov_trained.json",
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings repair+oov-first --seeds 1 --epochs 5 \\",
        "    --test-policies repair repair+oov --json runs/tagging_oov_trained_s1.json --threads 1",
        "python -m benchmarks.tagging.tagging --json benchmarks/results/tagging_oov_trained.json \\",
        "    --merge runs/tagging_oov_trained_s1.json --seeds 0 1",
    ],
    "tagging_spare_names": [
        "python -m benchmarks.tagging.tagging --tasks wnut17 --settings base-first --seeds 0 1 --epochs 5 \\",
        "    --test-policies repair repair+oov repair+oov-lower --threads 1 \\",
        "    --json benchmarks/results/tagging_spare_names.json --work runs/tagging_spare",
    ],
}


def tagging_commands(stem: str, data: object) -> list[str]:
    """The command lines that regenerate the result ``stem`` (empty when none are recorded here)."""
    return list(COMMANDS.get(stem, []))
