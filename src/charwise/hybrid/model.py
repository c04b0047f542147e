"""Hybrid models: charwise vectors inside any HF model, through ``inputs_embeds``.

Char2Subword (Aguilar et al., 2021, section 3.3) and XRayEmb (Pinter et al., 2021, section 2)
replace a word that the tokenizer shatters by one vector built from its characters. A
:class:`HybridModel` does that for an unchanged HF model: an encoding :mod:`~charwise.hybrid.policies`
policy picks words per sentence; those words become one position whose input vector comes from the
character encoder, the others keep the teacher's pieces and embedding table. Special tokens,
attention mask and positions are what the model expects, and :class:`HybridInputs` records where
every word landed, so each word has its output state.

Example::

    hm = HybridModel.from_teacher("minilm", policy="oov")
    with torch.inference_mode():
        out = hm([["the", "accomodation", "was", "gr8"]])
    out.outputs.last_hidden_state   # (1, T, 384)
    out.inputs.word_spans           # [[(1, 2), (2, 3), (3, 4), (4, 5)]]

Model specifics (special tokens, padding id, maximum length, whether a word after a space is
spelled with a leading space) live in a small :class:`ModelAdapter`, read from the tokenizer by
default; pass your own for models whose tokenizer does not describe them.

Texts longer than the model's maximum are truncated (pieces past the limit are dropped, the
closing special tokens are kept) with a warning; :attr:`HybridInputs.truncated` says which. Work
and memory stay bounded by the window, whatever the length of a text: only the first words that can
fit (one position each at least) are split and tokenised, and a word longer than
:attr:`HybridModel.max_word_chars` characters (:data:`charwise.words.MAX_WORD_CHARS`) is read as
its first and last halves of that many. Lone surrogates (which Python makes of undecodable bytes)
reach the tokenizer as U+FFFD.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from itertools import accumulate, chain, islice, repeat
from typing import Any, Sequence, Union, cast

import torch
from torch import nn
from transformers import PreTrainedModel

from charwise.cache import LRUCache
from charwise.devices import check_device
from charwise.encoders.base import CharEncoder, check_teacher
from charwise.errors import ConfigError
from charwise.hybrid.adapter import ModelAdapter
from charwise.hybrid.batching import padded, split_texts, tokenize_words
from charwise.hybrid.packing import score_words_packed
from charwise.hybrid.policies import Policy, Repair, get_policy
from charwise.io import replace_surrogates
from charwise.presets import DEFAULT_POLICY
from charwise.teachers import Teacher
from charwise.words import MAX_WORD_CHARS, shorten_word

# A word's key in the piece cache: the word, or (word, spelled after a space) where that matters.
_PieceKey = Union[str, tuple[str, bool]]


@dataclass
class HybridInputs:
    """A prepared batch: the model's inputs and where every word sits in them."""

    inputs_embeds: torch.Tensor  # (B, T, d)
    attention_mask: torch.Tensor  # (B, T) long, 1 = real position
    input_ids: torch.Tensor  # (B, T) table ids; the placeholder at character-built positions is never looked up
    word_index: torch.Tensor  # (B, T) long: word of each position, -1 for special tokens and padding
    word_spans: list[list[tuple[int, int]]]  # [start, end) per word; (-1, -1) if truncated away
    selected: list[list[bool]]  # True where the policy gave the word to the character encoder
    pieces: list[list[list[int]]]  # the teacher's ids for every word, selected or not
    truncated: list[bool] = field(default_factory=list)
    repairs: list[dict[int, Repair]] = field(default_factory=list)  # words read as their correction

    @property
    def lengths(self) -> torch.Tensor:
        """Sequence length of each item, special tokens included."""
        return self.attention_mask.sum(dim=1)


@dataclass
class HybridOutput:
    outputs: Any  # the HF model output
    inputs: HybridInputs


def input_table(model: PreTrainedModel) -> nn.Embedding:
    """The model's input embedding table."""
    # HF types get_input_embeddings() as nn.Module; the input table is an nn.Embedding (or a subclass).
    return cast(nn.Embedding, model.get_input_embeddings())


# dtypes whose rows numpy copies as they are (bfloat16 has no numpy type: torch copies those)
_NUMPY_DTYPES = (torch.float32, torch.float16, torch.float64)


