"""Language models: the word and character LMs, and word generation."""
