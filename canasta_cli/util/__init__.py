"""Small helpers every room may use: private files, safe text, processes, package data, seat
names, seeds and which build of the engine runs.  They import nothing of the package above the core."""
