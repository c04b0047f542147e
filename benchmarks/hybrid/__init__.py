"""Hybrid models: words the teacher splits encoded from their characters;
retrieval, perplexity, speed, the front end."""
