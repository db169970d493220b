"""Hosting a game: the referee that runs seats against the engine, the records it writes, replay of
a record, and a match of bot games built from a ``MatchPlan``."""
