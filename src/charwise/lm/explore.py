"""Using a trained language model: sampling text, and Kim et al.'s table 6 (nearest words).

``nearest_words`` ranks the output vocabulary by cosine to a word's input representation: for a
character model before the highway layers (``stage="cnn"``: the CharCNN's n-gram features, which
group words by spelling) and after them (``"highway"``: what the LSTM reads, where Kim et al. find
meaning: *you* near *we* and *they*), for any string, seen or not; for a word model by its
embedding row, which exists only for words of its vocabulary.
"""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F

from charwise.lm.data import EOS, UNK
from charwise.lm.model import CharAwareLM, State


def _vocab_index(model: CharAwareLM) -> dict[str, int]:
    return {w: i for i, w in enumerate(model.config.words)}


@torch.inference_mode()
def sample(model: CharAwareLM, prompt: Sequence[str], words: int = 30, temperature: float = 1.0,
           seed: int | None = None) -> list[str]:
    """``words`` words sampled after ``prompt`` (a list of words) at ``temperature`` (0: greedy).
    A character model reads the prompt's words as written, seen in training or not."""
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    generator = torch.Generator().manual_seed(seed) if seed is not None else None
    model.eval()
    index = _vocab_index(model)
    context = list(prompt) or [EOS]
    state: State | None = None
    out: list[str] = []
    feed = context
    for _ in range(words):
        if model.config.input == "words":
            inputs, chars = torch.tensor([[index.get(w, 0) for w in feed]]), None
        else:
            inputs, chars = torch.arange(len(feed))[None], model.char_ids(list(feed))
        logits, state = model(inputs.to(model.output.weight.device), state, chars)
        scores = logits[0, -1].float()
        scores[index[UNK]] = -float("inf")  # never write <unk>
        if temperature == 0:
            choice = int(scores.argmax())
        else:
            choice = int(torch.multinomial(F.softmax(scores / temperature, dim=-1), 1, generator=generator))
        word = model.config.words[choice]
        out.append(word)
        feed = [word]
    return out


def detokenize(words: Sequence[str]) -> str:
    """Words back to text: verses end at ``</s>``, punctuation sticks to the word before it."""
    text = ""
    for word in words:
        if word == EOS:
            text += "\n"
        elif not text or text.endswith("\n") or (len(word) == 1 and word in ",.;:!?)'"):
            text += word
        else:
            text += " " + word
    return text


@torch.inference_mode()
def nearest_words(model: CharAwareLM, queries: Sequence[str], k: int = 5, stage: str = "highway",
                  batch: int = 4096) -> dict[str, list[tuple[str, float]] | None]:
    """The ``k`` output words closest to each query by cosine of the input representation
    (``stage`` "cnn" or "highway" for a character model); a word model gives None for a query
    outside its vocabulary. The query itself and ``<unk>`` / ``</s>`` are never neighbours."""
    if stage not in ("cnn", "highway"):
        raise ValueError(f"stage must be 'cnn' or 'highway', got {stage!r}")
    model.eval()
    vocab = [w for w in model.config.words if w not in (UNK, EOS)]
    index = _vocab_index(model)
    if model.config.input == "words":
        table = F.normalize(model.embedding.weight.float(), dim=-1)
        rows = torch.tensor([index[w] for w in vocab])
        keys = table[rows]
        found: list[torch.Tensor | None] = [table[index[q]] if q in index and q not in (UNK, EOS) else None
                                            for q in queries]
    else:
        keys = torch.cat([F.normalize(model.word_representations(model.char_ids(vocab[i : i + batch]), stage).float(),
                                      dim=-1) for i in range(0, len(vocab), batch)])
        vectors = F.normalize(model.word_representations(model.char_ids(list(queries)), stage).float(), dim=-1)
        found = list(vectors)
    result: dict[str, list[tuple[str, float]] | None] = {}
    for query, vector in zip(queries, found):
        if vector is None:
            result[query] = None
            continue
        scores = keys @ vector
        top = scores.topk(min(k + 1, len(vocab)))
        result[query] = [(vocab[int(i)], round(float(s), 4)) for s, i in zip(top.values, top.indices)
                         if vocab[int(i)] != query][:k]
    return result
