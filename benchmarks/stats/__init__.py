"""Corpus statistics: how teachers split the words of a corpus."""
