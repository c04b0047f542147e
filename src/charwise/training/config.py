"""The configurations of charwise's training runs, in a module without torch.

Each dataclass holds everything that determines one kind of run and is saved next to its outputs:
:class:`TrainConfig` (with :class:`LossWeights`; ``charwise train``), :class:`SpellingConfig`
(``charwise decoder train``), :class:`TuneConfig` (``charwise tune``), :class:`PretrainConfig`
(``charwise pretrain``), :class:`GeneratorConfig` (``charwise generator train``),
:class:`LMConfig` (``charwise lm train``) and :class:`TranslateConfig` (``charwise translate
train``). The trainers import them from here (and still export them, as
``charwise.training.approximation.TrainConfig`` and so on); the command line takes its defaults
from them without importing torch, so that the library and the command line cannot disagree on a
default and ``charwise --help`` starts at once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from charwise.errors import ConfigError
from charwise.languages import check_language
from charwise.presets import (
    LM_LANGUAGES,
    LM_PRESETS,
    TRANSLATION_ARCHITECTURES,
    TRANSLATION_FEATURE_MODES,
    TRANSLATION_FEATURES,
)
from charwise.typos.realistic import check_noise_language

if TYPE_CHECKING:
    from charwise.charset import CharVocab
    from charwise.tagging.s2w import FeatureVocab
    from charwise.translation.model import TranslationConfig

#: Training noise models: ``"single"``, one Char2Subword typo per noisy sample
#: (:class:`~charwise.typos.single.Noiser`); ``"realistic"``, one to three spelling errors by
#: sound, by rule and by keyboard (:class:`~charwise.typos.realistic.RealisticNoiser`, which
#: already includes the keyboard operations, so it is used alone); ``"mixed"``, each noisy sample
#: drawn from one or the other with equal probability (real misspellings are both: one slip of
#: the finger as often as a misremembered spelling).
NOISE_MODELS = ("single", "realistic", "mixed")
#: Second pre-training: ``"frozen"`` (the transformer frozen, Char2Subword) or ``"full"`` (XRayEmb 2PT).
PRETRAIN_MODES = ("frozen", "full")
#: Fields of :class:`TrainConfig` added after charwise 0.2: left out of the saved configuration
#: while at their default, so that runs saved before them resume (the engine compares saved and
#: current configurations).
_LATER_FIELDS = {"noise": "single", "noise_language": "en", "losses.ce_negatives": 0, "init_encoder": ""}


def without_later_defaults(config: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """``config`` less the fields in ``later`` (name -> default; ``"a.b"`` for a nested field) that
    are at their defaults: a field added to a configuration after runs were saved stays out of the
    saved configuration until it is used, so those runs still resume (the engine compares them)."""
    for dotted, default in later.items():
        *parents, name = dotted.split(".")
        holder = config
        for parent in parents:
            holder = holder[parent]
        if holder[name] == default:
            del holder[name]
    return config


def _check_noise(noise: str) -> None:
    if noise not in NOISE_MODELS:
        raise ConfigError(f"noise must be one of {', '.join(NOISE_MODELS)}, got {noise!r}")


# --- charwise train: the approximation phase ------------------------------------------------------
@dataclass
class LossWeights:
    """Weights of the approximation objective; 0 disables a term."""

    cos: float = 1.0
    l2: float = 1.0
    nbr: float = 1.0
    ce: float = 1.0
    contrastive: float = 1.0  # in-batch + hard negatives: +4.7 points noisy top-1 (ablation_minilm.json)
    # Logit scale of the tied cross-entropy in units of the table's mean squared row norm, so one
    # value means the same sharpness for MiniLM (norms ~1) and SmolLM2 (norms ~3). The shipped
    # MiniLM encoder used 10; at 1,200 steps 30 trades 1 point of avg_prec for 9 of accuracy and
    # 3 of noisy top-1 (benchmarks/results/ablation_minilm.json).
    ce_scale: float = 10.0
    ce_negatives: int = 0  # 0: softmax over the whole table; > 0: sampled softmax over this many rows
    nbr_k: int = 10
    hard_negatives: int = 5
    temperature: float = 0.05

    def active(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in ("cos", "l2", "nbr", "ce", "contrastive") if getattr(self, k) > 0}


@dataclass
class TrainConfig:
    """Everything that determines a training run (saved next to its outputs)."""

    teacher: str = "minilm"
    encoder: str = "cnn"
    preset: str | None = "wide-mlp"
    encoder_overrides: dict[str, Any] = field(default_factory=dict)
    steps: int = 6000
    batch_size: int = 256
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_steps: int = 100
    min_lr_ratio: float = 0.05
    grad_clip: float = 1.0
    noise_ratio: float = 0.5  # share of eligible samples (longer than 4 chars) replaced by a noisy copy
    noise_layouts: list[str] = field(default_factory=lambda: ["us", "uk", "de", "fr", "es"])
    noise: str = "single"  # NOISE_MODELS: "single" (one typo), "realistic" (1-3 spelling errors) or "mixed"
    noise_language: str = "en"  # rule table(s) of the realistic noise (misspell.LANGUAGES; "en+es": both)
    losses: LossWeights = field(default_factory=LossWeights)
    heldout_fraction: float = 0.05
    eval_every: int = 500
    eval_words: int = 2000
    seed: int = 0
    max_chars: int = 32
    hash_buckets: int = 64
    checkpoint_every: int = 250
    train_rows_limit: int = 0  # >0: train on a seeded subset of this many rows (quick runs and tests)
    # Start from this saved encoder (a shipped name or a directory) instead of random weights: more
    # passes for an undertrained encoder. Its teacher, architecture, alphabet and held-out words must
    # be this run's, so the held-out words stay unseen.
    init_encoder: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainConfig":
        data = dict(data)
        data["losses"] = LossWeights(**data.get("losses", {}))
        return cls(**data)

    def __post_init__(self) -> None:
        _check_noise(self.noise)
        check_noise_language(self.noise_language)

    def to_dict(self) -> dict[str, Any]:
        """``asdict(self)`` less the fields added after 0.2 that are at their defaults (see
        :data:`_LATER_FIELDS`), so a run started before them resumes under its saved configuration."""
        return without_later_defaults(asdict(self), _LATER_FIELDS)


# --- charwise decoder train -------------------------------------------------------------------------
@dataclass
class SpellingConfig:
    """Everything that determines a decoder training run (saved next to its outputs)."""

    encoder: str = "minilm"  # a shipped encoder's name or an encoder directory; its teacher is the teacher
    preset: str = "base"  # decoder preset (charwise.decoders.PRESETS)
    init_decoder: str = ""  # start from this saved decoder (its alphabet and dimension must match)
    decoder_overrides: dict[str, Any] = field(default_factory=dict)
    steps: int = 4000
    batch_size: int = 256
    lr: float = 2e-3
    weight_decay: float = 0.0
    warmup_steps: int = 100
    min_lr_ratio: float = 0.05
    grad_clip: float = 1.0
    rows: float = 1.0  # weight of spelling the teacher's rows
    cycle_ed: float = 1.0  # weight of the E -> D loop (string -> encoder -> decoder -> clean string)
    cycle_de: float = 0.0  # weight of the D -> E loop (vector -> decoder -> encoder -> vector); needs train_encoder
    approx: float = 1.0  # weight of the encoder's approximation loss (only with train_encoder)
    train_encoder: bool = False
    encoder_lr: float = 3e-4
    noise: str = "mixed"  # noise of the E -> D strings: single, realistic or mixed (as charwise train)
    noise_ratio: float = 0.5  # share of eligible E -> D strings given noise
    random_vectors: float = 0.5  # share of D -> E starting points drawn at random instead of rows
    eval_every: int = 500
    eval_words: int = 1000
    checkpoint_every: int = 250
    seed: int = 0
    train_rows_limit: int = 0  # >0: a seeded subset of the training rows (quick runs and tests)

    def __post_init__(self) -> None:
        _check_noise(self.noise)
        for name in ("rows", "cycle_ed", "cycle_de", "approx"):
            if getattr(self, name) < 0:
                raise ConfigError(f"the {name} weight must be >= 0, got {getattr(self, name)}")
        if self.rows == 0 and self.cycle_ed == 0:
            raise ConfigError("the decoder needs a loss: rows or cycle_ed must be > 0")
        if self.cycle_de > 0 and not self.train_encoder:
            raise ConfigError("the D -> E loop trains only the encoder: it needs train_encoder")
        for name in ("noise_ratio", "random_vectors"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.steps < 1 or self.batch_size < 1:
            raise ConfigError("steps and batch_size must be >= 1")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SpellingConfig":
        return cls(**data)


# --- charwise tune ----------------------------------------------------------------------------------
@dataclass
class TuneConfig:
    """Everything that determines a hybrid-tuning run (saved next to its outputs)."""

    corpora: list[str] = field(default_factory=list)  # plain text, CoNLL or CoNLL-U files
    teacher: str = "minilm"
    encoder: str = "minilm"  # the encoder to start from: shipped name or directory
    policy: str = "oov"
    objective: str = "distill"  # "distill" (any model) or "lm" (causal LMs: next-word likelihood)
    steps: int = 600
    batch_size: int = 32
    lr: float = 3e-4
    weight_decay: float = 0.01
    warmup_steps: int = 30
    min_lr_ratio: float = 0.0
    grad_clip: float = 1.0
    typo_rate: float = 0.3  # per eligible word, on the student's side
    clean_share: float = 0.3  # sentences the student also sees clean
    word_weight: float = 1.0
    sentence_weight: float = 1.0
    anchor_weight: float = 1.0
    max_words: int = 48
    validation_sentences: int = 256
    eval_every: int = 100
    checkpoint_every: int = 50
    seed: int = 0


# --- charwise pretrain ------------------------------------------------------------------------------
@dataclass
class PretrainConfig:
    """Everything that determines a second pre-training run (saved next to its outputs)."""

    corpora: list[str] = field(default_factory=list)  # plain text, CoNLL or CoNLL-U files
    teacher: str = "minilm"  # a BERT-family teacher (masked LM)
    encoder: str = "minilm"  # the encoder to start from: shipped name or directory
    mode: str = "frozen"  # "frozen" (Char2Subword: transformer frozen) or "full" (XRayEmb 2PT)
    policy: str = "oov"
    steps: int = 2000
    batch_size: int = 32
    lr: float = 3e-4  # the character encoder
    head_lr: float = 1e-3  # the MLM head's transform, trained from scratch
    model_lr: float = 5e-5  # the transformer, in mode "full"
    weight_decay: float = 0.01
    warmup_steps: int = 100
    min_lr_ratio: float = 0.0
    grad_clip: float = 1.0
    mask_rate: float = 0.15  # share of each sentence's words masked (at least one)
    noise: str = "mixed"  # typo model: single (keyboard edits), realistic (human misspellings) or mixed
    typo_rate: float = 0.2  # per eligible word of a noisy sentence
    clean_share: float = 0.3  # sentences left without typos
    anchor_weight: float = 1.0
    max_words: int = 32  # longer sentences are cut: the cost of a step grows with its longest sentence
    validation_sentences: int = 256
    eval_every: int = 250
    checkpoint_every: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in PRETRAIN_MODES:
            raise ConfigError(f"mode must be one of {', '.join(PRETRAIN_MODES)}, got {self.mode!r}")
        _check_noise(self.noise)
        for name in ("mask_rate", "typo_rate", "clean_share"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.mask_rate == 0:
            raise ConfigError("mask_rate must be > 0: the masked words are the training signal")
        if self.steps < 1 or self.batch_size < 1:
            raise ConfigError("steps and batch_size must be >= 1")


# --- charwise generator train -----------------------------------------------------------------------
@dataclass
class GeneratorConfig:
    """Everything that determines a word-head training run (saved next to its outputs)."""

    corpora: list[str] = field(default_factory=list)  # plain text, CoNLL or CoNLL-U files
    decoder: str = ""  # a decoder directory trained for the teacher (`charwise decoder train`)
    teacher: str = "smollm2"  # a causal LM
    encoder: str = ""  # the hybrid LM's encoder (default: the teacher's shipped one)
    policy: str = "oov"
    inner: int = 1024  # the head's hidden width
    steps: int = 400
    batch_size: int = 16
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_steps: int = 30
    min_lr_ratio: float = 0.05
    grad_clip: float = 1.0
    typo_rate: float = 0.2
    clean_share: float = 0.5
    max_words: int = 32
    validation_sentences: int = 128
    eval_every: int = 100
    checkpoint_every: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.decoder:
            raise ConfigError("a word head needs a decoder to spell its vectors: train one with "
                              "`charwise decoder train --encoder ENCODER` and pass its decoder/ directory")
        for name in ("typo_rate", "clean_share"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.steps < 1 or self.batch_size < 1 or self.inner < 1:
            raise ConfigError("steps, batch_size and inner must be >= 1")


# --- charwise lm train ------------------------------------------------------------------------------
@dataclass
class LMConfig:
    """Everything that determines a language-model run (saved next to its outputs)."""

    language: str = "en"  # a side of the verse-aligned Bible: en (KJV) or es (Reina-Valera 1909)
    corpus: str = ""  # another verse-aligned TSV (ref, es, en); default: the built-in one
    preset: str = "char-small"
    model_overrides: dict[str, Any] = field(default_factory=dict)  # architecture fields over the preset's
    encoder: str = ""  # a charwise encoder in place of the CharCNN (name or directory)
    freeze_encoder: bool = True
    min_count: int = 2  # output words seen fewer times in training become <unk> (targets only)
    epochs: int = 25
    batch_size: int = 20
    bptt: int = 35
    lr: float = 1.0
    grad_clip: float = 5.0
    decay: float = 0.5
    decay_threshold: float = 1.0  # perplexity points an epoch must gain, else the rate is decayed
    eval_batch_size: int = 1
    max_train_tokens: int = 0  # >0: the first N training tokens only (tests, quick runs)
    seed: int = 0

    def __post_init__(self) -> None:
        check_language(self.language, LM_LANGUAGES, "language model data")
        if self.preset not in LM_PRESETS:
            raise ConfigError(f"unknown preset {self.preset!r} (known: {', '.join(sorted(LM_PRESETS))})")
        for name in ("min_count", "epochs", "batch_size", "bptt", "eval_batch_size"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.lr <= 0 or not 0 < self.decay <= 1:
            raise ConfigError(f"lr must be > 0 and decay in (0, 1], got {self.lr}, {self.decay}")


# --- charwise translate train -----------------------------------------------------------------------
@dataclass
class TranslateConfig:
    """Everything that determines a translation run (saved next to its outputs)."""

    architecture: str = "transformer"  # transformer | s2w | s2w-words
    feature_mode: str = "none"  # none | copy (Sennrich & Haddow) | merge (S2W)
    features: list[str] = field(default_factory=lambda: list(TRANSLATION_FEATURES))  # unless feature_mode is none
    char_vectors: bool = False  # S2W: add a character vector of each word at the merge
    corpus: str = ""  # another verse-aligned TSV (ref, es, en); default: the built-in Bible
    split: str = "verses"  # verses (seeded) | books
    dev: int = 1000
    test: int = 1000
    split_seed: int = 0
    max_train_pairs: int = 0  # >0: the first N training pairs only (tests, quick runs)
    source_vocab: int = 8000
    target_vocab: int = 8000
    dim: int = 256
    heads: int = 4
    ffn: int = 1024
    encoder_layers: int = 4
    encoder_subword_layers: int = 2
    decoder_layers: int = 4
    decoder_subword_layers: int = 2
    pooling: str = "gru"
    dropout: float = 0.1
    steps: int = 4000
    batch_tokens: int = 4096
    lr: float = 7e-4
    warmup: int = 800
    label_smoothing: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 500
    seed: int = 0
    average_last: int = 0  # >0: also write the mean of the last K evaluated checkpoints

    def __post_init__(self) -> None:
        if self.architecture not in TRANSLATION_ARCHITECTURES:
            raise ConfigError(f"architecture must be one of {', '.join(TRANSLATION_ARCHITECTURES)}, "
                              f"got {self.architecture!r}")
        if self.feature_mode not in TRANSLATION_FEATURE_MODES:
            raise ConfigError(f"feature_mode must be one of {', '.join(TRANSLATION_FEATURE_MODES)}, "
                              f"got {self.feature_mode!r}")
        unknown = [f for f in self.features if f not in TRANSLATION_FEATURES]
        if unknown or (self.feature_mode != "none" and not self.features):
            raise ConfigError(f"features must be some of {', '.join(TRANSLATION_FEATURES)}, got {self.features}")
        for name in ("steps", "batch_tokens", "dim", "heads", "ffn", "encoder_layers", "decoder_layers", "eval_every"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.max_train_pairs < 0 or self.warmup < 0 or self.average_last < 0:
            raise ConfigError(f"max_train_pairs, warmup and average_last must be >= 0, got {self.max_train_pairs}, "
                              f"{self.warmup}, {self.average_last}")
        if self.architecture == "transformer" and (self.feature_mode == "merge" or self.char_vectors):
            raise ConfigError("merged features and character vectors need an S2W architecture (s2w, s2w-words)")
        if self.lr <= 0 or not 0 <= self.label_smoothing < 1 or not 0 <= self.dropout < 1:
            raise ConfigError("lr must be > 0, label_smoothing and dropout in [0, 1)")

    def run_config(self) -> dict[str, Any]:
        """``asdict(self)`` less ``average_last`` when it is off (a field added later), so that runs
        started before it resume under their saved configuration."""
        return without_later_defaults(asdict(self), {"average_last": 0})

    def model_config(self, source_vocab: int, target_vocab: int, feature_vocabs: dict[str, FeatureVocab],
                     charset: CharVocab | None) -> TranslationConfig:
        from charwise.translation.model import TranslationConfig

        return TranslationConfig(
            architecture=self.architecture, source_vocab=source_vocab, target_vocab=target_vocab, dim=self.dim,
            heads=self.heads, ffn=self.ffn, encoder_layers=self.encoder_layers,
            encoder_subword_layers=self.encoder_subword_layers, decoder_layers=self.decoder_layers,
            decoder_subword_layers=self.decoder_subword_layers, pooling=self.pooling, dropout=self.dropout,
            feature_mode=self.feature_mode, feature_vocabs={k: v.to_dict() for k, v in feature_vocabs.items()},
            char_vectors=self.char_vectors, charset=charset.to_dict() if charset is not None else None)
