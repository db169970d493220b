"""The launcher of an unboxed bot where no namespace can be made: it installs a seccomp filter
that keeps the bot (and all it starts) from signalling, tracing or reading the memory of any
other process, the referee's included, then starts the bot.

    python3 -I nosignal.py -- COMMAND [ARG ...]

The bot may signal itself (its pid is this launcher's), nothing else: every call that sends a
signal to a pid, a thread or a process group (``kill``, ``tkill``, ``tgkill``, the
``sigqueueinfo`` calls, ``pidfd_open``) fails with EPERM unless it names the bot's own pid, and
``ptrace`` and ``process_vm_readv``/``writev`` fail outright.  So a bot cannot stop its own
children by signal either; they end with it.  Run as a file in the interpreter's isolated
mode, so that it imports nothing but the standard library.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys

# (arch audit value, signal calls that name a pid in their first argument, calls refused)
_ARCH = {
    "x86_64": (0xC000003E, (62, 200, 234, 129, 297, 434), (101, 310, 311)),
    "aarch64": (0xC00000B7, (129, 130, 131, 138, 240, 434), (117, 270, 271)),
}
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_ALLOW, _KILL = 0x7FFF0000, 0x80000000
_ERRNO = 0x00050000 | errno.EPERM


def _op(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def program(arch: str, own: int) -> bytes:
    """The BPF filter, as bytes of ``struct sock_filter``."""
    audit, signalling, refused = _ARCH[arch]
    ops = [_op(_LD_W_ABS, 0, 0, 4), _op(_JEQ_K, 1, 0, audit), _op(_RET_K, 0, 0, _KILL),
           _op(_LD_W_ABS, 0, 0, 0)]
    for nr in refused:
        ops += [_op(_JEQ_K, 0, 1, nr), _op(_RET_K, 0, 0, _ERRNO)]
    check = [_op(_LD_W_ABS, 0, 0, 16),  # the low word of the first argument: a pid_t
             _op(_JEQ_K, 0, 1, own), _op(_RET_K, 0, 0, _ALLOW), _op(_RET_K, 0, 0, _ERRNO)]
    # Each signalling call jumps over the others to the pid check.
    for i, nr in enumerate(signalling):
        ops.append(_op(_JEQ_K, len(signalling) - i, 0, nr))
    ops.append(_op(_RET_K, 0, 0, _ALLOW))
    return b"".join(ops + check)


def install() -> None:
    arch = platform.machine()
    if arch not in _ARCH:
        raise OSError(f"no seccomp filter for {arch}")
    code = program(arch, os.getpid())
    buf = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "--":
        sys.stderr.write("usage: nosignal.py -- COMMAND [ARG ...]\n")
        return 125
    try:
        install()
    except OSError as exc:
        sys.stderr.write(f"canasta: cannot keep this bot from signalling the referee: {exc}\n")
        return 125
    try:
        os.execvp(argv[1], argv[1:])
    except OSError as exc:
        sys.stderr.write(f"canasta: cannot start {argv[1]!r}: {exc.strerror}\n")
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
