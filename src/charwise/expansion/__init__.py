"""Vocabulary expansion (Wang et al. 2019): new whole-word tokens with good embedding rows."""
