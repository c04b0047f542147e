"""Hybrid models as a sentence-transformers module: ``encode``, ``similarity``, evaluators, trainer.

:class:`CharwiseHybrid` is the input module of a ``SentenceTransformer``: it takes raw texts and
outputs the hybrid model's ``token_embeddings`` and ``attention_mask``, so sentence-transformers'
own ``Pooling`` and ``Normalize`` modules follow it::

    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling     # sentence_transformer.modules in v6

    model = SentenceTransformer(modules=[CharwiseHybrid("minilm", policy="oov"), Pooling(384, "mean"), Normalize()])
    # the same, in one call:
    model = sentence_transformer("minilm", policy="oov")
    emb = model.encode(["the hotel was grate", "the hotel was great"])
    model.similarity(emb, emb)

With policy ``none`` this is all-MiniLM-L6-v2 itself; with ``oov`` the words MiniLM's tokenizer
splits are built from their characters. The character vectors are computed inside
:meth:`CharwiseHybrid.forward`, so gradients reach the character encoder and
``SentenceTransformerTrainer`` trains it like any other weight (the trainer needs the ``datasets``
package, e.g. ``pip install sentence-transformers[train]``).

Features. :meth:`CharwiseHybrid.preprocess` (``tokenize``) does not tokenise: it stores each text
as its Unicode code points, ``input_ids`` ``(B, L)`` padded with 0 and ``attention_mask`` ``(B, L)``.
These are ordinary padded integer tensors, so everything sentence-transformers does with a batch
between preprocessing and ``forward`` works: moving it to a device, merging the columns of a loss
into one batch, cutting it into mini-batches (cached losses), trimming padding, and the trainer
finding the columns by their ``input_ids``. :meth:`~CharwiseHybrid.forward` turns the code points
back into the texts and runs the same code as :class:`charwise.hybrid.sentence.SentenceEncoder`
(:meth:`HybridModel.prepare_texts`: words, policy, pieces, character vectors, then the model). It
returns a new dict whose ``input_ids``, ``attention_mask``, ``token_embeddings`` and ``word_index``
describe the hybrid sequence (one position per character-built word); the input dict is left as it
was, so a cached loss can run ``forward`` twice on the same features.

Saving writes only HF-native and safetensors files: ``model/`` (the HF model and its tokenizer,
``save_pretrained``), ``encoder/`` (the character encoder, ``save_pretrained``) and
``charwise_hybrid.json`` (policy and :class:`~charwise.hybrid.adapter.ModelAdapter`). Since
sentence-transformers 6, loading a saved ``SentenceTransformer`` whose modules come from another
package needs ``SentenceTransformer(path, trust_remote_code=True)`` (the class is imported from the
installed charwise; no code is read from the directory).

sentence-transformers is optional (``pip install charwise[st]``): this module imports without it,
:class:`CharwiseHybrid` works as a plain ``nn.Module`` (``SentenceEncoder`` is built on it), and only
:func:`sentence_transformer` needs the package.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import shutil
import warnings
from pathlib import Path
from typing import Any, Sequence

import torch
from torch import nn

from charwise.devices import check_device
from charwise.encoders.base import CharEncoder
from charwise.errors import CheckpointError, ConfigError
from charwise.hybrid.adapter import ModelAdapter
from charwise.hybrid.model import HybridInputs, HybridModel
from charwise.hybrid.policies import Policy, RepairPolicy, get_policy
from charwise.presets import DEFAULT_POLICY
from charwise.teachers import Teacher

__all__ = ["CharwiseHybrid", "decode_texts", "encode_texts", "sentence_transformer", "sentence_transformer_from"]

CONFIG_NAME = "charwise_hybrid.json"
FORMAT = "charwise-hybrid"
FORMAT_VERSION = 1
MODEL_DIR = "model"
ENCODER_DIR = "encoder"
INSTALL_HINT = "sentence-transformers is not installed; run: pip install charwise[st]"


def _require_sentence_transformers():
    try:
        import sentence_transformers
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return sentence_transformers


def _pooling_and_normalize() -> tuple[type, type]:
    _require_sentence_transformers()
    try:  # sentence-transformers >= 6 (sentence_transformers.models is a deprecated alias there)
        modules = importlib.import_module("sentence_transformers.sentence_transformer.modules")
    except ImportError:  # 5.x
        modules = importlib.import_module("sentence_transformers.models")
    return modules.Pooling, modules.Normalize


# --- texts <-> tensors -------------------------------------------------------------------------
def encode_texts(texts: Sequence[str]) -> dict[str, torch.Tensor]:
    """``input_ids`` (code points, ``(B, L)`` long, 0-padded) and ``attention_mask`` for ``texts``."""
    codes = [[ord(c) for c in t] for t in texts]
    width = max((len(c) for c in codes), default=0)
    input_ids = torch.zeros((len(codes), width), dtype=torch.long)
    attention = torch.zeros((len(codes), width), dtype=torch.long)
    for b, row in enumerate(codes):
        if row:
            input_ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
            attention[b, : len(row)] = 1
    return {"input_ids": input_ids, "attention_mask": attention}


def decode_texts(input_ids: torch.Tensor, attention_mask: torch.Tensor) -> list[str]:
    """The texts :func:`encode_texts` stored (right padding of any width is ignored)."""
    if input_ids.dim() != 2 or input_ids.shape != attention_mask.shape:
        raise ValueError(f"expected (batch, characters) code points and mask, got {tuple(input_ids.shape)} "
                         f"and {tuple(attention_mask.shape)}")
    lengths = attention_mask.sum(dim=1).tolist()
    rows = input_ids.tolist()
    return ["".join(map(chr, row[:n])) for row, n in zip(rows, lengths)]


def read_module_config(config_path: Path, format: str, version: int, what: str) -> dict[str, Any]:
    """The JSON config of a saved module, with one-line errors for a missing, damaged, foreign or
    too new file (``format`` and ``format_version`` fields)."""
    if not config_path.is_file():
        raise CheckpointError(f"'{config_path.parent}' is not a saved {what} (no {config_path.name})")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"'{config_path}' is not valid JSON: {e}") from None
    if not isinstance(config, dict) or config.get("format") != format:
        raise CheckpointError(f"'{config_path}' is not a {what} config (format is not '{format}')")
    found = config.get("format_version")
    if not isinstance(found, int) or found > version:
        raise CheckpointError(f"'{config_path}' has format version {found!r}; this charwise reads up to {version}")
    return config


# --- the module ----------------------------------------------------------------------------
def _check_sentence_model(hybrid: HybridModel) -> None:
    """Refuse a causal language model: sentence vectors are a bidirectional encoder's mean states."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    model_type = getattr(getattr(hybrid.model, "config", None), "model_type", None)
    if model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        raise ConfigError(f"sentence vectors need an encoder model (BERT-style); teacher "
                          f"'{hybrid.teacher.name}' is a causal language model ({model_type}): use "
                          "charwise.HybridModel for it, or a sentence-embedding teacher such as minilm")


