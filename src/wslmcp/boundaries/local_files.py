"""The local side of file transfers (wsl_upload reads here, wsl_download writes here) and the ledger
of the temp files a shell server leaves while it works.

Contract
--------
``resolve(path) -> str``
    ``~`` expanded and made absolute with this platform's rules (lexical, no filesystem access).
``real(path) -> str``
    ``path`` with symlinks resolved (the parent's, when the file does not exist yet).
``open_source(path) -> LocalSource``
    A regular file opened for reading: ``size`` (bytes, at open), ``read(n)`` (at most ``n`` bytes,
    ``b""`` at the end), ``close()``. ``OSError`` when it cannot be opened or is not a regular file
    (a FIFO, a device, a directory: never blocks, never reads a device).
``partial(dest) -> LocalPartial``
    A new hidden file beside ``dest`` (``.<name>.<random>.wslmcp-partial``): ``write(data)``,
    ``written`` (bytes so far), ``commit()`` (flush, fsync, take ``dest``'s mode or the umask's,
    rename over ``dest``: ``dest`` is replaced whole or not at all), ``abort()`` (close and remove;
    idempotent). ``OSError`` when the parent directory does not exist or ``dest`` is a directory.
    The partial is in the ledger from creation until ``commit`` or ``abort``.
``track(where, path)`` / ``untrack(where, path)``
    Put in (take out of) the ledger a temp file this server made elsewhere: ``where`` names the
    place (a transport endpoint such as ``wsl.exe:Ubuntu:dev``), ``path`` the file there.
``reclaim() -> list[tuple[str, str]]``
    Take over the ledgers of shell servers that are no longer running (killed, crashed): remove
    their local partials (only names of our own pattern), and return their other temp files as
    ``(where, path)``, now in this server's ledger until ``untrack``-ed. A ledger whose server
    still runs is left alone. Never raises for a ledger it cannot read (it is skipped).
``close()``
    At a clean exit: this server's ledger is removed if it holds nothing, else kept for the next
    server to reclaim. Idempotent.

Real adapter: ``OsLocalFiles(state_dir)``; the ledger is one JSON-lines file per running server in
``state_dir``, held under an exclusive lock (``fcntl.flock``, ``msvcrt.locking`` on Windows) for the
server's life, so a ledger that can be locked belongs to a server that has gone. Twin:
``wslmcp.fakes.local_files.FakeLocalFiles`` (a scenario's local files, strict; writes kept in memory).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

PARTIAL_SUFFIX = ".wslmcp-partial"
_OWN_PARTIAL = re.compile(r"\..+\.[^.]+" + re.escape(PARTIAL_SUFFIX))
LEDGER_PREFIX = "temps-"
LOCAL = "local"


class LocalSource(Protocol):
    size: int

    def read(self, n: int) -> bytes: ...

    def close(self) -> None: ...


class LocalPartial(Protocol):
    dest: str
    written: int

    def write(self, data: bytes) -> None: ...

    def commit(self) -> None: ...

    def abort(self) -> None: ...


class LocalFiles(Protocol):
    def resolve(self, path: str) -> str: ...

    def real(self, path: str) -> str: ...

    def open_source(self, path: str) -> LocalSource: ...

    def partial(self, dest: str) -> LocalPartial: ...

    def track(self, where: str, path: str) -> None: ...

    def untrack(self, where: str, path: str) -> None: ...

    def reclaim(self) -> list[tuple[str, str]]: ...

    def close(self) -> None: ...


def is_own_partial(path: str) -> bool:
    """Whether ``path``'s name is one ``partial`` makes (the only local files a sweep removes)."""
    return _OWN_PARTIAL.fullmatch(os.path.basename(path)) is not None


