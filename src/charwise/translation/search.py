"""Decoding: greedy and beam search (batched; fairseq's length normalisation), and sentence translation.

Beam search keeps ``beam`` live hypotheses per sentence; a hypothesis that ends with ``</s>``
among the best ``beam`` candidates of a step is finished with score ``log p / length **
length_penalty``; a sentence is done when it has ``beam`` finished hypotheses and no live one
scores better at its present length (or at ``max_length``). ``beam=1`` is greedy decoding. Decoding is incremental
(:meth:`~charwise.translation.model.TranslationModel.decode_step`): one new position per step.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Sequence

import torch

from charwise.presets import TRANSLATION_BEAM, TRANSLATION_LENGTH_PENALTY
from charwise.translation.data import BOS, EOS, source_words
from charwise.translation.inputs import SourceBatch, SourceReader

if TYPE_CHECKING:
    from charwise.translation.model import TranslationModel

__all__ = ["beam_search", "greedy", "translate_sentences"]


def _max_length(batch: SourceBatch, model: TranslationModel, max_length: int | None) -> int:
    limit = model.config.max_positions - 1
    if max_length is not None:
        return min(max_length, limit)
    return min(int(batch.pieces.shape[1] * 1.5) + 10, limit)


def greedy(model: TranslationModel, batch: SourceBatch, max_length: int | None = None) -> list[list[int]]:
    """The most likely next piece at every step, until ``</s>``: target ids without ``<s>``/``</s>``."""
    with _evaluating(model):
        return _greedy(model, batch, max_length)


@torch.no_grad()
def _greedy(model: TranslationModel, batch: SourceBatch, max_length: int | None) -> list[list[int]]:
    device = model.target_embedding.weight.device
    memory = model.encode(batch.to(device))
    n = batch.pieces.shape[0]
    out = torch.full((n, 1), BOS, dtype=torch.long, device=device)
    done = torch.zeros(n, dtype=torch.bool, device=device)
    cache = model.start_decoding(memory)
    for _ in range(_max_length(batch, model, max_length)):
        token = model.decode_step(out[:, -1], cache).argmax(-1)
        token = torch.where(done, torch.full_like(token, EOS), token)
        out = torch.cat([out, token[:, None]], dim=1)
        done |= token == EOS
        if bool(done.all()):
            break
    return [_strip(row) for row in out[:, 1:].tolist()]


@contextmanager
def _evaluating(model: TranslationModel) -> Iterator[None]:
    """Decode in eval mode (no dropout; incremental decoding needs it), then restore the mode."""
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def _strip(ids: list[int]) -> list[int]:
    return ids[: ids.index(EOS)] if EOS in ids else ids


def beam_search(model: TranslationModel, batch: SourceBatch, beam: int = TRANSLATION_BEAM,
                length_penalty: float = TRANSLATION_LENGTH_PENALTY,
                max_length: int | None = None) -> list[list[int]]:
    """The best finished hypothesis of each sentence (see the module docstring)."""
    if beam < 1:
        raise ValueError(f"beam must be >= 1, got {beam}")
    with _evaluating(model):
        return _greedy(model, batch, max_length) if beam == 1 else _beam(model, batch, beam, length_penalty,
                                                                         max_length)


@torch.no_grad()
def _beam(model: TranslationModel, batch: SourceBatch, beam: int, length_penalty: float,
          max_length: int | None) -> list[list[int]]:
    device = model.target_embedding.weight.device
    n = batch.pieces.shape[0]
    memory = model.encode(batch.to(device)).select(torch.arange(n, device=device).repeat_interleave(beam))
    seqs = torch.full((n * beam, 1), BOS, dtype=torch.long, device=device)
    scores = torch.full((n, beam), float("-inf"), device=device)
    scores[:, 0] = 0.0  # one live hypothesis at the start
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(n)]
    live = [True] * n
    limit = _max_length(batch, model, max_length)
    cache = model.start_decoding(memory)
    for step in range(limit):
        logp = torch.log_softmax(model.decode_step(seqs[:, -1], cache).float(), dim=-1)  # (n * beam, V)
        if step == 0:
            logp[:, EOS] = float("-inf")  # no empty translation
        vocab = logp.shape[-1]
        total = (scores.view(-1, 1) + logp).view(n, beam * vocab)
        top_scores, top_index = total.topk(min(2 * beam, beam * vocab), dim=1)
        next_rows, next_tokens, next_scores = [], [], []
        for i in range(n):
            chosen: list[tuple[int, int, float]] = []
            if live[i]:
                for rank, (score, index) in enumerate(zip(top_scores[i].tolist(), top_index[i].tolist())):
                    if score == float("-inf"):
                        break
                    row, token = divmod(index, vocab)
                    if token == EOS:
                        if rank < beam:  # as fairseq: only an end among the best ``beam`` finishes
                            prefix = seqs[i * beam + row, 1:].tolist()
                            finished[i].append((score / (len(prefix) + 1) ** length_penalty, prefix))
                    else:
                        chosen.append((row, token, score))
                        if len(chosen) == beam:
                            break
                done = step == limit - 1
                if len(finished[i]) >= beam:
                    # Stop once no live hypothesis beats the best finished one at its present length.
                    best_live = max((score for _, _, score in chosen), default=float("-inf"))
                    done = done or best_live / (step + 2) ** length_penalty <= max(f[0] for f in finished[i])
                if done:
                    live[i] = False
                    if not finished[i]:  # out of length with nothing finished: the live ones end here
                        for row, token, score in chosen:
                            prefix = [*seqs[i * beam + row, 1:].tolist(), token]
                            finished[i].append((score / (len(prefix) + 1) ** length_penalty, prefix))
            while len(chosen) < beam:  # keep the grid full: dead rows score -inf
                chosen.append((0, EOS, float("-inf")))
            for row, token, score in chosen:
                next_rows.append(i * beam + row)
                next_tokens.append(token)
                next_scores.append(score if live[i] else float("-inf"))
        if not any(live):
            break
        rows = torch.tensor(next_rows, device=device)
        seqs = torch.cat([seqs[rows], torch.tensor(next_tokens, device=device)[:, None]], dim=1)
        for layer_cache in cache:  # each hypothesis continues from its parent's states; the memory
            layer_cache.self_keys = layer_cache.self_keys[rows]  # side needs no reordering: a parent
            layer_cache.self_values = layer_cache.self_values[rows]  # is always of the same sentence
        scores = torch.tensor(next_scores, device=device).view(n, beam)
    return [max(f, key=lambda h: h[0])[1] if f else [] for f in finished]


def _chunks(items: Sequence[int], size: int) -> Iterator[list[int]]:
    for at in range(0, len(items), size):
        yield list(items[at : at + size])


def translate_sentences(model: TranslationModel, sentences: Sequence[str], beam: int = TRANSLATION_BEAM,
                        length_penalty: float = TRANSLATION_LENGTH_PENALTY, batch_size: int = 32,
                        progress: bool | str = False) -> list[str]:
    """Translate ``sentences`` (source text); sentences of similar length are batched together.
    ``progress``: a ``--progress`` mode (True: auto, False: none)."""
    if model.target_subwords is None:
        raise ValueError("the model has no target vocabulary (load it with from_pretrained)")
    reader = SourceReader.for_model(model)
    model.eval()
    words = [source_words(s) for s in sentences]
    order = sorted((i for i, w in enumerate(words) if w), key=lambda i: len(words[i]))
    out = [""] * len(sentences)
    from charwise.cli.progress import Progress, mode_of

    bar = Progress("translate", "sentences", len(order), mode_of(progress))
    for chunk in _chunks(order, batch_size):
        batch = reader.batch([reader.example(words[i]) for i in chunk])
        ids = greedy(model, batch) if beam == 1 else beam_search(model, batch, beam, length_penalty)
        for i, hyp in zip(chunk, ids):
            out[i] = model.target_subwords.decode(hyp)
        bar.update(len(chunk))
    bar.close()
    return out
