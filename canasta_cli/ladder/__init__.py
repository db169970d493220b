"""``canasta ladder``: bots and their duplicate-deal results in one SQLite file, ratings from
every deal ever played (``rating.py``), runs that can be interrupted or run side by side
(``store.py``)."""
