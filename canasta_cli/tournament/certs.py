"""Certificates for a tournament cluster (``canasta cluster init DIR``).

Dask's TLS is mutual: every connection to the scheduler or a worker must show a certificate
signed by the cluster's CA, and the traffic is encrypted.  One private CA signs a certificate
for the scheduler and the workers (``node``) and one for the tournament client; the CA's key
is not kept, so nobody (not even this directory's owner) can add a certificate later: a new
set comes from running ``init`` again.  Needs the ``cryptography`` package (``canasta[cluster]``).
"""

from __future__ import annotations

import datetime
import os
import secrets
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import CanastaError

MAX_DAYS = 3650


class CertError(CanastaError, RuntimeError):
    """The certificates cannot be made or found (a one-line reason)."""


@dataclass(frozen=True)
class ClusterFiles:
    """Where ``init`` puts each file of a cluster's certificates."""

    dir: Path

    @property
    def ca(self) -> Path:
        return self.dir / "ca.pem"

    @property
    def node_cert(self) -> Path:
        return self.dir / "node.pem"

    @property
    def node_key(self) -> Path:
        return self.dir / "node.key"

    @property
    def client_cert(self) -> Path:
        return self.dir / "client.pem"

    @property
    def client_key(self) -> Path:
        return self.dir / "client.key"

    def all(self) -> list[Path]:
        return [self.ca, self.node_cert, self.node_key, self.client_cert, self.client_key]

    def client_missing(self) -> list[str]:
        """The files a tournament client needs that are not regular files here."""
        return [p.name for p in (self.ca, self.client_cert, self.client_key)
                if not _regular(p)]


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _write_new(path: Path, data: bytes) -> None:
    """Owner-only, never through a symlink, never over an existing file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _crypto() -> Any:
    try:
        from cryptography import x509
    except ImportError:
        raise CertError("making certificates needs the cryptography package:"
                        " pip install 'canasta[cluster]'") from None
    return x509


def init(directory: Path, days: int = 365) -> ClusterFiles:
    """Make a CA and the node and client certificates in ``directory`` (created owner-only;
    an existing one must be ours, a real directory, and hold none of the files)."""
    if not 1 <= days <= MAX_DAYS:
        raise CertError(f"--days must be between 1 and {MAX_DAYS}")
    x509 = _crypto()
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    files = ClusterFiles(directory.absolute())
    try:
        os.mkdir(files.dir, 0o700)
    except FileExistsError:
        st = os.stat(files.dir, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            raise CertError(f"{files.dir} exists and is not a directory") from None
        if st.st_uid != os.getuid():
            raise CertError(f"{files.dir} belongs to another user") from None
        there = [p.name for p in files.all() if os.path.lexists(p)]
        if there:
            raise CertError(f"{files.dir} already holds {', '.join(there)}: use another"
                            " directory, or remove them to make a new set") from None
        os.chmod(files.dir, 0o700)
    except OSError as exc:
        raise CertError(f"cannot create {files.dir}: {exc.strerror or exc}") from None

    now = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)  # clock skew
    until = now + datetime.timedelta(days=days)
    tag = secrets.token_hex(4)  # tells one cluster's certificates from another's

    def name(text: str) -> Any:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{text} {tag}")])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = name("canasta cluster CA")
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(until)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, key_cert_sign=True, crl_sign=True,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                         critical=False)
          .sign(ca_key, hashes.SHA256()))

    def leaf(text: str, usages: list[Any]) -> tuple[bytes, bytes]:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name(text)).issuer_name(ca_name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now).not_valid_after(until)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                             key_encipherment=False, data_encipherment=False,
                                             key_agreement=True, key_cert_sign=False,
                                             crl_sign=False, encipher_only=False,
                                             decipher_only=False), critical=True)
                .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                    ca_key.public_key()), critical=False)
                .sign(ca_key, hashes.SHA256()))
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        return cert.public_bytes(serialization.Encoding.PEM), pem

    # Scheduler and workers both listen and connect; the client only connects.
    node = leaf("canasta cluster node", [ExtendedKeyUsageOID.SERVER_AUTH,
                                         ExtendedKeyUsageOID.CLIENT_AUTH])
    client = leaf("canasta tournament client", [ExtendedKeyUsageOID.CLIENT_AUTH])
    try:
        _write_new(files.ca, ca.public_bytes(serialization.Encoding.PEM))
        _write_new(files.node_cert, node[0])
        _write_new(files.node_key, node[1])
        _write_new(files.client_cert, client[0])
        _write_new(files.client_key, client[1])
    except OSError as exc:
        raise CertError(f"cannot write the certificates in {files.dir}:"
                        f" {exc.strerror or exc}") from None
    return files


def instructions(files: ClusterFiles, port: int = 8786) -> str:
    """The commands that start a scheduler, a worker and a tournament with ``files``."""
    q = shlex.quote
    tls = (f"--tls-ca-file {q(str(files.ca))} --tls-cert {q(str(files.node_cert))}"
           f" --tls-key {q(str(files.node_key))}")
    return "\n".join([
        f"Certificates for a tournament cluster in {files.dir} (owner-only). The CA's key was",
        "not kept: to add a machine, copy these files; for a new set, run init again.",
        "Copy ca.pem, node.pem and node.key to every machine of the cluster (same paths or",
        "change them below), and keep client.pem and client.key where the tournament runs.",
        "",
        "On the scheduler's machine:",
        f"  dask scheduler --protocol tls --port {port} {tls}",
        "On each machine that plays games (HOST: the scheduler's host name or address):",
        f"  dask worker tls://HOST:{port} {tls}",
        "Then the tournament:",
        f"  canasta tournament --cluster tls://HOST:{port} --cluster-tls {q(str(files.dir))}"
        " --bot ... --out results/",
    ])
