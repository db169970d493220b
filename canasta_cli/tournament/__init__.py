"""Tournaments: duplicate deals, parallel games, statistics that mean something."""
