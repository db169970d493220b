"""Starter bots written by ``canasta kit init``, one per language."""
