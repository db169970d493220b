"""The bot workbench: ``bot check``, rare deals, games against a bot, ``bot ask`` with its
transcripts, policies run as bots, and the starters ``kit init`` writes."""
