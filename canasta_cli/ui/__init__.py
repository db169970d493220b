"""The human seat: a table view and a prompt, in a plain shell."""
