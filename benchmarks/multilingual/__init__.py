"""Multilingual: the E5 teacher, Spanish-English retrieval and repair with other models."""
