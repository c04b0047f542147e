"""The packed layout both causal-LM scorers share (:mod:`charwise.hybrid.packing`): the mask, the
positions and the picks it builds, the mask each attention implementation reads, and a packed
pass scoring every segment as it scores alone after its prefix."""

from __future__ import annotations

import pytest
import torch

from charwise.errors import ConfigError
from charwise.hybrid.packing import PackedRow, Segment, attention_mask, pack, pick_log_probs


def test_the_layout_of_a_context_and_two_segments():
    # context of 3 (tokens 7 8 9, its last two scored); segment A sees 2 context positions and feeds 2;
    # segment B sees all 3, feeds 1 and scores 2 (its last target has no position of its own)
    layout = pack([PackedRow(3, [Segment(2, 2, [4, 5]), Segment(3, 1, [6, 7])], [8, 9]), PackedRow(1)])
    assert layout.width == 6 and layout.starts == [[3, 5], []]
    expected = torch.tensor([
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [1, 1, 0, 1, 0, 0],  # A sees context [0, 2) and itself
        [1, 1, 0, 1, 1, 0],
        [1, 1, 1, 0, 0, 1],  # B sees context [0, 3) and itself, not A
    ], dtype=torch.bool)
    assert torch.equal(layout.allowed[0], expected)
    assert torch.equal(layout.allowed[1], torch.eye(6, dtype=torch.bool))  # padding attends to itself only
    assert layout.position_ids.tolist() == [[0, 1, 2, 2, 3, 3], [0, 0, 0, 0, 0, 0]]
    assert layout.rows.tolist() == [0] * 6
    assert layout.columns.tolist() == [0, 1, 1, 3, 2, 5]
    assert layout.tokens.tolist() == [8, 9, 4, 5, 6, 7]
    assert layout.owners == [(0, -1), (0, -1), (0, 0), (0, 0), (0, 1), (0, 1)]


@pytest.mark.parametrize("row", [PackedRow(2, [Segment(3, 1, [1])]), PackedRow(2, [Segment(1, 1, [1, 2, 3])]),
                                 PackedRow(2, [Segment(0, 1, [1])]), PackedRow(2, (), [1, 2])])
def test_impossible_layouts_are_refused(row):
    with pytest.raises(ValueError):
        pack([row])


def test_the_mask_follows_the_attention_implementation(tiny_llama_teacher):
    config = tiny_llama_teacher.model.config
    allowed = pack([PackedRow(2, [Segment(1, 2, [1, 2])])]).allowed
    saved = config._attn_implementation
    try:
        config._attn_implementation = "sdpa"
        assert torch.equal(attention_mask(tiny_llama_teacher.model, allowed, torch.float32), allowed[:, None])
        config._attn_implementation = "eager"
        additive = attention_mask(tiny_llama_teacher.model, allowed, torch.float16)
        assert additive.dtype == torch.float16 and torch.equal(additive == 0, allowed[:, None])
        assert float(additive.min()) == torch.finfo(torch.float16).min
        config._attn_implementation = "flash_attention_2"
        with pytest.raises(ConfigError, match="'sdpa' or 'eager'"):
            attention_mask(tiny_llama_teacher.model, allowed, torch.float32)
    finally:
        config._attn_implementation = saved


@pytest.mark.parametrize("implementation", ["sdpa", "eager"])
def test_a_packed_pass_scores_each_segment_as_alone(tiny_llama_teacher, implementation):
    model = tiny_llama_teacher.model
    saved = model.config._attn_implementation
    context = [5, 17, 230, 41]
    continuations = [(2, [99, 100, 101]), (4, [7]), (4, [3, 1000]), (1, [12, 13])]
    rows = [PackedRow(len(context), [Segment(p, len(t) - 1, t) for p, t in continuations])]
    layout = pack(rows)
    input_ids = torch.zeros(layout.position_ids.shape, dtype=torch.long)
    input_ids[0, : len(context)] = torch.tensor(context)
    for (_, tokens), at in zip(continuations, layout.starts[0]):
        input_ids[0, at : at + len(tokens) - 1] = torch.tensor(tokens[:-1])
    try:
        model.config._attn_implementation = implementation
        with torch.inference_mode():
            packed, hits = pick_log_probs(model, layout, input_ids=input_ids)
            offset = 0
            for p, tokens in continuations:  # each continuation read alone after its prefix
                ids = torch.tensor([context[:p] + tokens])
                logp = torch.log_softmax(model(input_ids=ids).logits[0, p - 1 : -1].float(), dim=-1)
                alone = logp[torch.arange(len(tokens)), torch.tensor(tokens)]
                assert packed[offset : offset + len(tokens)].tolist() == pytest.approx(alone.tolist(), abs=1e-5)
                assert torch.equal(hits[offset : offset + len(tokens)], logp.argmax(-1) == torch.tensor(tokens))
                offset += len(tokens)
            without, no_hits = pick_log_probs(model, layout, input_ids=input_ids, hits=False)
            assert torch.equal(without, packed) and no_hits.numel() == 0  # the same values, no arg-max
    finally:
        model.config._attn_implementation = saved
    with pytest.raises(ValueError, match="input_ids or inputs_embeds"):
        pick_log_probs(model, layout)
