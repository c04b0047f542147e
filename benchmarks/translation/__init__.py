"""Translation (Spanish to English Bible verses) with character-aware sources."""
