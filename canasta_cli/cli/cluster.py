"""``canasta cluster``: setting up a Dask cluster for tournaments that no bot can reach."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

cluster_app = typer.Typer(help="Set up a Dask cluster for tournaments (TLS certificates).",
                          no_args_is_help=True, rich_markup_mode=None)


@cluster_app.command("init")
def init(
    directory: Annotated[Path, typer.Argument(
        help="Directory for the certificates (created owner-only).")],
    days: Annotated[int, typer.Option(help="How long the certificates are valid.")] = 365,
    port: Annotated[int, typer.Option(help="The scheduler's port, in the printed commands.",
                                      min=1, max=65535)] = 8786,
) -> None:
    """Make a CA, a certificate for the scheduler and workers and one for the tournament
    client, and print the commands that start a TLS cluster and a tournament on it."""
    from ..tournament.certs import CertError, instructions
    from ..tournament.certs import init as make
    try:
        files = make(directory, days)
    except CertError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(instructions(files, port))


def register(app: typer.Typer) -> None:
    app.add_typer(cluster_app, name="cluster")