class CharwiseHybrid(nn.Module):
    """A sentence-transformers input module: texts -> the hybrid model's token embeddings.

    Args:
        teacher: ``"minilm"``, a model directory or a :class:`~charwise.teachers.Teacher`.
        policy: which words come from characters (a name or a :class:`~charwise.hybrid.policies.Policy`).
        encoder: a shipped encoder name, a directory or a :class:`CharEncoder`; default: the one
            shipped for ``teacher`` (not needed with policy ``none``).
        max_length: positions per text, special tokens included (all-MiniLM-L6-v2 uses 256; never
            more than the model allows; ``None``: the model's limit). Longer texts are truncated
            with a warning.
        hybrid: an already built :class:`HybridModel` (then ``teacher``, ``policy`` and ``encoder``
            are not used).
        device: where it runs (``"cpu"``, ``"cuda"``...); ``None``: where the model already is.
    """

    save_in_root = False  # sentence-transformers: save into a subfolder, not the model's root
    forward_kwargs: set[str] = set()

    def __init__(
        self, teacher: str | Teacher = "minilm", policy: str | Policy = DEFAULT_POLICY,
        encoder: str | CharEncoder | None = None, *, max_length: int | None = 256, seed: int = 0,
        hybrid: HybridModel | None = None, device: str | torch.device | None = None,
    ) -> None:
        super().__init__()
        if hybrid is None:
            hybrid = HybridModel.from_teacher(teacher, policy=policy, encoder=encoder, seed=seed, device=device)
        elif device is not None:
            hybrid.to(check_device(device))
        elif not isinstance(hybrid, HybridModel):
            raise ConfigError(f"hybrid must be a HybridModel, got {type(hybrid).__name__}")
        _check_sentence_model(hybrid)
        self.hybrid = hybrid
        if max_length is not None:
            if int(max_length) < 1:
                raise ConfigError(f"max_length must be positive, got {max_length}")
            self.hybrid.adapter.max_length = min(int(max_length), self.hybrid.adapter.max_length)
        self._warned_max_length = False

    # --- what sentence-transformers asks of an input module ------------------------------
    @property
    def policy(self) -> Policy:
        return self.hybrid.policy

    @property
    def tokenizer(self) -> Any:
        """The teacher's tokenizer (``SentenceTransformer.tokenizer``)."""
        return self.hybrid.teacher.tokenizer

    @property
    def max_seq_length(self) -> int:
        """Positions per text, special tokens included (``SentenceTransformer.max_seq_length``)."""
        return self.hybrid.adapter.max_length

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if int(value) < 1:
            raise ConfigError(f"max_seq_length must be positive, got {value}")
        self.hybrid.adapter.max_length = int(value)

    def get_embedding_dimension(self) -> int:
        """Dimension of the token embeddings (the model's hidden size)."""
        config = getattr(self.hybrid.model, "config", None)
        return int(getattr(config, "hidden_size", None) or self.hybrid.teacher.dim)

    def get_word_embedding_dimension(self) -> int:
        """The name sentence-transformers < 6 uses for :meth:`get_embedding_dimension`."""
        return self.get_embedding_dimension()

    def preprocess(self, inputs: Sequence[str], prompt: str | None = None, **kwargs: Any) -> dict[str, torch.Tensor]:
        """Texts -> features for :meth:`forward` (code points; see the module docstring).

        ``prompt`` is prepended to every text. ``task`` and other sentence-transformers keywords are
        accepted and ignored; ``max_length`` is ignored with a warning (set :attr:`max_seq_length`).
        """
        max_length = kwargs.get("max_length")
        if max_length is not None and max_length != self.max_seq_length and not self._warned_max_length:
            self._warned_max_length = True
            warnings.warn(f"CharwiseHybrid ignores max_length={max_length}; it truncates to max_seq_length="
                          f"{self.max_seq_length} positions", stacklevel=2)
        return encode_texts(self.checked_texts(inputs, prompt))

    def checked_texts(self, inputs: Sequence[str], prompt: str | None = None) -> list[str]:
        """The texts :meth:`preprocess` encodes: each of ``inputs`` (a text, else a one-line error),
        after ``prompt``, cut to what the model's window can hold."""
        if isinstance(inputs, str):
            raise TypeError("preprocess() takes a list of texts, not a single string")
        texts = []
        for item in inputs:
            if isinstance(item, (tuple, list)):
                raise ConfigError("CharwiseHybrid embeds single texts, not text pairs")
            if not isinstance(item, str):
                raise TypeError(f"CharwiseHybrid embeds texts, got {type(item).__name__}")
            text = prompt + item if prompt else item
            # What the window can hold at most (HybridModel.prepare_texts reads no further): the
            # code points of the rest of a very long text are never stored.
            texts.append(text[: (self.max_seq_length + 1) * (self.hybrid.max_word_chars + 1)])
        return texts

    def tokenize(self, texts: Sequence[str], **kwargs: Any) -> dict[str, torch.Tensor]:
        """The name sentence-transformers < 6 uses for :meth:`preprocess`."""
        return self.preprocess(texts, **kwargs)

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Run the hybrid model on the texts in ``features``; character vectors are computed here
        (differentiable in training mode). Returns a new dict (see the module docstring)."""
        texts = decode_texts(features["input_ids"], features["attention_mask"])
        inputs = self.hybrid.prepare_texts(texts)
        out = dict(features)
        out.update(
            input_ids=inputs.input_ids,
            attention_mask=inputs.attention_mask,
            word_index=inputs.word_index,
            token_embeddings=self.states(inputs),
        )
        return out

    def states(self, inputs: HybridInputs) -> torch.Tensor:
        """The model's last hidden states ``(batch, positions, hidden)`` for prepared ``inputs``."""
        model = self.hybrid.model
        base = getattr(model, "base_model", model)
        if base is model:
            return self.hybrid(inputs=inputs).outputs.last_hidden_state
        # A model with a head (a causal LM): the base model's states, without computing logits.
        return base(inputs_embeds=inputs.inputs_embeds, attention_mask=inputs.attention_mask).last_hidden_state

    def __repr__(self) -> str:
        # One line, like sentence-transformers' own modules (not the whole HF model tree).
        encoder = type(self.hybrid.encoder).__name__ if self.hybrid.encoder is not None else None
        return (f"CharwiseHybrid(teacher={self.hybrid.teacher.name!r}, policy={self.policy.name!r}, "
                f"max_seq_length={self.max_seq_length}, model={type(self.hybrid.model).__name__}, "
                f"encoder={encoder})")

    # --- persistence: HF-native and safetensors files only -------------------------------
    def _policy_record(self) -> dict[str, Any]:
        policy = self.policy
        seed = int(getattr(policy, "seed", 0))
        try:
            rebuilt = get_policy(policy.name, seed)
        except (ValueError, TypeError):
            rebuilt = None
        if type(rebuilt) is not type(policy):
            raise ConfigError(f"cannot save policy {policy!r}: only the built-in policies are saved by name; "
                              "save with a built-in one and set module.hybrid.policy after loading")
        record: dict[str, Any] = {"name": policy.name, "seed": seed}
        if isinstance(policy, RepairPolicy) and policy.threshold is not None:  # its own threshold
            record["threshold"] = float(policy.threshold)
        return record

    def save(self, output_path: str, *args: Any, safe_serialization: bool = True, **kwargs: Any) -> None:
        """Write ``model/``, ``encoder/`` and ``charwise_hybrid.json`` to ``output_path``.

        Weights are always safetensors (``safe_serialization`` is accepted for sentence-transformers).
        """
        path = Path(output_path)
        path.mkdir(parents=True, exist_ok=True)
        hm = self.hybrid
        config = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "policy": self._policy_record(),
            "adapter": dataclasses.asdict(hm.adapter),
            "teacher": hm.teacher.describe(),
            "encoder": hm.encoder is not None,
        }
        model: Any = hm.model  # an HF PreTrainedModel
        model.save_pretrained(path / MODEL_DIR)
        hm.teacher.tokenizer.save_pretrained(path / MODEL_DIR)
        if hm.encoder is not None:
            hm.encoder.save_pretrained(path / ENCODER_DIR)
        elif (path / ENCODER_DIR).exists():
            shutil.rmtree(path / ENCODER_DIR)
        (path / CONFIG_NAME).write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, input_path: str) -> "CharwiseHybrid":
        """A module saved by :meth:`save` (in eval mode)."""
        path = Path(input_path)
        config = read_module_config(path / CONFIG_NAME, FORMAT, FORMAT_VERSION, "CharwiseHybrid")
        config_path = path / CONFIG_NAME
        try:
            policy = get_policy(config["policy"]["name"], int(config["policy"].get("seed", 0)))
            threshold = config["policy"].get("threshold")
            if threshold is not None and isinstance(policy, RepairPolicy):
                policy = RepairPolicy(policy.language, float(threshold), chars_for_unsure=policy.chars_for_unsure,
                                      lower_only=policy.lower_only)
            adapter = ModelAdapter(**config["adapter"])
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"bad CharwiseHybrid config '{config_path}': {e}") from None
        teacher = Teacher.load(str(path / MODEL_DIR))
        teacher.name = str(config.get("teacher", {}).get("name") or teacher.name)  # "minilm", not the path
        encoder = CharEncoder.from_pretrained(path / ENCODER_DIR) if config.get("encoder") else None
        hybrid = HybridModel(teacher.model, teacher, encoder, policy, adapter=adapter).eval()
        return cls(hybrid=hybrid, max_length=None)


