"""Losses and nearest-row retrieval against values computed by hand on tiny tensors."""

from __future__ import annotations

import math

import pytest
import torch

from charwise.errors import ConfigError
from charwise.retrieval import topk_rows
from charwise.training.losses import (
    ApproximationLoss,
    ContrastiveLoss,
    LossWeights,
    NeighbourLoss,
    TiedCrossEntropyLoss,
    cosine_distance_loss,
    l2_loss,
)


def polar(deg: float, r: float = 1.0) -> list[float]:
    return [r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg))]


# Four rows at 0, 90, 30 and 200 degrees with different norms: every pairwise cosine is
# cos(angle difference), and there are no ties between neighbours.
ANGLES = [0.0, 90.0, 30.0, 200.0]
TABLE = torch.tensor([polar(0, 2.0), polar(90, 3.0), polar(30, 0.5), polar(200, 1.0)])


def cos_deg(a: float, b: float) -> float:
    return math.cos(math.radians(a - b))


def approx(x: torch.Tensor, value: float, tol: float = 1e-5) -> None:
    assert float(x) == pytest.approx(value, abs=tol)


# --- simple losses ---------------------------------------------------------------------------------
def test_cosine_distance_docstring_example():
    approx(cosine_distance_loss(torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]])), 1.0)


def test_cosine_distance_mean_and_scale_invariance():
    pred = torch.tensor([[1.0, 0.0], [1.0, 1.0], [5.0, 0.0]])
    target = torch.tensor([[0.0, 1.0], [2.0, 2.0], [-1.0, 0.0]])
    approx(cosine_distance_loss(pred, target), (1.0 + 0.0 + 2.0) / 3)


def test_l2_docstring_example_and_mean():
    approx(l2_loss(torch.tensor([[3.0, 0.0]]), torch.tensor([[0.0, 4.0]])), 5.0)
    pred = torch.tensor([[3.0, 0.0], [1.0, 1.0]])
    target = torch.tensor([[0.0, 4.0], [1.0, 1.0]])
    approx(l2_loss(pred, target), 2.5)


# --- NeighbourLoss ---------------------------------------------------------------------------------
def test_neighbour_ids_by_hand():
    loss = NeighbourLoss(TABLE, k=2)
    # row 0 (0 deg): 30 deg (cos .87), 90 deg (0), 200 deg (-.94)       -> [2, 1]
    # row 1 (90 deg): 30 deg (.5), 0 deg (0), 200 deg (-.34)             -> [2, 0]
    # row 2 (30 deg): 0 deg (.87), 90 deg (.5), 200 deg (-.98)           -> [0, 1]
    # row 3 (200 deg): 90 deg (-.34), 0 deg (-.94), 30 deg (-.98)        -> [1, 0]
    assert loss.neighbours.tolist() == [[2, 1], [2, 0], [0, 1], [1, 0]]


def test_neighbour_loss_by_hand():
    loss = NeighbourLoss(TABLE, k=2)
    ids = torch.tensor([0, 3])
    pred = torch.tensor([polar(90, 5.0), polar(0, 0.1)])  # the norm of a prediction is irrelevant
    # id 0, neighbours rows 2 (30 deg) and 1 (90 deg), prediction at 90 deg.
    t0 = [(1 - cos_deg(0, 30)) - (1 - cos_deg(90, 30)), (1 - cos_deg(0, 90)) - (1 - cos_deg(90, 90))]
    # id 3, neighbours rows 1 (90 deg) and 0 (0 deg), prediction at 0 deg.
    t3 = [(1 - cos_deg(200, 90)) - (1 - cos_deg(0, 90)), (1 - cos_deg(200, 0)) - (1 - cos_deg(0, 0))]
    expected = sum(x * x for x in t0 + t3) / 4
    approx(loss(pred, ids), expected)


def test_neighbour_loss_is_zero_for_a_perfect_direction():
    loss = NeighbourLoss(TABLE, k=2)
    ids = torch.arange(4)
    approx(loss(TABLE[ids] * 7.0, ids), 0.0)


