"""Architecture presets and the names charwise's models accept, in a module without torch.

The modules that build the models take their presets and names from here (``CNNEncoder.PRESETS``
is ``ENCODER_PRESETS["cnn"]``, ``charwise.translation.model.ARCHITECTURES`` is
:data:`TRANSLATION_ARCHITECTURES`, ...), and so does the command line, which builds its parser
(choices, defaults, help) without importing torch: ``charwise --help`` starts at once. The run
configurations built from these names are in :mod:`charwise.training.config` and
:mod:`charwise.tagging.config`.
"""

from __future__ import annotations

from typing import Any

#: Character encoders: kind -> preset name -> architecture fields over the kind's defaults
#: (``charwise.encoders.cnn.CNNConfig``, ``bilstm.BiLSTMConfig``, ``transformer.TransformerConfig``).
ENCODER_PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "cnn": {
        # Kim et al. 2016, appendix "Hyperparameters", small and large models.
        "kim-small": dict(char_dim=15, widths=[1, 2, 3, 4, 5, 6], channels=[25 * w for w in range(1, 7)],
                          activation="tanh", highway_layers=1),
        "kim-large": dict(char_dim=15, widths=[1, 2, 3, 4, 5, 6, 7],
                          channels=[min(200, 50 * w) for w in range(1, 8)], activation="tanh", highway_layers=2),
        # XRayEmb XR-ENC: widths 2, 3, 4 with 256 channels, max-pool, ReLU, projection.
        "xray": dict(char_dim=200, widths=[2, 3, 4], channels=[256, 256, 256], activation="relu", highway_layers=0),
        # Kim's widths 1-7 with more narrow-width filters, one highway layer, LayerNorm output.
        "wide": dict(char_dim=32, widths=[1, 2, 3, 4, 5, 6, 7], channels=[32, 64, 96, 128, 128, 128, 128],
                     activation="tanh", highway_layers=1, layer_norm=True),
        # Same filters; a wide ReLU hidden layer instead of the highway (a larger "memory" of rows).
        "wide-mlp": dict(char_dim=32, widths=[1, 2, 3, 4, 5, 6, 7], channels=[32, 64, 96, 128, 128, 128, 128],
                         activation="tanh", highway_layers=0, hidden=1536, layer_norm=True),
    },
    "bilstm": {
        "mimick": dict(char_dim=20, hidden=128, layers=1, mlp_hidden=256),
        "large": dict(char_dim=64, hidden=384, layers=1, mlp_hidden=768),
    },
    "transformer": {
        "small": dict(char_dim=128, layers=2, heads=4),
        "char2subword": dict(char_dim=192, layers=4, heads=4),
    },
}

#: Character decoders (``charwise.decoders.lstm.DecoderArch``): preset name -> architecture fields.
DECODER_PRESETS: dict[str, dict[str, Any]] = {
    "small": dict(char_dim=32, hidden=128, layers=2, out_hidden=128),
    "base": dict(char_dim=64, hidden=256, layers=2, out_hidden=256),
    "large": dict(char_dim=64, hidden=512, layers=2, out_hidden=512),
}

#: Character-aware language models (``charwise.lm.model``, Kim et al., appendix): preset name ->
#: architecture fields.
LM_PRESETS: dict[str, dict[str, Any]] = {
    "char-small": dict(input="chars", widths=[1, 2, 3, 4, 5, 6], channels=[25 * w for w in range(1, 7)],
                       highway_layers=1, hidden=300),
    "char-large": dict(input="chars", widths=[1, 2, 3, 4, 5, 6, 7], channels=[min(200, 50 * w) for w in range(1, 8)],
                       highway_layers=2, hidden=650),
    "word-small": dict(input="words", word_dim=200, hidden=200),
    "word-large": dict(input="words", word_dim=650, hidden=650),
}

#: The sides of the verse-aligned Bible a language model reads (``charwise.lm.data``).
LM_LANGUAGES = ("en", "es")

#: Translation models (``charwise.translation.model``): architectures, how word features enter,
#: the word features (``charwise.translation.features``) and the held-out splits
#: (``charwise.translation.data``).
TRANSLATION_ARCHITECTURES = ("transformer", "s2w", "s2w-words")
TRANSLATION_FEATURE_MODES = ("none", "copy", "merge")
TRANSLATION_FEATURES = ("lemma", "shape")
TRANSLATION_SPLITS = ("verses", "books")

#: Pieces -> word poolings (``charwise.hybrid.pooling.POOLINGS``, which builds them).
POOLINGS = ("first", "last", "mean", "max", "attention", "gru")

#: Beam width of a decoder's spellings (``CharDecoder.spellings``, ``spelling_report``, ``charwise decoder``).
DECODER_BEAM = 5
#: Beam width and length penalty of translation (``TranslationModel.translate``, the search and the
#: evaluation in ``charwise.translation``, ``charwise translate``).
TRANSLATION_BEAM = 5
TRANSLATION_LENGTH_PENALTY = 1.0

#: The hybrid policy used when none is named: confidently misspelled words are read as their correction.
DEFAULT_POLICY = "repair"
#: How the command line describes the policies (``charwise.hybrid.policies.get_policy`` parses them).
POLICY_HELP = ("repair (default: read confidently misspelled words as their correction; repair:es for Spanish), "
               "repair+oov, repair+oov-lower, none, oov, multi, no-suffix, random:P or all")
#: Training the character encoder needs a policy that picks words for it.
CHAR_POLICY_HELP = "which words are built from characters: oov, multi, no-suffix, random:P or all"