class OsSource:
    """A local regular file opened for reading in chunks."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        st = os.fstat(self._file.fileno())
        if not stat.S_ISREG(st.st_mode):
            self._file.close()
            raise OSError(f"local path is not a regular file: {path}")
        self.size = st.st_size

    def read(self, n: int) -> bytes:
        return self._file.read(n)

    def close(self) -> None:
        self._file.close()


def _lock(f: IO[bytes], *, wait: bool) -> bool:
    """An exclusive lock on ``f``; False when another process holds it (and ``wait`` is off)."""
    try:
        if sys.platform == "win32":
            import msvcrt

            f.seek(0)
            msvcrt.locking(f.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


class _Ledger:
    """This server's ledger: created at first use, locked for the server's life."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir
        self._file: IO[bytes] | None = None
        self.path: Path | None = None

    def _own(self) -> IO[bytes]:
        if self._file is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            name = f"{LEDGER_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.jsonl"
            self.path = self.dir / name
            f = open(self.path, "ab")  # noqa: SIM115 - held open (and locked) for the server's life
            _lock(f, wait=True)
            self._file = f
        return self._file

    def add(self, op: str, where: str, path: str) -> None:
        f = self._own()
        f.write(json.dumps({"op": op, "where": where, "path": path}).encode() + b"\n")
        f.flush()

    def close(self) -> None:
        if self._file is None or self.path is None:
            return
        self._file.flush()
        empty = not read_ledger(self.path.read_bytes())
        if empty:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        self._file.close()
        self._file = None
        self.path = None

    def others(self) -> Iterator[Path]:
        if not self.dir.is_dir():
            return
        for p in sorted(self.dir.glob(f"{LEDGER_PREFIX}*.jsonl")):
            if p != self.path:
                yield p


def read_ledger(data: bytes) -> list[tuple[str, str]]:
    """The temp files a ledger still holds: every ``+`` not followed by its ``-``, in order. Lines
    that do not parse (a write cut by a crash) are skipped."""
    held: dict[tuple[str, str], None] = {}
    for line in data.splitlines():
        try:
            entry = json.loads(line)
            key = (str(entry["where"]), str(entry["path"]))
            op = entry["op"]
        except (ValueError, KeyError, TypeError):
            continue
        if op == "+":
            held[key] = None
        elif op == "-":
            held.pop(key, None)
    return list(held)


class OsPartial:
    """A new file written beside ``dest`` and renamed over it only by ``commit``."""

    def __init__(self, dest: str, ledger: _Ledger) -> None:
        parent = os.path.dirname(dest) or "."
        if not os.path.isdir(parent):
            raise OSError(f"local directory does not exist: {parent}")
        if os.path.isdir(dest):
            raise OSError(f"local path is a directory: {dest}")
        self.dest = dest
        self._ledger = ledger
        # in the ledger before it exists, so a kill at any point leaves nothing the ledger misses
        self.temp = os.path.join(parent, f".{os.path.basename(dest)}.{secrets.token_hex(6)}{PARTIAL_SUFFIX}")
        ledger.add("+", LOCAL, self.temp)
        try:
            fd = os.open(self.temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        except OSError:
            ledger.add("-", LOCAL, self.temp)
            raise
        self._file = os.fdopen(fd, "wb")
        self.written = 0

    def write(self, data: bytes) -> None:
        self._file.write(data)
        self.written += len(data)

    def commit(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        try:
            mode = stat.S_IMODE(os.stat(self.dest).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(self.temp, mode)
        os.replace(self.temp, self.dest)
        self._ledger.add("-", LOCAL, self.temp)

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp)
        self._ledger.add("-", LOCAL, self.temp)


class OsLocalFiles:
    """The local side of wsl_upload / wsl_download on this machine; the ledger in ``state_dir``."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self._ledger = _Ledger(Path(state_dir))

    def resolve(self, path: str) -> str:
        return os.path.abspath(os.path.expanduser(path))

    def real(self, path: str) -> str:
        return os.path.realpath(path)

    def open_source(self, path: str) -> OsSource:
        return OsSource(path)

    def partial(self, dest: str) -> OsPartial:
        return OsPartial(dest, self._ledger)

    def track(self, where: str, path: str) -> None:
        self._ledger.add("+", where, path)

    def untrack(self, where: str, path: str) -> None:
        self._ledger.add("-", where, path)

    def close(self) -> None:
        self._ledger.close()

    def reclaim(self) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for ledger in self._ledger.others():
            try:
                f = open(ledger, "r+b")  # noqa: SIM115 - closed below
            except OSError:
                continue
            with f:
                if not _lock(f, wait=False):
                    continue  # its server still runs
                held = read_ledger(f.read())
                for where, path in held:
                    if where == LOCAL:
                        if is_own_partial(path):
                            with contextlib.suppress(OSError):
                                os.unlink(path)
                    else:
                        self.track(where, path)
                        found.append((where, path))
                with contextlib.suppress(OSError):
                    os.unlink(ledger)
        return found
