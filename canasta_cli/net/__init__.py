"""Play across machines: a table server (``canasta serve``), remote seats behind the Seat
interface, and the clients of ``canasta join`` (a person, a bot, a spectator)."""
