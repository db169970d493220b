"""canasta: a command-line Canasta game and bot platform."""

__version__ = "0.1.0"