# --- SentenceTransformer builders -------------------------------------------------------------
def sentence_transformer_from(module: CharwiseHybrid, device: str | torch.device | None = None):
    """``SentenceTransformer(modules=[module, Pooling(d, "mean"), Normalize()])``: mean-pooled,
    L2-normalised sentence vectors, as all-MiniLM-L6-v2 makes them."""
    st = _require_sentence_transformers()
    Pooling, Normalize = _pooling_and_normalize()
    pooling = Pooling(module.get_embedding_dimension(), "mean")
    return st.SentenceTransformer(modules=[module, pooling, Normalize()], device=device)


def sentence_transformer(
    teacher: str | Teacher = "minilm", policy: str | Policy = DEFAULT_POLICY, encoder: str | CharEncoder | None = None,
    *, max_length: int | None = 256, device: str | torch.device | None = None,
):
    """A ``SentenceTransformer`` of the hybrid model: :class:`CharwiseHybrid`, mean pooling, normalisation.

    ``sentence_transformer("minilm", policy="none")`` is all-MiniLM-L6-v2; ``policy="repair"``
    (default) reads the words the speller is confident are misspelled as their correction; ``"oov"``
    builds every word MiniLM's tokenizer splits from its characters. Needs ``pip install charwise[st]``.
    """
    _require_sentence_transformers()
    return sentence_transformer_from(CharwiseHybrid(teacher, policy, encoder, max_length=max_length), device=device)