def test_neighbour_loss_rows_and_candidates():
    # Only rows 0 and 3 are targets; row 2 may not be a neighbour.
    loss = NeighbourLoss(TABLE, k=2, rows=torch.tensor([0, 3]), candidates=torch.tensor([True, True, False, True]))
    assert loss.neighbours.tolist() == [[1, 3], [1, 0]]
    assert loss.row_index.tolist() == [0, -1, -1, 1]
    loss(torch.randn(2, 2), torch.tensor([3, 0]))
    with pytest.raises(ValueError, match="no neighbours"):
        loss(torch.randn(1, 2), torch.tensor([1]))


def test_neighbour_loss_has_gradient():
    loss = NeighbourLoss(TABLE, k=2)
    pred = torch.randn(3, 2, requires_grad=True)
    loss(pred, torch.tensor([0, 1, 2])).backward()
    assert pred.grad is not None and pred.grad.abs().sum() > 0


# --- TiedCrossEntropyLoss --------------------------------------------------------------------------
def test_sampled_cross_entropy_is_the_softmax_over_the_batch_and_its_draw() -> None:
    torch.manual_seed(0)
    table = torch.randn(500, 8)
    ids = torch.tensor([3, 5, 3, 7])
    pred = (table[ids] + 0.1 * torch.randn(4, 8)).requires_grad_()
    loss = TiedCrossEntropyLoss(table, scale=1.0, negatives=50)
    value = loss(pred, ids)
    assert torch.equal(value, loss(pred, ids)), "the draw is a function of the batch: a resumed run repeats it"
    value.backward()
    assert pred.grad is not None and pred.grad.abs().sum() > 0
    # Rebuilt by hand: the batch's targets plus 50 drawn rows; copies of a row's own target masked.
    seed = int((ids * torch.arange(1, 5)).sum())
    drawn = torch.randint(500, (50,), generator=torch.Generator().manual_seed(seed))
    cand = torch.cat([ids, drawn])
    logits = pred.detach() @ table[cand].T
    clash = cand[None, :] == ids[:, None]
    clash[range(4), range(4)] = False
    approx(value, float(torch.nn.functional.cross_entropy(logits.masked_fill(clash, float("-inf")),
                                                          torch.arange(4))))
    # As many negatives as rows (or 0): the plain softmax over the whole table.
    full = TiedCrossEntropyLoss(table, scale=1.0)(pred.detach(), ids)
    approx(TiedCrossEntropyLoss(table, scale=1.0, negatives=500)(pred.detach(), ids), float(full))
    # Only candidate rows are drawn.
    allowed = torch.zeros(500, dtype=torch.bool)
    allowed[:10] = True
    assert set(TiedCrossEntropyLoss(table, negatives=5, candidates=allowed).pool.tolist()) == set(range(10))
    with pytest.raises(ConfigError, match="negatives"):
        TiedCrossEntropyLoss(table, negatives=-1)


def test_tied_cross_entropy_with_scale_by_hand():
    table = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    pred = torch.tensor([[1.0, 2.0]])  # dot products with the rows: 1, 2, 3
    # scale 2: logits 2, 4, 6; target row 1
    expected = -4.0 + math.log(math.exp(2) + math.exp(4) + math.exp(6))
    approx(TiedCrossEntropyLoss(table, scale=2.0)(pred, torch.tensor([1])), expected)
    expected1 = -2.0 + math.log(math.exp(1) + math.exp(2) + math.exp(3))
    approx(TiedCrossEntropyLoss(table)(pred, torch.tensor([1])), expected1)


def test_tied_cross_entropy_batch_mean():
    table = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    pred = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    ids = torch.tensor([0, 1])
    lse = math.log(math.exp(3) + 1)
    approx(TiedCrossEntropyLoss(table, scale=3.0)(pred, ids), ((lse - 3) + (lse - 0)) / 2)