def look_up(table: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
    """``table(ids)``: the same values. On the CPU with no gradient to record, numpy copies the rows
    in the calling thread: torch's embedding spreads a batch's few thousand rows over its thread
    pool, which waits for every thread when other processes hold the cores (1,000 WNUT17 tweets in
    batches of 64, ``OMP_NUM_THREADS=2`` on 2 shared cores: torch 3 ms with the cores idle, 124 ms
    beside two busy processes; numpy 3 to 4 ms either way)."""
    weight = table.weight
    if (type(table) is not nn.Embedding or table.max_norm is not None or weight.device.type != "cpu"
            or weight.dtype not in _NUMPY_DTYPES or (weight.requires_grad and torch.is_grad_enabled())
            or ids.device.type != "cpu"):
        return table(ids)
    flat = ids.numpy()
    if flat.size and (flat.min() < 0 or flat.max() >= len(weight)):
        return table(ids)  # torch's own error for an id out of range (numpy would wrap a negative one)
    return torch.from_numpy(weight.detach().numpy().take(flat, axis=0))


def _check_batch(batch: Sequence[Sequence[str]]) -> list[list[str]]:
    if isinstance(batch, str) or not isinstance(batch, Sequence):
        raise TypeError("expected a batch of pre-split sentences (list[list[str]]); use prepare_texts() for raw text")
    out = []
    for sentence in batch:
        if isinstance(sentence, str) or not all(map(isinstance, sentence, repeat(str))):
            raise TypeError("each sentence must be a list of word strings (list[list[str]])")
        out.append(list(sentence))
    return out


class HybridModel(nn.Module):
    """An HF model whose input embeddings come from the table or, per word, a character encoder.

    Args:
        model: the HF model (``BertModel``, ``LlamaForCausalLM``, ...) whose table the teacher holds.
        teacher: its :class:`~charwise.teachers.Teacher` (tokenizer and vocabulary).
        encoder: a character encoder trained for that teacher; may be ``None`` with policies that
            never pick words (``none``, ``repair``).
        policy: a name (``repair``, the default: confidently misspelled words are read as their
            correction; ``none``, ``oov``, ``multi``, ``no-suffix``, ``random:p``, ``all``) or a
            :class:`~charwise.hybrid.policies.Policy`.
        adapter: model specifics; read from the tokenizer when omitted.
        cache_size: words whose pieces and (in inference) vectors are remembered across batches
            (a batch with more distinct words than this still works; the cache keeps the latest).
        max_word_chars: characters of a word that are tokenised and encoded (longer words are
            read as their first and last halves of that many).
        device: where the model and encoder run (``"cpu"``, ``"cuda"``, ``"cuda:1"``...); ``None``
            leaves them where they are. Inputs are built on that device.
    """

    def __init__(
        self,
        model: PreTrainedModel,
        teacher: Teacher,
        encoder: CharEncoder | None = None,
        policy: str | Policy = DEFAULT_POLICY,
        *,
        adapter: ModelAdapter | None = None,
        cache_size: int = 100_000,
        seed: int = 0,
        max_word_chars: int = MAX_WORD_CHARS,
        device: str | torch.device | None = None,
    ) -> None:
        super().__init__()
        self.model: PreTrainedModel = model
        self.encoder = encoder
        self.teacher = teacher
        self.policy = get_policy(policy, seed)
        table = input_table(model)
        if table.weight.shape[1] != teacher.dim:
            raise ConfigError(
                f"model embeddings have d={table.weight.shape[1]}, teacher '{teacher.name}' d={teacher.dim}")
        if encoder is not None:
            check_teacher(encoder, teacher)
        self.adapter = adapter or ModelAdapter.from_tokenizer(teacher.tokenizer, teacher.family,
                                                              getattr(model, "config", None))
        if isinstance(max_word_chars, bool) or not isinstance(max_word_chars, int) or max_word_chars < 2:
            raise ConfigError(f"max_word_chars must be an integer >= 2, got {max_word_chars!r}")
        self.max_word_chars = max_word_chars
        self._piece_cache = LRUCache(cache_size)
        self._vector_cache = LRUCache(cache_size)
        if device is not None:  # None: where the model already is
            self.to(check_device(device))

    @classmethod
    def from_teacher(
        cls, teacher: str | Teacher = "minilm", policy: str | Policy = DEFAULT_POLICY,
        encoder: str | CharEncoder | None = None, **kwargs: Any,
    ) -> "HybridModel":
        """The teacher's own model with its shipped encoder (or ``encoder``: a name or directory).

        Returned in eval mode, ready for inference; call ``.train()`` to fine-tune it.
        """
        from charwise.encoders.shipped import resolve_encoder

        teacher = teacher if isinstance(teacher, Teacher) else Teacher.load(teacher)
        chosen = get_policy(policy)
        if encoder is not None or chosen.needs_encoder:
            encoder = resolve_encoder(encoder, teacher, needed_by=f"policy '{chosen.name}'", option="encoder=DIR")
        return cls(teacher.model, teacher, encoder, policy, **kwargs).eval()

    # --- caches follow the weights ---------------------------------------------------------
    def train(self, mode: bool = True) -> "HybridModel":
        # Vectors cached in eval mode go stale as soon as the encoder is trained.
        self._vector_cache.clear()
        return super().train(mode)

    def clear_cache(self) -> None:
        self._vector_cache.clear()
        self._piece_cache.clear()

    # --- words -> pieces and vectors -------------------------------------------------------
    def word_pieces(self, words: Sequence[str], space_before: Sequence[bool]) -> list[list[int]]:
        """The teacher's ids of each word, spelled as it appears (after a space or glued on)."""
        return self._pieces_of([self._piece_keys(words, space_before)])[0]

    def _piece_keys(self, words: Sequence[str], space_before: Sequence[bool]) -> list[_PieceKey]:
        """Cache keys of ``words``: with a tokenizer that spells a word differently after a space,
        the word and whether one precedes it; otherwise the word alone (cheaper to hash)."""
        if self.adapter.space_prefix:
            return list(zip(words, map(bool, space_before)))
        return list(words)

    def _pieces_of(self, sentences: list[list[_PieceKey]]) -> list[list[list[int]]]:
        """The pieces of every key of several sentences: one cache pass over the distinct keys and
        one tokenizer call for those it misses."""
        data = self._piece_cache.data
        distinct = list(dict.fromkeys(chain.from_iterable(sentences)))
        # Looked up once into a local map: the cache may evict during this very call.
        found: dict[_PieceKey, list[int] | None] = dict(zip(distinct, map(data.get, distinct)))
        missing = [k for k, v in found.items() if v is None]
        for key in [k for k, v in found.items() if v is not None] if missing else distinct:
            data.move_to_end(key)  # hits become the most recently used, as LRUCache.get would make them
        if missing:
            spelled = [key if isinstance(key, tuple) else (key, False) for key in missing]
            texts = [(" " if s else "") + replace_surrogates(shorten_word(w, self.max_word_chars)) for w, s in spelled]
            for key, row in zip(missing, tokenize_words(self.teacher.tokenizer, texts)):
                found[key] = row
                self._piece_cache.put(key, row)
        filled = cast(dict[_PieceKey, list[int]], found)  # every key has its pieces now
        return [list(map(filled.__getitem__, keys)) for keys in sentences]

    def char_vectors(self, words: list[str]) -> torch.Tensor:
        """Character-encoder vectors; cached in inference, differentiable in training."""
        if self.encoder is None:
            raise ConfigError(f"policy '{self.policy.name}' chose words for the character encoder, but the "
                               "hybrid model has none (pass encoder=...)")
        if self.training and torch.is_grad_enabled():
            return self.encoder.embed(words, grad=True)
        found = {w: self._vector_cache.get(w) for w in dict.fromkeys(words)}
        missing = [w for w, v in found.items() if v is None]
        if missing:
            with torch.inference_mode():
                vectors = self.encoder.embed(missing)
            for w, v in zip(missing, vectors):
                found[w] = v
                self._vector_cache.put(w, v)
        return torch.stack([found[w] for w in words])

    # --- batches ---------------------------------------------------------------------------
    def prepare(
        self, batch: Sequence[Sequence[str]], space_before: Sequence[Sequence[bool]] | None = None,
        fixed_pieces: Sequence[Sequence[list[int] | None]] | None = None,
        repairs: list[dict[int, Repair]] | None = None,
    ) -> HybridInputs:
        """Build the model inputs for pre-split sentences.

        ``space_before[b][i]`` says whether whitespace preceded word ``i``; by default every word
        but the first, as in ordinary running text. ``fixed_pieces[b][i]``, when not None, are the
        table ids that word ``i`` becomes, whatever the tokenizer and the policy say (masked-LM
        training replaces masked words by ``[MASK]`` pieces this way). Words the policy repairs
        are read as their correction (:attr:`HybridInputs.repairs`); positions and word indices
        stay those of the words given. ``repairs``, when given, are the :meth:`policy_repairs` of this
        batch, computed elsewhere (another process), so the policy's speller is not asked here.
        """
        return self._prepare(_check_batch(batch), space_before, fixed_pieces, repairs)

    def _prepare(
        self, batch: list[list[str]], space_before: Sequence[Sequence[bool]] | None = None,
        fixed_pieces: Sequence[Sequence[list[int] | None]] | None = None,
        repairs: list[dict[int, Repair]] | None = None,
    ) -> HybridInputs:
        """:meth:`prepare` of a batch already checked (lists of strings); ``repairs``, when given,
        are what :meth:`policy_repairs` returned for it (computed elsewhere, in another process)."""
        # words whose spacing is not given came from a tokenizer: the policy's speller reads them so
        # (charwise.words.tokenised_spacing), the piece tokenizer as words apart
        spacing_given = space_before is not None
        if space_before is None:
            space_before = [[i > 0 for i in range(len(ws))] for ws in batch]
        ad = self.adapter
        limit = ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids)
        window = self._window()
        for b, words in enumerate(batch):
            if len(space_before[b]) != len(words):
                raise ValueError(f"sentence {b}: {len(words)} words but {len(space_before[b])} space flags")
            if fixed_pieces is not None and len(fixed_pieces[b]) != len(words):
                raise ValueError(f"sentence {b}: {len(words)} words but {len(fixed_pieces[b])} fixed_pieces")
        if repairs is None:
            repairs = self.policy_repairs(batch, space_before if spacing_given else None)
        if len(repairs) != len(batch):
            raise ValueError(f"policy {self.policy!r} returned repairs for {len(repairs)} of {len(batch)} sentences")
        kept_all = []
        for b, words in enumerate(batch):
            kept = words[:window]
            for i, repair in repairs[b].items():
                kept[i] = repair.correction
            kept_all.append(kept)
        pieces_all = self._pieces_of([self._piece_keys(kept, space_before[b][: len(kept)])
                                      for b, kept in enumerate(kept_all)])
        prefix, suffix = list(ad.prefix_ids), list(ad.suffix_ids)
        cut = len(prefix) + limit
        placeholder = ad.unk_id if ad.unk_id is not None else ad.pad_id
        all_selected, rows, spans_all, truncated = [], [], [], []
        slots: list[tuple[int, int, str]] = []  # (item, position, word) built from characters
        values: list[int] = []  # word index runs of all rows, laid end to end (see batching.padded)
        runs: list[int] = []
        for b, (words, kept, pieces) in enumerate(zip(batch, kept_all, pieces_all)):
            selected = list(map(bool, self.policy.select(kept, pieces, self.teacher)))
            if len(selected) != len(kept):
                raise ValueError(f"policy {self.policy!r} returned {len(selected)} flags for {len(kept)} words")
            if fixed_pieces is not None:
                for i, fixed in enumerate(fixed_pieces[b][: len(kept)]):
                    if fixed is not None:
                        pieces[i], selected[i] = list(fixed), False
            # What each word contributes: its pieces, or one placeholder position for a character vector.
            parts, lengths = pieces, list(map(len, pieces))
            if 0 in lengths:
                for i in [i for i, n in enumerate(lengths) if n == 0 and not selected[i]]:
                    # Words the tokenizer erases (only invisible characters) still need a position.
                    if ad.unk_id is not None:
                        parts = parts if parts is not pieces else list(pieces)
                        parts[i], lengths[i] = [ad.unk_id], 1
                    else:
                        selected[i] = True
            picked = [i for i, s in enumerate(selected) if s] if any(selected) else []
            if picked:
                parts = parts if parts is not pieces else list(pieces)
                for i in picked:
                    parts[i], lengths[i] = [placeholder], 1
            bounds = list(accumulate(lengths, initial=len(prefix)))
            ids = prefix + list(chain.from_iterable(parts))
            spans = list(zip(bounds, islice(bounds, 1, None)))
            slots.extend((b, bounds[i], shorten_word(kept[i], self.max_word_chars)) for i in picked)
            dropped = len(words) - len(kept)
            truncated.append(len(ids) > cut or dropped > 0)
            if len(ids) > cut:
                ids = ids[:cut]
                spans = [(s, min(e, cut)) if s < cut else (-1, -1) for s, e in spans]
                lengths = [e - s for s, e in spans]  # 0 for words cut away: (-1, -1)
                slots = [slot for slot in slots if slot[0] != b or slot[1] < cut]
            values.append(-1)
            values.extend(range(len(kept)))
            values.append(-1)
            runs.append(len(ids) - sum(lengths))  # the prefix (less, in a window too small to hold it)
            runs.extend(lengths)
            runs.append(len(suffix))
            rows.append(ids + suffix)
            if dropped:
                pieces = pieces + [[] for _ in range(dropped)]
                selected += [False] * dropped
                spans += [(-1, -1)] * dropped  # past the window
            pieces_all[b] = pieces
            all_selected.append(selected)
            spans_all.append(spans)
        if any(truncated):
            warnings.warn(f"{sum(truncated)} of {len(batch)} texts exceed the model's {ad.max_length} positions "
                          "and were truncated", stacklevel=3)  # the caller of prepare() or prepare_texts()
        device = input_table(self.model).weight.device
        input_ids, attention, word_index = padded(rows, (values, runs), ad.pad_id, device)
        embeds = look_up(input_table(self.model), input_ids)
        if slots:
            unique = list(dict.fromkeys(w for _, _, w in slots))
            vectors = self.char_vectors(unique).to(device=device, dtype=embeds.dtype)
            where = {w: k for k, w in enumerate(unique)}
            items = torch.tensor([s[0] for s in slots], device=device)
            positions = torch.tensor([s[1] for s in slots], device=device)
            rows_of = torch.tensor([where[s[2]] for s in slots], device=device)
            # Out-of-place, so gradients reach both the table and the character encoder.
            embeds = embeds.index_put((items, positions), vectors[rows_of])
        return HybridInputs(embeds, attention, input_ids, word_index, spans_all, all_selected, pieces_all, truncated,
                            repairs)

    def _window(self) -> int:
        """Words the model's window can hold at most: each takes a position at least, and words past
        the window are never tokenised (nor repaired)."""
        ad = self.adapter
        return max(ad.max_length - len(ad.prefix_ids) - len(ad.suffix_ids), 0)

    def repair_request(self, batch: Sequence[Sequence[str]], space_before: Sequence[Sequence[bool]] | None = None,
                       ) -> tuple[list[list[str]], list[list[bool]] | None]:
        """The words (and space flags) of each sentence that the policy reads for its repairs: those the
        window holds. ``self.policy.repairs(*request)`` gives :meth:`policy_repairs`, in any process."""
        window = self._window()
        return ([list(words[:window]) for words in batch],
                None if space_before is None else [list(spaces[:window]) for spaces in space_before])

    def policy_repairs(self, batch: Sequence[Sequence[str]],
                       space_before: Sequence[Sequence[bool]] | None = None) -> list[dict[int, Repair]]:
        """What the policy repairs in each sentence (:class:`~charwise.hybrid.policies.Repair` by word index)."""
        return self.policy.repairs(*self.repair_request(batch, space_before))

    def split_texts(self, texts: Sequence[str]) -> tuple[list[list[str]], list[list[bool]]]:
        """Raw texts as words and space flags, split with :func:`charwise.words.split_words` (only as
        many words as the window can hold, each of at most :attr:`max_word_chars` characters)."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not a single string")
        window = max(1, self._window())
        # One word more than fits, so that a text that does not fit is seen to be truncated.
        splits = split_texts(texts, max_words=window + 1, max_word_chars=self.max_word_chars)
        shortened = sum(s.truncated and len(s.words) <= window for s in splits)
        if shortened:
            warnings.warn(f"{shortened} of {len(texts)} texts were cut before tokenising: words longer than "
                          f"{self.max_word_chars} characters are read as their first and last halves, and "
                          "text past what the window can hold is dropped", stacklevel=3)
        return [s.words for s in splits], [s.space_before for s in splits]

    def prepare_texts(self, texts: Sequence[str]) -> HybridInputs:
        """Raw texts, split with :meth:`split_texts`."""
        return self._prepare(*self.split_texts(texts))

    def forward(
        self,
        words: Sequence[Sequence[str]] | None = None,
        *,
        space_before: Sequence[Sequence[bool]] | None = None,
        inputs: HybridInputs | None = None,
        **model_kwargs: Any,
    ) -> HybridOutput:
        """Run the model on pre-split ``words`` (or on already prepared ``inputs``)."""
        if inputs is None:
            if words is None:
                raise ValueError("pass words or inputs")
            inputs = self.prepare(words, space_before)
        outputs = self.model(inputs_embeds=inputs.inputs_embeds, attention_mask=inputs.attention_mask,
                             **model_kwargs)
        return HybridOutput(outputs, inputs)

    # --- causal language models ------------------------------------------------------------
    def start_embeddings(self) -> torch.Tensor:
        """What a causal LM reads before the first word, ``(lead, d)``: the adapter's start token, or
        nothing when the prefix tokens of :meth:`prepare` already play that part."""
        if not hasattr(self.model, "get_output_embeddings") or self.model.get_output_embeddings() is None:
            raise ConfigError("predicting words needs a causal LM with an output layer")
        table = input_table(self.model)
        own_prefix = len(self.adapter.prefix_ids) > 0
        if not own_prefix and not self.adapter.start_ids:
            raise ConfigError("predicting the first word needs a start token: set ModelAdapter.start_ids")
        return table(torch.tensor([] if own_prefix else self.adapter.start_ids, dtype=torch.long,
                                  device=table.weight.device))

    def word_log_likelihoods(
        self,
        contexts: Sequence[Sequence[str]],
        targets: Sequence[Sequence[str]] | None = None,
        *,
        space_before: Sequence[Sequence[bool]] | None = None,
        max_batch_tokens: int = 8192,
        greedy: list[torch.Tensor] | None = None,
    ) -> list[torch.Tensor]:
        """Log-likelihood of each target word's pieces given the hybrid prefix of the words before it.

        For word ``i`` the model reads the start token, then words ``< i`` of ``contexts`` as the
        policy builds them (one character vector or the pieces), then predicts the teacher's pieces of
        ``targets[i]`` one by one (teacher forcing). With policy ``none`` the per-word values sum to
        the ordinary log-likelihood of the text, so base and hybrid compare word for word.
        ``targets`` defaults to ``contexts``; pass clean words with noisy contexts to ask how well the
        model still predicts the intended text. Returns one tensor of natural-log values per text.
        An empty list passed as ``greedy`` receives, per text, whether greedy decoding from the
        context writes each target word's pieces (every piece is the most likely one).
        """
        contexts = _check_batch(contexts)
        targets = contexts if targets is None else _check_batch(targets)
        if [len(c) for c in contexts] != [len(t) for t in targets]:
            raise ValueError("contexts and targets must have the same number of words per text")
        if space_before is None:
            space_before = [[i > 0 for i in range(len(ws))] for ws in contexts]
        inputs = self.prepare(contexts, space_before)
        start = self.start_embeddings()
        lead = len(start)
        results, hits = [], []
        packed = []
        for b, words in enumerate(targets):
            results.append(torch.full((len(words),), float("nan")))
            hits.append(torch.zeros(len(words), dtype=torch.bool))
            target_pieces = self.word_pieces(words, space_before[b])
            # Scored words: the prefix ends where the word starts in the hybrid context.
            scored = [(i, lead + inputs.word_spans[b][i][0], tp) for i, tp in enumerate(target_pieces)
                      if inputs.word_spans[b][i][0] >= 0 and tp]
            context_len = lead + int(inputs.lengths[b]) - len(self.adapter.suffix_ids)
            packed.append((b, context_len, scored))
        # Longest first, as many texts per forward pass as fit in max_batch_tokens (padded).
        packed.sort(key=lambda p: -(p[1] + sum(len(tp) - 1 for _, _, tp in p[2])))
        groups: list[list[tuple]] = []
        for item in packed:
            size = item[1] + sum(len(tp) - 1 for _, _, tp in item[2])
            if groups and (len(groups[-1]) + 1) * groups[-1][0][3] <= max_batch_tokens:
                groups[-1].append((*item, size))
            else:
                groups.append([(*item, size)])
        table = input_table(self.model)
        for group in groups:
            score_words_packed(self.model, table, group, inputs.inputs_embeds, start, results, hits)
        if greedy is not None:
            greedy.extend(hits)
        return results
