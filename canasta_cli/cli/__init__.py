"""The ``canasta`` commands: shared options, bounds and exit codes, and one thin module per command
group, each with ``register(app)``.  A command parses and checks its options, builds a plan and
hands it to the room that owns the work."""
