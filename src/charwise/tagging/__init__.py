"""Word-level tagging (NER, POS) on a hybrid model: task data, S2W merge, metrics, model, training."""

from charwise.tagging.evaluate import evaluate_tagger, noisy_sentences
from charwise.tagging.model import Tagger, TaggerConfig, load_tagger
from charwise.tagging.train import train_tagger

__all__ = ["Tagger", "TaggerConfig", "evaluate_tagger", "load_tagger", "noisy_sentences", "train_tagger"]
