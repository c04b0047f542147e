"""Tagging (WNUT17 entities, UD EWT parts of speech) with the hybrid front end."""
