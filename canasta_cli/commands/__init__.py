"""Command modules: each exposes ``register(app)``."""
