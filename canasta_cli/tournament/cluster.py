"""Tournaments on a Dask cluster: an authenticated, encrypted connection, every result checked.

The connection uses Dask's own TLS (``distributed.security.Security``, encryption required):
the scheduler and the workers accept only peers holding a certificate of the cluster's CA
(``canasta cluster init``), so nobody without one (a bot included) can run code on them.  A
plain ``tcp://`` connection is refused unless the person passes ``--cluster-insecure``.

What a worker sends back is checked against the games it was given (``verify``): a result
that is not the scheduled game is reported, that worker gets no more games, and the games are
played again on another worker; when no worker is left, or a share fails again and again, the
tournament stops with a one-line error.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..core.errors import CanastaError
from .certs import ClusterFiles
from .cluster_worker import play_fresh, stop_games
from .rows import rows_problem
from .runner import Config, _close_bots, play_tasks
from .schedule import Task

ATTEMPTS = 3  # plays of one share of games before the tournament stops
_ADDRESS = re.compile(r"(tls|tcp)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]{0,252})"
                      r"(?::([0-9]{1,5}))?")


class ClusterError(CanastaError, RuntimeError):
    """The cluster cannot be used, or gave results that cannot be trusted (one line)."""


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def check_address(address: str, tls: Path | None, insecure: bool) -> str:
    """``tls`` or ``tcp``: the scheme of a usable scheduler address, with its options."""
    m = _ADDRESS.fullmatch(address) if len(address) <= 300 else None
    if m is None or (m.group(3) is not None and not 0 < int(m.group(3)) < 65536):
        shown = address[:80].encode("unicode_escape").decode("ascii")
        raise ClusterError(f"--cluster {shown!r}: expected a scheduler address such as"
                           " tls://HOST:8786")
    scheme = m.group(1)
    if scheme == "tcp" and not insecure:
        raise ClusterError(f"--cluster {address}: a plain tcp:// connection lets anyone who"
                           " reaches the scheduler run code on the workers; use tls:// with"
                           " --cluster-tls DIR (see canasta cluster init), or pass"
                           " --cluster-insecure on a network you trust")
    if scheme == "tcp" and tls is not None:
        raise ClusterError("--cluster-tls goes with a tls:// address")
    if scheme == "tls" and insecure:
        raise ClusterError("--cluster-insecure is for a tcp:// address; a tls:// one needs"
                           " --cluster-tls DIR")
    if scheme == "tls" and tls is None:
        raise ClusterError(f"--cluster {address} needs --cluster-tls DIR, the certificates"
                           " made by canasta cluster init DIR")
    return scheme


def check_cluster(address: str, tls: Path | None, insecure: bool) -> None:
    """Before anything is written: the address and options make sense and the client's
    certificates are there."""
    if check_address(address, tls, insecure) == "tls" and tls is not None:
        missing = ClusterFiles(tls.absolute()).client_missing()
        if missing:
            raise ClusterError(f"--cluster-tls {tls.absolute()}: no {', '.join(missing)}"
                               " there (make them with canasta cluster init DIR)")


def security(tls: Path) -> Any:
    """The client's side of the cluster's TLS, from ``canasta cluster init``'s directory."""
    files = ClusterFiles(tls.absolute())
    from distributed.security import Security
    return Security(  # type: ignore[no-untyped-call]
        tls_ca_file=str(files.ca), tls_client_cert=str(files.client_cert),
        tls_client_key=str(files.client_key), require_encryption=True)


