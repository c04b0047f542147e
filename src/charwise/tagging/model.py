"""Word-level tagging (NER, POS) on top of a hybrid model: pooling or S2W merge, a head, fine-tuning.

A :class:`Tagger` is a :class:`~charwise.hybrid.HybridModel` (policy ``none`` is exactly the base
model on the teacher's tokenisation; ``oov``, ``no-suffix``, ``random:p`` ... build chosen words
from their characters), then either

* a :mod:`~charwise.hybrid.pooling` of the model's output piece states into word states (``first``,
  ``last``, ``mean``, ``max``, ``attention``, ``gru``), or
* an :class:`~charwise.tagging.s2w.S2WEncoder` that merges pieces into words after ``s2w_layers`` layers
  and can add a categorical word feature (the UD lemma) after the merge (``merge``) or on every
  piece (``copy``, Sennrich & Haddow),

and a ``linear`` or ``bilstm`` head (XRayEmb's NER head: a BiLSTM over word states, then a linear
layer). ``char_fusion`` gives every word its character-encoder vector *in addition* to the pieces
(the hybrid policies replace the pieces instead): ``concat`` joins it to the word state at the head
(as character features join word embeddings in neural NER taggers), ``merge`` adds it after the S2W
merge, so the layers above the merge contextualise it.
:func:`train_tagger` fine-tunes everything under HF Accelerate: AdamW, linear warm-up over
10 % of the steps then linear decay to zero, evaluation on dev after every epoch, early stopping,
seeded batches. The best model is written atomically to ``OUT/tagger``: ``tagger.json`` (config,
labels, feature vocabulary, dev scores), ``tagger.safetensors`` (pooling / S2W / head),
``model/`` (the fine-tuned HF model and its tokenizer, ``save_pretrained``), ``char_encoder/``
(the fine-tuned character encoder, if the policy or the char fusion uses one) and
``train_words.json`` (the training word types, for the unseen-word split of the evaluation).

Scores: entity-level F1 with seqeval conventions for NER (``wnut17``), accuracy for POS
(``ewt-upos``); both tasks also report word accuracy split into words that are one vocabulary token
under the base tokenizer (``acc_single``), words it splits into several pieces (or maps to
``[UNK]``; ``acc_multi``) and words not seen in training (``acc_unseen``).
Noisy test sets (:func:`noisy_sentences`) put synthetic typos into the test words at a word rate
and keep the labels (and the feature columns: a lemma column stays the clean lemma).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import torch
from safetensors.torch import save_file
from torch import nn

from charwise.devices import check_device
from charwise.errors import CheckpointError, ConfigError, InputError, MissingInputError
from charwise.hybrid.pooling import WordPooling, build_pooling
from charwise.io import atomic_directory, write_json
from charwise.model_files import owned_cpu_state
from charwise.tagging.config import CHAR_FUSIONS, HEADS, TaggerConfig
from charwise.tagging.s2w import FeatureVocab, S2WEncoder

__all__ = [
    "CHAR_FUSIONS",
    "HEADS",
    "Tagger",
    "TaggerConfig",
    "build_tagger",
    "load_tagger",
    "tagging_loss",
]

FORMAT = "charwise-tagger"
FORMAT_VERSION = 1
BEST_DIR = "tagger"
CONFIG_FILE = "tagger.json"
WEIGHTS_FILE = "tagger.safetensors"
MODEL_DIR = "model"
ENCODER_DIR = "char_encoder"
TRAIN_WORDS_FILE = "train_words.json"


# --- model ---------------------------------------------------------------------------------------
class BiLSTMHead(nn.Module):
    """A BiLSTM over the word states of a sentence, then a linear layer (XRayEmb's NER head)."""

    def __init__(self, dim: int, hidden: int, num_labels: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, num_labels)

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        lengths = mask.sum(dim=1).clamp(min=1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(states, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=states.shape[1])
        return self.out(out)


class LinearHead(nn.Module):
    """One linear layer per word state."""

    def __init__(self, dim: int, num_labels: int) -> None:
        super().__init__()
        self.out = nn.Linear(dim, num_labels)

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.out(states)


class Tagger(nn.Module):
    """Hybrid model + (pooling | S2W merge) + head; one label per word.

    ``forward(words, features=None)`` takes pre-split sentences (and, for a tagger with a word
    feature, one feature string per word) and returns logits ``(B, W, labels)`` and the word mask.
    """

    def __init__(self, hybrid: Any, labels: Sequence[str], config: TaggerConfig,
                 feature_vocab: FeatureVocab | None = None) -> None:
        super().__init__()
        config.validate()
        if config.feature and feature_vocab is None:
            raise ConfigError(f"a tagger with feature {config.feature!r} needs its feature vocabulary")
        self.config = config
        self.labels = list(labels)
        self.label_ids = {label: i for i, label in enumerate(self.labels)}
        self.feature_vocab = feature_vocab if config.feature else None
        self.hybrid = hybrid
        self.meta: dict[str, Any] = {}  # tagger.json of a loaded tagger
        self.train_words: set[str] | None = None  # training word types of a loaded tagger
        model = hybrid.model
        dim = int(model.config.hidden_size)
        num_layers = int(getattr(model.config, "num_hidden_layers", 0))
        char_dim = 0
        if config.char_fusion != "none":
            if hybrid.encoder is None:
                raise ConfigError(f"char fusion {config.char_fusion!r} needs a character encoder")
            char_dim = int(hybrid.encoder.dim)
        self.s2w: S2WEncoder | None = None
        self.pooling: WordPooling | None = None
        if config.s2w_layers > 0 or config.feature:
            merge_after = config.s2w_layers if config.s2w_layers > 0 else num_layers
            self.s2w = S2WEncoder(dim, num_layers, merge_after, config.pool,
                                  len(self.feature_vocab) if self.feature_vocab else 0, config.feature_mode,
                                  word_vector_dim=char_dim if config.char_fusion == "merge" else 0)
        else:
            self.pooling = build_pooling(config.pool, dim)
        # concat: the character vector lives in the embedding table's scale, the word state in the
        # last layer's; a LayerNorm puts the two on one footing for the head.
        self.char_norm = nn.LayerNorm(char_dim) if config.char_fusion == "concat" else None
        head_dim = dim + (char_dim if self.char_norm is not None else 0)
        self.dropout = nn.Dropout(config.dropout)
        self.head: nn.Module = (BiLSTMHead(head_dim, config.lstm_hidden, len(self.labels))
                                if config.head == "bilstm" else LinearHead(head_dim, len(self.labels)))

    # --- views ---------------------------------------------------------------------------------
    @property
    def teacher(self) -> Any:
        return self.hybrid.teacher

    def own_modules(self) -> dict[str, nn.Module]:
        """Modules that did not exist before fine-tuning, by name (head learning rate; saved in
        ``tagger.safetensors``)."""
        named = {"pooling": self.pooling, "s2w": self.s2w, "char_norm": self.char_norm, "head": self.head}
        return {name: m for name, m in named.items() if m is not None}

    def word_char_vectors(self, words: Sequence[Sequence[str]], width: int) -> torch.Tensor:
        """``(B, W, d)`` character-encoder vectors of every word (zeros beyond a sentence's words);
        each distinct word of the batch is encoded once."""
        types = list(dict.fromkeys(w for sentence in words for w in sentence))
        vectors = self.hybrid.char_vectors(types) if types else None
        out_dim = int(self.hybrid.encoder.dim)
        device = vectors.device if vectors is not None else torch.device("cpu")
        out = torch.zeros((len(words), width, out_dim), dtype=torch.float32, device=device)
        if vectors is None:
            return out
        index = {w: i for i, w in enumerate(types)}

        def ids(values: list[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.long, device=device)

        rows = ids([index[w] for sentence in words for w in sentence])
        batch = ids([b for b, sentence in enumerate(words) for _ in sentence])
        position = ids([i for sentence in words for i in range(len(sentence))])
        return out.index_put((batch, position), vectors[rows].float())

    def feature_tensor(self, features: Sequence[Sequence[str]] | None, width: int) -> torch.Tensor | None:
        """``(B, W)`` feature ids (0 = padding) of a batch, or None for a tagger without a feature."""
        if self.feature_vocab is None:
            return None
        if features is None:
            raise InputError(f"this tagger uses the word feature {self.config.feature!r}: pass one value per word")
        ids = torch.zeros((len(features), width), dtype=torch.long)
        for b, values in enumerate(features):
            if values:
                ids[b, : len(values)] = torch.tensor(self.feature_vocab.ids(values), dtype=torch.long)
        return ids

    # --- forward -------------------------------------------------------------------------------
    def forward(self, words: Sequence[Sequence[str]], features: Sequence[Sequence[str]] | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        inputs = self.hybrid.prepare(words)
        counts = torch.tensor([len(w) for w in words], dtype=torch.long, device=inputs.word_index.device)
        width = int(counts.max()) if len(words) else 0
        chars = None
        if self.config.char_fusion != "none":
            chars = self.word_char_vectors(words, width).to(inputs.word_index.device)
        if self.s2w is not None:
            feature_ids = self.feature_tensor(features, width)
            if feature_ids is not None:
                feature_ids = feature_ids.to(inputs.word_index.device)
            states, mask = self.s2w(self.hybrid.model, inputs, counts, feature_ids,
                                    chars if self.config.char_fusion == "merge" else None)
        else:
            assert self.pooling is not None, "built in __init__ whenever there is no S2W encoder"
            hidden = self.hybrid(inputs=inputs).outputs.last_hidden_state
            states, mask = self.pooling(hidden, inputs.word_index, counts)
        if self.char_norm is not None:
            assert chars is not None, "char_norm exists only with char_fusion 'concat'"
            states = torch.cat([states, self.char_norm(chars.to(states.dtype))], dim=-1)
        return self.head(self.dropout(states), mask), mask

    def targets(self, tags: Sequence[Sequence[str]], shape: torch.Size, device: torch.device) -> torch.Tensor:
        """Label ids ``(B, W)`` of a batch; -100 (ignored) for padding and tags the tagger does not know."""
        target = torch.full(tuple(shape), -100, dtype=torch.long, device=device)
        for b, sentence_tags in enumerate(tags):
            ids = [self.label_ids.get(t, -100) for t in sentence_tags]
            if ids:
                target[b, : len(ids)] = torch.tensor(ids, dtype=torch.long, device=device)
        return target

    def loss(self, words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]],
             features: Sequence[Sequence[str]] | None = None) -> torch.Tensor:
        """Mean cross-entropy over the words of a batch."""
        logits, mask = self(words, features)
        return tagging_loss(logits, self.targets(tags, mask.shape, logits.device))

    @torch.inference_mode()
    def predict(self, sentences: Sequence[Sequence[str]], features: Sequence[Sequence[str]] | None = None,
                batch_size: int = 64) -> list[list[str]]:
        """One label per word of every sentence (batched by length; order preserved)."""
        was_training = self.training
        self.eval()
        out: list[list[str]] = [[] for _ in sentences]
        order = sorted((i for i in range(len(sentences)) if len(sentences[i])), key=lambda i: len(sentences[i]))
        try:
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                feats = [features[i] for i in idx] if features is not None else None
                logits, _ = self([sentences[i] for i in idx], feats)
                best = logits.argmax(dim=-1).cpu()
                for row, i in enumerate(idx):
                    out[i] = [self.labels[j] for j in best[row, : len(sentences[i])].tolist()]
        finally:
            self.train(was_training)
        return out

    # --- persistence ---------------------------------------------------------------------------
    def save_pretrained(self, directory: str | os.PathLike, *, extra: dict[str, Any] | None = None,
                        train_words: Sequence[str] | None = None) -> Path:
        """Write the tagger to ``directory`` atomically (see :func:`charwise.io.atomic_directory`).

        Files: ``model/`` (the fine-tuned HF model and its tokenizer, each by its own
        ``save_pretrained``), ``char_encoder/`` (the character encoder's ``save_pretrained``, if the
        tagger uses one), ``tagger.safetensors`` (pooling / S2W / head), ``tagger.json`` (config,
        labels, feature vocabulary, teacher, and ``extra``: dev scores ...) and, with
        ``train_words``, ``train_words.json`` (the training word types).
        """
        directory = Path(directory)
        with atomic_directory(directory) as tmp:
            self.hybrid.model.save_pretrained(tmp / MODEL_DIR, safe_serialization=True)
            self.teacher.tokenizer.save_pretrained(tmp / MODEL_DIR)
            if self.hybrid.encoder is not None:
                self.hybrid.encoder.save_pretrained(tmp / ENCODER_DIR)
            own, aliases = owned_cpu_state({f"{prefix}.{k}": v for prefix, module in self.own_modules().items()
                                            for k, v in module.state_dict().items()})
            save_file(own, str(tmp / WEIGHTS_FILE), metadata={**aliases, "format": FORMAT})
            meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "config": asdict(self.config),
                    "labels": self.labels,
                    "feature_vocab": self.feature_vocab.to_dict() if self.feature_vocab else None,
                    "teacher": self.teacher.describe(), **(extra or {})}
            write_json(tmp / CONFIG_FILE, meta)
            if train_words is not None:
                write_json(tmp / TRAIN_WORDS_FILE, sorted(set(train_words)))
        return directory

    def save(self, directory: str | os.PathLike, extra: dict[str, Any] | None = None,
             train_words: Sequence[str] | None = None) -> Path:
        """The charwise 0.1 name of :meth:`save_pretrained`."""
        return self.save_pretrained(directory, extra=extra, train_words=train_words)

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike, device: str | torch.device | None = None) -> "Tagger":
        """Load a tagger saved by :meth:`save_pretrained` (or a training run's output directory),
        on ``device`` (``None``: the CPU).

        A directory that is not a tagger, or whose weights do not fit its config, raises a
        one-line :class:`~charwise.errors.CheckpointError`.
        """
        from charwise.encoders.base import CharEncoder
        from charwise.teachers import Teacher

        target = check_device(device) if device is not None else None  # a bad device fails before the load
        directory = resolve_tagger_dir(path)
        config_path = directory / CONFIG_FILE
        try:
            meta = json.loads(config_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"'{config_path}' is not valid JSON: {e}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else None
            raise CheckpointError(f"'{directory}' is not a charwise tagger (format {found!r})")
        try:
            config = TaggerConfig.from_dict(meta["config"])
            labels = list(meta["labels"])
            vocab = FeatureVocab.from_dict(meta["feature_vocab"]) if meta.get("feature_vocab") else None
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"bad tagger config in '{config_path}': {e}") from None
        teacher = Teacher.load(directory / MODEL_DIR)
        encoder = (CharEncoder.from_pretrained(directory / ENCODER_DIR) if (directory / ENCODER_DIR).is_dir()
                   else None)
        tagger = build_tagger(config, labels, vocab, teacher=teacher, encoder=encoder)
        from charwise.model_files import load_checked_weights

        expected = {f"{prefix}.{k}": v for prefix, module in tagger.own_modules().items()
                    for k, v in module.state_dict().items()}
        state = load_checked_weights(expected, directory / WEIGHTS_FILE, "the tagger's config")
        for prefix, module in tagger.own_modules().items():
            module.load_state_dict({k[len(prefix) + 1 :]: v for k, v in state.items() if k.startswith(prefix + ".")})
        tagger.meta = meta
        words_file = directory / TRAIN_WORDS_FILE
        tagger.train_words = set(json.loads(words_file.read_text(encoding="utf-8"))) if words_file.is_file() else None
        if target is not None:
            tagger.to(target)
        return tagger.eval()