# --- ContrastiveLoss -------------------------------------------------------------------------------
def test_contrastive_masks_duplicate_ids_by_hand():
    table = torch.tensor([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    ids = torch.tensor([0, 0, 1])
    pred = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    loss = ContrastiveLoss(table, neighbours=None, temperature=0.5)
    s = math.sqrt(0.5) / 0.5  # cos 45 deg / temperature
    # Candidates are the batch targets [0, 0, 1]. Row 0 and row 1 share id 0, so each one's copy
    # of the other is masked out; row 2 (id 1) sees all three.
    row0 = -2.0 + math.log(math.exp(2.0) + math.exp(0.0))  # candidates j=0 (own), j=2
    row1 = -0.0 + math.log(math.exp(0.0) + math.exp(2.0))  # candidates j=1 (own, cos 0), j=2 (cos 1)
    row2 = -s + math.log(3 * math.exp(s))
    approx(loss(pred, ids), (row0 + row1 + row2) / 3)


def test_contrastive_without_masking_would_differ():
    table = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    pred = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    loss = ContrastiveLoss(table, temperature=1.0)
    # ids identical: each row's only other candidate is masked, so the loss is exactly 0.
    approx(loss(pred, torch.tensor([0, 0])), 0.0)
    # distinct ids: an ordinary 2-way softmax
    expected = ((-1 + math.log(math.e + 1)) + (-0 + math.log(1 + math.e))) / 2
    approx(loss(pred, torch.tensor([0, 1])), expected)


def test_contrastive_hard_negatives_by_hand():
    nbr = NeighbourLoss(TABLE, k=2)  # first neighbours: row0 -> 2, row2 -> 0
    loss = ContrastiveLoss(TABLE, nbr, hard=1, temperature=1.0)
    ids = torch.tensor([0, 2])
    pred = torch.tensor([polar(10), polar(60)])
    # candidates: [0, 2] + hard [2, 0] = [0, 2, 2, 0]; row 0 masks j=3 (id 0), row 1 masks j=2 (id 2)
    l0 = [cos_deg(10, ANGLES[c]) for c in (0, 2, 2)]
    l1 = [cos_deg(60, ANGLES[c]) for c in (0, 2, 0)]
    ce0 = -l0[0] + math.log(sum(math.exp(x) for x in l0))
    ce1 = -l1[1] + math.log(sum(math.exp(x) for x in l1))
    approx(loss(pred, ids), (ce0 + ce1) / 2)


# --- ApproximationLoss -----------------------------------------------------------------------------
def test_approximation_loss_is_the_weighted_sum():
    w = LossWeights(cos=0.5, l2=2.0, nbr=3.0, ce=0.25, contrastive=1.5, ce_scale=3.0, nbr_k=2,
                    hard_negatives=1, temperature=0.2)
    loss = ApproximationLoss(TABLE, w)
    g = torch.Generator().manual_seed(0)
    pred = torch.randn(3, 2, generator=g)
    ids = torch.tensor([0, 3, 1])
    total, parts = loss(pred, ids)
    target = TABLE[ids]
    nbr = NeighbourLoss(TABLE, k=2)
    manual = {
        "cos": cosine_distance_loss(pred, target),
        "l2": l2_loss(pred, target),
        "nbr": nbr(pred, ids),
        # ce_scale is in units of the table's mean squared row norm.
        "ce": TiedCrossEntropyLoss(TABLE, scale=3.0 / float(TABLE.pow(2).sum(dim=1).mean()))(pred, ids),
        "contrastive": ContrastiveLoss(TABLE, nbr, hard=1, temperature=0.2)(pred, ids),
    }
    assert set(parts) == set(manual)
    for name, value in manual.items():
        assert parts[name] == pytest.approx(float(value), rel=1e-5, abs=1e-6), name
    expected = sum(getattr(w, name) * float(value) for name, value in manual.items())
    approx(total, expected)
    assert w.active() == {"cos": 0.5, "l2": 2.0, "nbr": 3.0, "ce": 0.25, "contrastive": 1.5}


def test_approximation_loss_disabled_terms():
    loss = ApproximationLoss(TABLE, LossWeights(cos=1.0, l2=0.0, nbr=0.0, ce=0.0, contrastive=0.0))
    assert loss.nbr is None and loss.ce is None and loss.contrastive is None
    pred = torch.tensor([polar(90)])
    total, parts = loss(pred, torch.tensor([0]))
    assert list(parts) == ["cos"]
    approx(total, 1.0)
    # Contrastive without hard negatives needs no neighbour table.
    loss = ApproximationLoss(TABLE, LossWeights(cos=0, l2=0, nbr=0, ce=0, contrastive=1.0, hard_negatives=0))
    assert loss.nbr is None
    assert list(loss(pred, torch.tensor([0]))[1]) == ["contrastive"]


def test_approximation_loss_all_zero():
    loss = ApproximationLoss(TABLE, LossWeights(cos=0, l2=0, nbr=0, ce=0, contrastive=0))
    with pytest.raises(ValueError, match="zero"):
        loss(torch.randn(1, 2), torch.tensor([0]))


def test_approximation_loss_backward():
    loss = ApproximationLoss(TABLE, LossWeights(nbr_k=2, contrastive=1.0, hard_negatives=1))
    pred = torch.randn(4, 2, requires_grad=True)
    total, _ = loss(pred, torch.arange(4))
    total.backward()
    assert torch.isfinite(pred.grad).all() and pred.grad.abs().sum() > 0


# --- topk_rows -------------------------------------------------------------------------------------
def test_topk_cosine_vs_dot():
    table = torch.tensor([[1.0, 0.0], [10.0, 10.0], [0.0, 1.0]])
    q = torch.tensor([[1.0, 0.1]])
    assert topk_rows(q, table, 1)[1].tolist() == [[0]]  # closest direction
    assert topk_rows(q, table, 1, cosine=False)[1].tolist() == [[1]]  # largest dot product
    scores, ids = topk_rows(q, table, 3, cosine=False)
    assert ids.tolist() == [[1, 0, 2]]
    torch.testing.assert_close(scores, torch.tensor([[11.0, 1.0, 0.1]]))


def test_topk_by_hand_with_candidates_and_exclude():
    q = TABLE.clone()
    # Without restrictions each row is its own best match.
    assert topk_rows(q, TABLE, 1)[1].flatten().tolist() == [0, 1, 2, 3]
    _, ids = topk_rows(q, TABLE, 2, exclude=torch.arange(4))
    assert ids.tolist() == [[2, 1], [2, 0], [0, 1], [1, 0]]
    cand = torch.tensor([True, True, False, True])
    _, ids = topk_rows(q, TABLE, 2, candidates=cand, exclude=torch.arange(4))
    assert ids.tolist() == [[1, 3], [0, 3], [0, 1], [1, 0]]
    scores, _ = topk_rows(q, TABLE, 2, candidates=cand, exclude=torch.arange(4))
    assert scores[0].tolist() == pytest.approx([cos_deg(0, 90), cos_deg(0, 200)], abs=1e-6)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 64])
