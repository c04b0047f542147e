"""Open-vocabulary generation for causal LMs: the model's state at a word boundary, spelled.

XRayEmb (Pinter et al. 2021, sections 2-3) lets a model produce words its vocabulary lacks: the
contextual output vector ``h`` at a position chosen by the generation policy goes to the character
decoder (XR-DEC), which spells the next word. Here a small trained head (:class:`WordHead`) maps
the LM's last state before a word into the teacher's embedding space, where a
:class:`~charwise.decoders.lstm.CharDecoder` trained on that teacher's rows spells it::

    generator = WordGenerator.load("runs/gen/smollm2/generator")
    generator.next_words([["In", "the", "beginning", "God"]])        # the decoder's next word, one per context
    generator.generate("And the LORD said unto", words=8)            # (text, which new words the decoder wrote)

Every next word then has two proposals: the LM's own pieces (greedy until a word boundary) and the
decoder's spelling. :meth:`WordGenerator.generate` takes the decoder's word when its probability
beats the LM's most likely next piece (the LM's best whole word can only be less likely than its
first piece, so the rule leans towards the LM), which is how a word outside the vocabulary gets
written. The directory holds the head (``config.json``, ``model.safetensors``,
``model_type = "charwise-word-head"``) and a copy of its decoder in ``decoder/``; ``training.json``
names the teacher, encoder and policy it was trained with.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.decoders.lstm import CharDecoder
from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.model import HybridModel
from charwise.model_files import TRAINING_FILE, load_model_directory, save_model_directory
from charwise.words import split_words

MODEL_TYPE = "charwise-word-head"
DECODER_DIR = "decoder"


class WordHeadConfig(PretrainedConfig):
    """Sizes of a :class:`WordHead`: the LM's hidden size in, the teacher's dimension out."""

    model_type = MODEL_TYPE

    def __init__(self, hidden_size: int = 576, dim: int = 576, inner: int = 1024, **kwargs: Any) -> None:
        self.hidden_size, self.dim, self.inner = hidden_size, dim, inner
        super().__init__(**kwargs)

    def check(self) -> None:
        """Raise a one-line ConfigError unless a head can be built from this config (called by the
        model, not here: transformers builds configs with no arguments)."""
        for name, value in (("hidden_size", self.hidden_size), ("dim", self.dim), ("inner", self.inner)):
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")


class WordHead(PreTrainedModel):
    """LM states ``(n, hidden_size)`` -> vectors ``(n, dim)`` for the decoder to spell
    (LayerNorm, linear, GELU, linear)."""

    config_class = WordHeadConfig
    main_input_name = "states"

    def __init__(self, config: WordHeadConfig) -> None:
        config.check()
        super().__init__(config)
        self.training_info: dict[str, Any] = {}
        self.norm = nn.LayerNorm(config.hidden_size)
        self.inner = nn.Linear(config.hidden_size, config.inner)
        self.out = nn.Linear(config.inner, config.dim)
        self.post_init()

    def _init_weights(self, module: nn.Module) -> None:
        """PyTorch's defaults are the initialisation (no HF re-initialisation)."""

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        if states.dim() != 2 or states.shape[1] != self.config.hidden_size:
            raise ValueError(f"expected states of shape (n, {self.config.hidden_size}), got {tuple(states.shape)}")
        return self.out(F.gelu(self.inner(self.norm(states.to(self.inner.weight.dtype)))))

    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, **_: Any
    ) -> Path:
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike, **_: Any) -> "WordHead":  # type: ignore[override]
        return load_model_directory(cls, directory, "charwise word generator",
                                    "train one with `charwise generator train`")


class BoundaryStates(NamedTuple):
    """The LM's last state before every word (``states``, one row per word that was not cut off),
    which word each row belongs to (``owners``: (text, word)) and the log-probability of the LM's
    most likely next piece there (``top_piece_logp``)."""

    states: torch.Tensor
    owners: list[tuple[int, int]]
    top_piece_logp: torch.Tensor


def boundary_states(hybrid: HybridModel, contexts: Sequence[Sequence[str]],
                    space_before: Sequence[Sequence[bool]] | None = None) -> BoundaryStates:
    """One forward pass over the hybrid contexts (start token first, as in
    :meth:`HybridModel.word_log_likelihoods`): the state that predicts word ``i`` is the last state
    of the words before it. Words the model's length limit cut off are left out of ``owners``."""
    words = [list(ws) for ws in contexts]
    if space_before is None:
        space_before = [[i > 0 for i in range(len(ws))] for ws in words]
    inputs = hybrid.prepare(words, space_before)
    start = hybrid.start_embeddings()
    n, lead = len(words), len(start)
    embeds = torch.cat([start.unsqueeze(0).expand(n, -1, -1).to(inputs.inputs_embeds.dtype), inputs.inputs_embeds], 1)
    mask = torch.cat([torch.ones(n, lead, dtype=inputs.attention_mask.dtype, device=embeds.device),
                      inputs.attention_mask], 1)
    hidden = hybrid.model.base_model(inputs_embeds=embeds, attention_mask=mask).last_hidden_state
    rows, cols, owners = [], [], []
    for b, spans in enumerate(inputs.word_spans):
        for i, (first, _) in enumerate(spans):
            if first >= 0 and lead + first >= 1:
                rows.append(b)
                cols.append(lead + first - 1)
                owners.append((b, i))
    index = (torch.tensor(rows, dtype=torch.long, device=hidden.device),
             torch.tensor(cols, dtype=torch.long, device=hidden.device))
    states = hidden[index]
    logits = hybrid.model.get_output_embeddings()(states).float()
    top = torch.log_softmax(logits, dim=-1).max(dim=-1).values if len(states) else logits.new_zeros(0)
    return BoundaryStates(states, owners, top)