def build_tagger(config: TaggerConfig, labels: Sequence[str], feature_vocab: FeatureVocab | None = None,
                 teacher: Any = None, encoder: Any = None) -> Tagger:
    """A fresh tagger: the teacher's model (loaded anew: fine-tuning changes it), the policy's
    character encoder, and new pooling / head parameters drawn from ``config.seed``."""
    from charwise.encoders.shipped import resolve_encoder
    from charwise.hybrid.model import HybridModel
    from charwise.hybrid.policies import get_policy
    from charwise.teachers import Teacher

    config.validate()
    teacher = teacher if teacher is not None else Teacher.load(config.teacher)
    policy = get_policy(config.policy, config.seed)
    needs_encoder = policy.needs_encoder or config.char_fusion != "none"
    if needs_encoder:
        user = f"policy '{policy.name}'" if policy.needs_encoder else f"char fusion '{config.char_fusion}'"
        encoder = resolve_encoder(encoder if encoder is not None else config.char_encoder, teacher,
                                  needed_by=user, option="--char-encoder DIR")
    hybrid = HybridModel(teacher.model, teacher, encoder if needs_encoder else None, policy, seed=config.seed)
    torch.manual_seed(config.seed)
    return Tagger(hybrid, labels, config, feature_vocab)


def resolve_tagger_dir(path: str | os.PathLike) -> Path:
    """``path`` itself or ``path/tagger`` (the output directory of a training run)."""
    path = Path(path)
    for candidate in (path, path / BEST_DIR):
        if (candidate / CONFIG_FILE).is_file():
            return candidate
    raise MissingInputError(f"no tagger in '{path}' (expected {CONFIG_FILE} there or in {path / BEST_DIR})")


def load_tagger(path: str | os.PathLike, device: str | torch.device | None = None) -> Tagger:
    """Load a tagger saved by :meth:`Tagger.save_pretrained` (or a training run's output directory),
    on ``device`` (``None``: the CPU)."""
    return Tagger.from_pretrained(path, device)


def tagging_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the words whose target is not -100."""
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=-100)
