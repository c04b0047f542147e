"""A character decoder: spells the word a vector in a teacher's space stands for (XRayEmb's XR-DEC).

Pinter et al. 2021, section 4: a 2-layer unidirectional LSTM whose initial hidden state is a
projection of the vector; characters come out of two linear layers with a tanh between them.
Here the vector can also be an input at every step (``condition``), which keeps long words on
track. A spelling is ``[WORD|PIECE] c_1 ... c_n [END]`` in the ids of the encoder's
:class:`~charwise.charset.CharVocab`, so the decoder writes exactly the alphabet the encoder
reads (lower-case without accents for a lower-casing teacher) and the first symbol says whether
to spell a whole word or a continuation piece::

    from charwise.encoders.shipped import shipped_decoder
    from charwise.teachers import Teacher

    teacher = Teacher.load("minilm")
    decoder = CharDecoder.from_pretrained(shipped_decoder("minilm"))  # or a run's OUT/decoder
    decoder.spell(teacher.embeddings[[2183, 7592]])          # ['going', 'hello']
    decoder.spellings(teacher.embeddings[[2183]], beam=5, n_best=3)  # three spellings, with scores

Saved like the encoders (:mod:`charwise.encoders.base`): ``config.json`` (a
:class:`CharDecoderConfig`, ``model_type = "charwise-decoder"``, registered with
``transformers.AutoConfig`` / ``AutoModel``), ``model.safetensors`` and an optional
``training.json``; every tensor name and shape is checked on loading.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel

from charwise.charset import END, NUM_RESERVED, PAD, PIECE, WORD, CharVocab
from charwise.errors import CheckpointError, ConfigError
from charwise.model_files import (
    CONFIG_FILE,
    TRAINING_FILE,
    WEIGHTS_FILE,
    load_checked_weights,
    read_json_file,
    save_model_directory,
)
from charwise.presets import DECODER_BEAM, DECODER_PRESETS

MODEL_TYPE = "charwise-decoder"
CONDITIONS = ("init", "input", "both")


@dataclass
class DecoderArch:
    """The decoder's architecture."""

    dim: int = 384  # the teacher's dimension (the vectors spelled)
    num_chars: int = 256  # the charset's size: input and output alphabet
    char_dim: int = 64
    hidden: int = 256
    layers: int = 2
    out_hidden: int = 256  # the tanh layer between the LSTM and the character logits
    condition: str = "both"  # "init": the vector sets the initial state; "input": it is fed at every step
    cond_dim: int = 64  # the vector's projection fed at every step ("input", "both")
    dropout: float = 0.0
    max_length: int = 34  # characters written at most, END excluded (the charset's max_chars + 2)

    def __post_init__(self) -> None:
        if self.condition not in CONDITIONS:
            raise ConfigError(f"condition must be one of {', '.join(CONDITIONS)}, got {self.condition!r}")
        for name in ("dim", "num_chars", "char_dim", "cond_dim", "hidden", "layers", "out_hidden", "max_length"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if not 0 <= self.dropout < 1:
            raise ConfigError(f"dropout must be in [0, 1), got {self.dropout!r}")


PRESETS = DECODER_PRESETS  # preset name -> DecoderArch fields


class Spelling(NamedTuple):
    """One spelling of a vector and its log-probability (END included)."""

    text: str
    logprob: float


class CharDecoderConfig(PretrainedConfig):
    """The HF config of a character decoder: its architecture (:class:`DecoderArch` as a dict),
    the charset it writes (``CharVocab.to_dict()``) and the teacher whose space it reads."""

    model_type = MODEL_TYPE

    def __init__(self, arch: dict[str, Any] | None = None, charset: dict[str, Any] | None = None,
                 teacher: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.arch = dict(arch or {})
        self.charset = dict(charset or {})
        self.teacher = dict(teacher or {})
        super().__init__(**kwargs)


class CharDecoder(PreTrainedModel):
    """Vectors ``(n, dim)`` in, spellings out. Build one with :func:`build_decoder`, load one with
    :meth:`from_pretrained`; :meth:`forward` gives teacher-forced logits for training."""

    config_class = CharDecoderConfig
    main_input_name = "vectors"

    def __init__(self, config: CharDecoderConfig) -> None:
        super().__init__(config)
        self.arch = DecoderArch(**config.arch)
        config.arch = dataclasses.asdict(self.arch)
        self.charset = CharVocab.from_dict(config.charset)
        if self.arch.num_chars != self.charset.size:
            raise ConfigError(f"the charset has {self.charset.size} ids but the decoder expects {self.arch.num_chars}")
        a = self.arch
        self.training_info: dict[str, Any] = {}
        # Rows differ in norm between teachers (MiniLM ~1, SmolLM2 ~3): normalise what is read.
        self.vector_norm = nn.LayerNorm(a.dim)
        self.chars = nn.Embedding(a.num_chars, a.char_dim, padding_idx=PAD)
        self.init_state = nn.Linear(a.dim, 2 * a.layers * a.hidden) if a.condition != "input" else None
        self.step_condition = nn.Linear(a.dim, a.cond_dim) if a.condition != "init" else None
        step_input = a.char_dim + (a.cond_dim if a.condition != "init" else 0)
        self.lstm = nn.LSTM(step_input, a.hidden, num_layers=a.layers, batch_first=True,
                            dropout=a.dropout if a.layers > 1 else 0.0)
        self.out = nn.Sequential(nn.Linear(a.hidden, a.out_hidden), nn.Tanh(), nn.Linear(a.out_hidden, a.num_chars))
        self.post_init()

    def _init_weights(self, module: nn.Module) -> None:
        """PyTorch's defaults are the initialisation (no HF re-initialisation)."""

    @property
    def dim(self) -> int:
        return self.arch.dim

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    # --- the network ----------------------------------------------------------------------------
    def _start(self, vectors: torch.Tensor) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None]:
        """What each step reads of the vectors (their projection, or nothing for ``"init"``) and
        the LSTM's initial state (None: zeros)."""
        if vectors.ndim != 2 or vectors.shape[1] != self.arch.dim:
            raise ValueError(f"expected (n, {self.arch.dim}) vectors, got shape {tuple(vectors.shape)}")
        v = self.vector_norm(vectors.float())
        each_step = self.step_condition(v) if self.step_condition is not None else v[:, :0]
        if self.init_state is None:
            return each_step, None
        a = self.arch
        h, c = torch.tanh(self.init_state(v)).view(len(v), 2, a.layers, a.hidden).permute(1, 2, 0, 3)
        return each_step, (h.contiguous(), c.contiguous())

    def _step_inputs(self, each_step: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        x = self.chars(ids)
        if each_step.shape[1]:
            x = torch.cat([x, each_step[:, None, :].expand(-1, ids.shape[1], -1)], dim=-1)
        return x

    def forward(self, vectors: torch.Tensor, char_ids: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits ``(n, L - 1, num_chars)``: position t predicts ``char_ids[:, t + 1]``
        from ``char_ids[:, : t + 1]`` (``char_ids`` as :meth:`CharVocab.batch` writes them)."""
        return self.out(self._hidden(vectors, char_ids))

    def _hidden(self, vectors: torch.Tensor, char_ids: torch.Tensor) -> torch.Tensor:
        if char_ids.ndim != 2 or char_ids.shape[0] != vectors.shape[0] or char_ids.shape[1] < 2:
            raise ValueError(f"expected (n, L >= 2) ids for {vectors.shape[0]} vectors, got {tuple(char_ids.shape)}")
        each_step, state = self._start(vectors)
        inputs = char_ids[:, :-1]
        # Packed: the LSTM runs over each spelling's own length, not the batch's longest.
        lengths = (inputs != PAD).sum(dim=1).clamp(min=1).cpu()
        packed = pack_padded_sequence(self._step_inputs(each_step, inputs), lengths, batch_first=True,
                                      enforce_sorted=False)
        hidden, _ = self.lstm(packed, state)
        return pad_packed_sequence(hidden, batch_first=True, total_length=inputs.shape[1])[0]

    def log_probs(self, vectors: torch.Tensor, char_ids: torch.Tensor) -> torch.Tensor:
        """``(n,)``: the log-probability of spelling each ``char_ids`` row from its vector (END included)."""
        logp = F.log_softmax(self(vectors, char_ids).float(), dim=-1)
        target = char_ids[:, 1:]
        picked = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return picked.masked_fill(target == PAD, 0.0).sum(dim=1)

    def loss(self, vectors: torch.Tensor, char_ids: torch.Tensor) -> torch.Tensor:
        """Mean character cross-entropy of spelling ``char_ids`` from ``vectors`` (END included)."""
        hidden = self._hidden(vectors, char_ids)
        target = char_ids[:, 1:]
        real = target != PAD  # logits only where there is a character to predict
        return F.cross_entropy(self.out(hidden[real]), target[real])

    # --- decoding -------------------------------------------------------------------------------
    def spell(self, vectors: torch.Tensor, *, beam: int = 1, pieces: bool = False, max_length: int | None = None,
              batch_size: int = 512) -> list[str]:
        """The best spelling of each vector: greedy at ``beam=1``, else beam search. ``pieces``
        spells continuation pieces instead of whole words; at most ``max_length`` characters
        (default the architecture's) are written before ``END``."""
        return [options[0].text for options in self.spellings(vectors, beam=beam, n_best=1, pieces=pieces,
                                                              max_length=max_length, batch_size=batch_size)]

    @torch.inference_mode()
    def spellings(self, vectors: torch.Tensor, *, beam: int = DECODER_BEAM, n_best: int | None = None,
                  pieces: bool = False, max_length: int | None = None, batch_size: int = 512) -> list[list[Spelling]]:
        """The ``n_best`` (default ``beam``) best spellings of each vector by beam search, best first
        (:class:`Spelling`: text and log-probability; fewer if the beam finished fewer)."""
        n_best = beam if n_best is None else n_best
        if not isinstance(beam, int) or isinstance(beam, bool) or beam < 1:
            raise ConfigError(f"beam must be a positive integer, got {beam!r}")
        if not isinstance(n_best, int) or isinstance(n_best, bool) or not 1 <= n_best <= beam:
            raise ConfigError(f"n_best must be between 1 and the beam ({beam}), got {n_best!r}")
        limit = self.arch.max_length if max_length is None else max_length
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ConfigError(f"max_length must be a positive integer, got {limit!r}")
        was_training = self.training
        self.eval()
        try:
            results: list[list[Spelling]] = []
            vectors = vectors.to(self.device)
            for start in range(0, len(vectors), batch_size):
                results += self._beam(vectors[start : start + batch_size], beam, n_best, pieces, limit)
        finally:
            self.train(was_training)
        return results

    def _beam(self, vectors: torch.Tensor, beam: int, n_best: int, pieces: bool,
              limit: int) -> list[list[Spelling]]:
        """Batched beam search (greedy is beam 1): ``n * beam`` hypotheses advance together; a
        hypothesis that writes END is set aside with its log-probability."""
        n, width = len(vectors), beam
        v, state = self._start(vectors)
        v = v.repeat_interleave(width, dim=0)
        if state is not None:
            state = (state[0].repeat_interleave(width, dim=1), state[1].repeat_interleave(width, dim=1))
        last = torch.full((n * width,), PIECE if pieces else WORD, dtype=torch.long, device=v.device)
        # Only the first copy of each vector's beam is alive at the start (no duplicate hypotheses).
        scores = torch.full((n, width), float("-inf"), device=v.device)
        scores[:, 0] = 0.0
        written = torch.empty((n * width, 0), dtype=torch.long, device=v.device)
        finished: list[list[Spelling]] = [[] for _ in range(n)]
        unwritable = NUM_RESERVED + self.charset.config.hash_buckets
        for step in range(limit + 1):
            out, (h, c) = self.lstm(self._step_inputs(v, last[:, None]), state)
            logp = F.log_softmax(self.out(out[:, 0]).float(), dim=-1)
            end_logp = logp[:, END].clone()
            logp[:, :unwritable] = float("-inf")  # padding, markers and hash buckets are never written
            logp[:, END] = end_logp
            if step == limit:  # out of room: only END is allowed
                keep = logp[:, END].clone()
                logp.fill_(float("-inf"))
                logp[:, END] = keep
            total = (scores.view(-1, 1) + logp).view(n, -1)  # (n, width * chars)
            # An END among the best `width` candidates closes that hypothesis (as in fairseq: at
            # beam 1 this is greedy decoding); the running beam is refilled without END.
            best, where = total.topk(width, dim=1)
            for i, j in ((where % logp.shape[1] == END) & (best > float("-inf"))).nonzero().tolist():
                origin_row = i * width + int(where[i, j]) // logp.shape[1]
                finished[i].append(Spelling(self.charset.decode(written[origin_row].tolist()), float(best[i, j])))
            total.view(n, width, -1)[:, :, END] = float("-inf")
            if step == limit:
                break
            top, flat = total.topk(width, dim=1)
            origin = flat // logp.shape[1] + torch.arange(n, device=v.device)[:, None] * width
            chars = flat % logp.shape[1]
            origin, chars = origin.view(-1), chars.view(-1)
            scores = top
            written = torch.cat([written[origin], chars[:, None]], dim=1)
            state = (h[:, origin], c[:, origin])
            last = chars
            # Stop once every vector has n_best finished spellings that no running one can beat.
            done = all(len(f) >= n_best for f in finished)
            if done:
                best_running = scores.max(dim=1).values
                worst_kept = torch.tensor([sorted((s.logprob for s in f), reverse=True)[n_best - 1]
                                           for f in finished], device=v.device)
                if bool((best_running <= worst_kept).all()):
                    break
        return [sorted(f, key=lambda s: -s.logprob)[:n_best] for f in finished]

    # --- persistence ----------------------------------------------------------------------------
    def save_pretrained(  # type: ignore[override]
        self, directory: str | os.PathLike, training_info: dict[str, Any] | None = None, *,
        safe_serialization: bool = True,
    ) -> Path:
        """Write ``config.json``, ``model.safetensors`` and ``training.json`` to ``directory``
        atomically (safetensors only)."""
        if not safe_serialization:
            raise ValueError("charwise decoders are saved as safetensors only (safe_serialization=False)")
        return save_model_directory(self, directory, self.training_info if training_info is None else training_info)

    @classmethod
    def from_pretrained(  # type: ignore[override]
        cls, directory: str | os.PathLike, map_location: str | torch.device = "cpu", **kwargs: Any
    ) -> "CharDecoder":
        """Load a decoder saved by :meth:`save_pretrained`; anything else raises a one-line
        :class:`~charwise.errors.CheckpointError`."""
        path = Path(directory)
        cfg_path = path / CONFIG_FILE
        if not cfg_path.is_file() or not (path / WEIGHTS_FILE).is_file():
            raise CheckpointError(f"'{path}' is not a charwise decoder (need {CONFIG_FILE} and {WEIGHTS_FILE})")
        meta = read_json_file(cfg_path)
        if not isinstance(meta, dict) or meta.get("model_type") != MODEL_TYPE:
            found = meta.get("model_type") if isinstance(meta, dict) else None
            raise CheckpointError(f"'{path}' is not a charwise decoder ({CONFIG_FILE} has model_type {found!r}, "
                                  f"not '{MODEL_TYPE}')")
        fields = {k: v for k, v in meta.items() if k != "model_type"}
        try:
            config = CharDecoderConfig.from_dict(fields)
            if not all(isinstance(getattr(config, key), dict) for key in ("arch", "charset", "teacher")):
                raise ValueError("arch, charset and teacher must be JSON objects")
            model = cls(config)
        except (TypeError, ValueError) as e:  # ConfigError is a ValueError
            raise CheckpointError(f"bad decoder config in '{cfg_path}': {e}") from None
        state = load_checked_weights(model, path / WEIGHTS_FILE, "this decoder's config", map_location)
        model.load_state_dict(state)
        model.to(map_location)  # type: ignore[arg-type]
        training = read_json_file(path / TRAINING_FILE) if (path / TRAINING_FILE).is_file() else {}
        if not isinstance(training, dict):
            raise CheckpointError(f"'{path / TRAINING_FILE}' is not a JSON object")
        model.training_info = training
        return model.eval()


def build_decoder(charset: CharVocab, dim: int, preset: str | None = "base",
                  teacher_info: dict[str, Any] | None = None, **overrides: Any) -> CharDecoder:
    """A fresh decoder writing ``charset``'s alphabet for vectors of ``dim`` dimensions."""
    params: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ConfigError(f"unknown decoder preset '{preset}' (known: {sorted(PRESETS)})")
        params.update(PRESETS[preset])
    params.update(overrides)
    params.update(dim=dim, num_chars=charset.size)
    params.setdefault("max_length", charset.config.max_chars + 2)
    arch = DecoderArch(**params)
    return CharDecoder(CharDecoderConfig(arch=dataclasses.asdict(arch), charset=charset.to_dict(),
                                         teacher=teacher_info))


AutoConfig.register(MODEL_TYPE, CharDecoderConfig, exist_ok=True)
AutoModel.register(CharDecoderConfig, CharDecoder, exist_ok=True)