class WordGenerator:
    """A hybrid causal LM with a word head and a character decoder: next words, their
    log-probabilities and free generation, beyond the LM's vocabulary."""

    def __init__(self, hybrid: HybridModel, head: WordHead, decoder: CharDecoder) -> None:
        if head.config.dim != decoder.dim:
            raise ConfigError(f"the head writes {head.config.dim}-dimensional vectors; the decoder reads {decoder.dim}")
        hidden = hybrid.model.config.hidden_size
        if head.config.hidden_size != hidden:
            raise ConfigError(f"the head reads states of size {head.config.hidden_size}; this LM's are {hidden}")
        self.hybrid, self.head, self.decoder = hybrid, head.eval(), decoder.eval()

    @classmethod
    def load(cls, directory: str | os.PathLike, hybrid: HybridModel | None = None) -> "WordGenerator":
        """The generator saved in ``directory``; the hybrid LM is rebuilt from the teacher, encoder
        and policy it was trained with unless one is given."""
        path = Path(directory)
        head = WordHead.from_pretrained(path)
        decoder = CharDecoder.from_pretrained(path / DECODER_DIR)
        if hybrid is None:
            info = head.training_info
            if "teacher" not in info:
                raise CheckpointError(f"'{path / TRAINING_FILE}' does not name the teacher; pass hybrid=")
            hybrid = HybridModel.from_teacher(info["teacher"], policy=info.get("policy", "oov"),
                                              encoder=info.get("encoder"))
        return cls(hybrid, head, decoder)

    def vectors(self, contexts: Sequence[Sequence[str]],
                space_before: Sequence[Sequence[bool]] | None = None) -> tuple[torch.Tensor, BoundaryStates]:
        """The head's vector for every word position of ``contexts`` (see :func:`boundary_states`)."""
        found = boundary_states(self.hybrid, contexts, space_before)
        return self.head(found.states), found

    @torch.inference_mode()
    def next_words(self, contexts: Sequence[Sequence[str]], beam: int = 1) -> list[str]:
        """The decoder's spelling of the word after each context (its best of ``beam``)."""
        contexts = [list(c) + ["."] for c in contexts]  # a placeholder word marks where the next one starts
        vectors, found = self.vectors(contexts)
        last = {b: k for k, (b, i) in enumerate(found.owners) if i == len(contexts[b]) - 1}
        picked = vectors[torch.tensor([last[b] for b in range(len(contexts))], dtype=torch.long)]
        if beam <= 1:
            return self.decoder.spell(picked)
        return [b[0].text if b else "" for b in self.decoder.spellings(picked, beam=beam, n_best=1)]

    @torch.inference_mode()
    def generate(self, prompt: str, words: int = 10) -> tuple[str, list[bool]]:
        """Continue ``prompt`` by ``words`` words, greedily. Each word is the LM's greedy pieces up to
        the next word boundary, or the decoder's spelling when the decoder is more confident than
        the LM's best next piece. Returns the text and, per generated word, whether the decoder wrote it."""
        split = split_words(prompt)
        context, spaces = list(split.words), list(split.space_before)
        if not context:
            raise ValueError("generate() needs a prompt with at least one word")
        from_decoder = []
        for _ in range(words):
            vectors, found = self.vectors([context + ["."]], [spaces + [True]])
            last = len(found.owners) - 1
            best = self.decoder.spellings(vectors[last : last + 1], beam=1, n_best=1)[0]
            lm_word = self._lm_word(context, spaces)
            use_decoder = bool(best) and best[0].text.strip() != "" and best[0].logprob > float(
                found.top_piece_logp[last])
            word = best[0].text if use_decoder else lm_word
            if not word:
                break
            context.append(word)
            spaces.append(True)
            from_decoder.append(use_decoder)
        text = "".join((" " if s and k else "") + w for k, (w, s) in enumerate(zip(context, spaces)))
        return text, from_decoder

    def _lm_word(self, context: list[str], spaces: list[bool], max_pieces: int = 8) -> str:
        """The LM's greedy continuation up to the next word boundary, as a word."""
        tokenizer = self.hybrid.teacher.tokenizer
        inputs = self.hybrid.prepare([context], [spaces])
        start = self.hybrid.start_embeddings()
        length = int(inputs.lengths[0]) - len(self.hybrid.adapter.suffix_ids)
        embeds = torch.cat([start, inputs.inputs_embeds[0, :length]]).unsqueeze(0)
        table = self.hybrid.model.get_input_embeddings()
        pieces: list[int] = []
        for _ in range(max_pieces):
            logits = self.hybrid.model(inputs_embeds=embeds).logits[0, -1]
            piece = int(logits.argmax())
            if piece == tokenizer.eos_token_id or (
                    pieces and len(split_words(tokenizer.decode(pieces + [piece]).strip()).words) > 1):
                break
            pieces.append(piece)
            embeds = torch.cat([embeds, table(torch.tensor([[piece]], device=embeds.device))], 1)
        return tokenizer.decode(pieces).strip()


AutoConfig.register(MODEL_TYPE, WordHeadConfig, exist_ok=True)
AutoModel.register(WordHeadConfig, WordHead, exist_ok=True)
