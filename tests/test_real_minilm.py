"""Integration on the real MiniLM weights: training beats the piece-mean baseline, and the shipped
encoder puts misspelled and unseen words next to the right words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import charwise
from charwise.encoders.shipped import SHIPPED_DIR
from charwise.evaluation import evaluate
from charwise.retrieval import topk_rows
from charwise.training.approximation import TrainConfig, Trainer
from charwise.training.losses import LossWeights

pytestmark = pytest.mark.real


@pytest.mark.slow
def test_short_training_beats_the_baseline_on_heldin_words(tmp_path, real_minilm):
    # 2,000 training rows and 300 steps: about a minute on 2 cores.
    config = TrainConfig(teacher="minilm", preset="wide", steps=300, batch_size=128, lr=3e-3, warmup_steps=30,
                         eval_every=300, eval_words=200, train_rows_limit=2000, noise_ratio=0.5,
                         losses=LossWeights())
    trainer = Trainer(config, tmp_path, teacher=real_minilm, progress=False)
    encoder = trainer.train()
    heldin = trainer.split.heldin_words[:400]
    report = evaluate(encoder, real_minilm, heldin, trainer.split.heldout_words[:50], noise_words=200)
    ours, base = report["noise"]["mean"], report["baseline"]["noise"]["mean"]
    assert ours["top1"] > base["top1"] + 0.1, (ours, base)
    assert ours["top10"] > base["top10"] + 0.1, (ours, base)
    assert report["heldin"]["accuracy"] > 0.5
    assert report["heldin"]["cosine"] > 0.2


@pytest.fixture(scope="module")
def shipped():
    if not (SHIPPED_DIR / "minilm" / "config.json").exists():
        pytest.fail("the shipped MiniLM encoder is missing from the package")
    return charwise.load("minilm")


def neighbours(encoder, words: list[str], k: int) -> list[list[str]]:
    teacher = encoder.teacher
    _, ids = topk_rows(encoder.embed(words), teacher.embeddings, k, candidates=teacher.normal_mask)
    return [[teacher.vocab.tokens[i] for i in row] for row in ids.tolist()]


def test_shipped_encoder_matches_its_teacher(shipped, real_minilm):
    assert shipped.teacher.vocab_hash == real_minilm.vocab_hash
    assert shipped.dim == 384
    assert shipped.num_parameters() <= 0.2 * real_minilm.embeddings.numel()
    size = sum(p.stat().st_size for p in (SHIPPED_DIR / "minilm").iterdir())
    assert size <= 10 * 2**20


# Common English misspellings (hand-made examples for a test, not a benchmark).
MISSPELLINGS = [
    ("recieve", "receive"), ("goverment", "government"), ("beautifull", "beautiful"), ("definately", "definitely"),
    ("occured", "occurred"), ("seperate", "separate"), ("untill", "until"), ("wierd", "weird"),
    ("tommorow", "tomorrow"), ("accomodate", "accommodate"), ("begining", "beginning"), ("beleive", "believe"),
    ("calender", "calendar"), ("enviroment", "environment"), ("existance", "existence"), ("foriegn", "foreign"),
    ("freind", "friend"), ("grammer", "grammar"), ("happend", "happened"), ("independant", "independent"),
    ("knowlege", "knowledge"), ("libary", "library"), ("neccessary", "necessary"), ("occassion", "occasion"),
    ("publically", "publicly"), ("recomend", "recommend"), ("succesful", "successful"), ("truely", "truly"),
    ("wich", "which"), ("writting", "writing"),
]


def test_shipped_encoder_repairs_typos(shipped):
    from charwise.evaluation import piece_mean_vectors

    teacher = shipped.teacher
    found = neighbours(shipped, ["bsusinessses", "BUSINESS"], 10)
    assert found[1][0] == "business"
    assert {"business", "businesses"} & set(found[0][:3])

    typos, intended = zip(*MISSPELLINGS)
    words = teacher.normal_mask & teacher.word_start_mask
    target = torch.tensor(teacher.tokenizer.convert_tokens_to_ids(list(intended)))

    def hits(vectors: torch.Tensor) -> tuple[int, int]:
        _, ids = topk_rows(vectors, teacher.embeddings, 10, candidates=words)
        match = ids == target[:, None]
        return int(match[:, 0].sum()), int(match.any(dim=1).sum())

    top1, top10 = hits(shipped.embed(list(typos)))
    base1, base10 = hits(piece_mean_vectors(teacher, list(typos)))
    assert top1 >= 20 and top10 >= 25, (top1, top10)
    assert top1 >= base1 + 15, (top1, base1)


def test_shipped_vectors_live_in_the_teacher_space(shipped, real_minilm):
    words = ["house", "river", "computer", "music"]
    ids = torch.tensor(real_minilm.tokenizer.convert_tokens_to_ids(words))
    cos = torch.nn.functional.cosine_similarity(shipped.embed(words), real_minilm.embeddings[ids], dim=-1)
    assert (cos > 0.3).all(), cos


def test_shipped_eval_report_is_committed():
    results = Path(__file__).parent.parent / "benchmarks" / "results" / "approximation_minilm.json"
    data = json.loads(results.read_text())
    assert data["command"].startswith("charwise train")
    for split in ("heldin", "heldout"):
        assert {"accuracy", "prec@1", "prec@5", "prec@15", "avg_prec", "cosine"} <= set(data["report"][split])