def test_topk_chunking_gives_the_same_result(chunk_size):
    g = torch.Generator().manual_seed(0)
    table = torch.randn(50, 8, generator=g)
    queries = torch.randn(17, 8, generator=g)
    cand = torch.rand(50, generator=g) > 0.3
    exclude = torch.randint(0, 50, (17,), generator=g)
    full = topk_rows(queries, table, 5, candidates=cand, exclude=exclude, chunk_size=10_000)
    chunked = topk_rows(queries, table, 5, candidates=cand, exclude=exclude, chunk_size=chunk_size)
    torch.testing.assert_close(chunked[0], full[0])
    assert torch.equal(chunked[1], full[1])
    assert cand[full[1]].all()
    assert not (full[1] == exclude[:, None]).any()


def test_topk_edge_cases():
    table = torch.randn(3, 4)
    with pytest.raises(ValueError, match="dimension"):
        topk_rows(torch.randn(2, 5), table, 1)
    scores, ids = topk_rows(torch.randn(0, 4), table, 2)
    assert scores.shape == ids.shape == (0, 2) and ids.dtype == torch.long
    scores, ids = topk_rows(torch.randn(2, 4), table, 10)  # k larger than V is clamped
    assert ids.shape == (2, 3)
    assert sorted(ids[0].tolist()) == [0, 1, 2]


def test_topk_never_returns_rows_outside_candidates():
    table = torch.eye(4)
    cand = torch.tensor([True, True, False, False])
    scores, ids = topk_rows(table, table, 3, candidates=cand)
    assert cand[ids].all()
    assert torch.isfinite(scores).all()


def test_neighbour_loss_never_lists_a_row_as_its_own_neighbour():
    loss = NeighbourLoss(TABLE, k=4)
    for i, row in enumerate(loss.neighbours.tolist()):
        assert i not in row
