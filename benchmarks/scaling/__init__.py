"""Scaling: worker processes, and checks run on a GPU."""