class DaskExecutor:
    """The tournament's games on a Dask ``distributed`` cluster (``canasta[cluster]``)."""

    def __init__(self, address: str, tls: Path | None = None, insecure: bool = False,
                 hide: Iterable[str | Path] = (), warn: Callable[[str], None] | None = None,
                 client: Any = None) -> None:
        self.warn = warn or (lambda _m: None)
        self.hidden = sorted({str(Path(p).absolute()) for p in [*hide, *([tls] if tls else [])]})
        self.run = secrets.token_hex(8)  # names this tournament's games processes on workers
        self.distrusted: set[str] = set()
        if client is not None:  # already connected (tests)
            self.client = client
            return
        check_cluster(address, tls, insecure)
        scheme = address.split("://", 1)[0]
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("--cluster needs Dask: pip install 'canasta[cluster]'") from None
        sec = security(tls) if scheme == "tls" and tls is not None else None
        try:
            self.client = Client(address, security=sec, set_as_default=False)  # type: ignore[no-untyped-call]
        except Exception as exc:  # noqa: BLE001 - any failure to connect is one line
            raise ClusterError(f"cannot connect to the cluster at {address}: {_line(exc)}"
                               ) from None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        if fn is not play_tasks:
            return self.client.submit(fn, *args, pure=False)
        tasks, config = args
        return _Share(self, list(tasks), config)

    def send(self, tasks: list[Task], config: Config) -> Any:
        """Hand ``tasks`` to a worker that has not lied yet."""
        where: dict[str, Any] = {}
        if self.distrusted:
            workers = set(self._workers()) - self.distrusted
            if not workers:
                raise ClusterError("no worker left that returned the games it was given"
                                   f" (distrusted: {', '.join(sorted(self.distrusted))})")
            where = {"workers": sorted(workers), "allow_other_workers": False}
        return self.client.submit(play_fresh, tasks, config, self.hidden, self.run,
                                  pure=False, **where)

    def _workers(self) -> list[str]:
        try:
            info = self.client.scheduler_info(n_workers=-1)  # every worker, not the first few
        except TypeError:  # a Dask from before n_workers: it lists them all
            info = self.client.scheduler_info()
        return list(info.get("workers", {}))

    def worker_of(self, future: Any) -> str:
        with contextlib.suppress(Exception):
            held = self.client.who_has(future).get(future.key)
            if held:
                return str(next(iter(held)))
        return "an unknown worker"

    def wait_any(self, futures: list[Any]) -> tuple[list[Any], list[Any]]:
        from distributed import wait as dwait
        inner = [f.future if isinstance(f, _Share) else f for f in futures]
        with self.client.as_current():
            dwait(inner, return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
        done = [f for f, i in zip(futures, inner, strict=True) if i.done()]
        return done, [f for f, i in zip(futures, inner, strict=True) if not i.done()]

    def close(self) -> None:
        with contextlib.suppress(Exception):  # workers may already be gone
            self.client.run(_close_bots)
        self.client.close()

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.client.run(stop_games, self.run)
        self.close()


class _Share:
    """A share of games on the cluster; ``result()`` gives its rows once they are checked."""

    def __init__(self, executor: DaskExecutor, tasks: list[Task], config: Config) -> None:
        self.executor, self.tasks, self.config = executor, tasks, config
        self.rules = config.ruleset()
        self.future = executor.send(tasks, config)

    def done(self) -> bool:
        return bool(self.future.done())

    def result(self) -> list[dict[str, Any]]:
        ex = self.executor
        for attempt in range(1, ATTEMPTS + 1):
            try:
                rows = self.future.result()
            except Exception as exc:  # noqa: BLE001 - a worker's failure is one line
                raise ClusterError(f"games {self.tasks[0].key} ... failed on the cluster:"
                                   f" {_line(exc)}") from None
            problem = rows_problem(rows, self.tasks, self.rules)
            if problem is None:
                return list(rows)
            worker = ex.worker_of(self.future)
            ex.distrusted.add(worker)
            if attempt == ATTEMPTS:
                break
            ex.warn(f"{worker} returned a result that is not the game scheduled ({problem});"
                    " it gets no more games, and its games are played again elsewhere")
            self.future = ex.send(self.tasks, self.config)
        raise ClusterError(f"{ATTEMPTS} workers returned results that are not the games"
                           f" scheduled (last: {problem}); the tournament stops")
