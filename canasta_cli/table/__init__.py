"""A person at the table: the play session, its saves, the history of games played, and the lessons."""
