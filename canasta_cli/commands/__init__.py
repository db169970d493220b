"""The ``canasta`` commands: one module per command group, each with ``register(app)``."""
