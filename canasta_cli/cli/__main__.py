"""``python -m canasta_cli.cli``: the ``canasta`` command, as before the app moved to the package's
``__main__``."""

from canasta_cli.__main__ import main

if __name__ == "__main__":
    main()
