"""Vocabulary expansion: new whole-word rows for a teacher, and what they do downstream."""
