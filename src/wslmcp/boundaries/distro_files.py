"""The distro's files reached in process, where the shell's scripts would run on this machine, as
this user, unconfined (the local transport with the sandbox off): the file tools then start no
shell for a probe, a read or an edit.

Contract
--------
``reaches(path) -> bool``
    Whether the operations below answer for ``path`` as the script would (see ``probe``).
Each operation gives what the file tools' fixed script of the same name gives (``wslmcp.shell.files``),
so a caller cannot tell them apart (``tests/shell/test_distro_files_parity.py`` runs the same cases
through both and compares):

``probe(path) -> Probe | None``
    ``realpath -m`` of the absolute ``path`` and its type (``d`` directory, ``f`` regular file, ``o``
    other, ``-`` missing or unreachable), whether its directory exists, and ``stat -L``'s size and
    octal mode (``%a``). ``None`` where only the script answers the same: a path under ``/proc``,
    ``/sys`` or ``/dev`` (``/proc/self`` is the probing process, and a size-0 file there has
    content), a path starting ``//``, or one whose resolution leaves a link (a loop).
``head(path, count) -> bytes``
    Up to ``count`` leading bytes (``head -c``).
``lines(path, start, count, limit) -> (total, bytes)``
    The line count (a last line without its newline counts) and, from line ``start`` (1-based;
    ``-k``: the last ``k`` lines), at most ``count`` lines (all when None), cut at ``limit`` bytes
    (``tail -n`` / ``head -n`` / ``head -c``); read in pieces, so a long file costs no memory.
``write(target, temp, content, append) -> int``
    ``wsl_write_file``'s atomic write: ``temp`` made exclusively (mode 0600) beside ``target``, the
    old content first when appending, ``content``; read back and checked, the target's mode and
    owner taken (a new file: 0666 less the umask), renamed over ``target``; the bytes written.
``replace(target, temp, content, before, *, mode, known) -> None``
    ``wsl_edit_file``'s write: only while ``target`` is a regular writable file whose SHA-256 is
    ``before``; ``temp`` made with ``mode`` (None: 0600, then the target's mode), the owner taken when
    it is not this user's; ``known`` (content from an earlier call) also refuses a path any of whose
    components is now a symbolic link.
Errors
    ``DistroFileError`` with the text the script would print on stderr; ``DistroFileChanged`` (a
    subclass) where the script exits 4 (the target is not what the caller knew). On any failure the
    temp file is gone and the target untouched.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Protocol

PIECE = 1 << 20
WHOLE = 8 << 20  # a file up to this size is read at once for a ranged read
_SCRIPT_ONLY = ("/proc", "/sys", "/dev")


class DistroFileError(Exception):
    """What the script would have said on stderr when it failed."""


class DistroFileChanged(DistroFileError):
    """The target is not what the caller knew (the script's exit code 4)."""


@dataclass(frozen=True)
class Probe:
    resolved: str
    kind: str  # d directory, f regular file, o other, - missing
    parent_exists: bool
    size: int | None
    mode: str | None


class DistroFiles(Protocol):
    def reaches(self, path: str) -> bool: ...

    def probe(self, path: str) -> Probe | None: ...

    def head(self, path: str, count: int) -> bytes: ...

    def lines(self, path: str, start: int, count: int | None, limit: int) -> tuple[int, bytes]: ...

    def write(self, target: str, temp: str, content: bytes, *, append: bool) -> int: ...

    def replace(
        self, target: str, temp: str, content: bytes, before: str, *, mode: int | None, known: bool
    ) -> None: ...


def _script_only(path: str) -> bool:
    return path.startswith("//") or any(path == r or path.startswith(r + "/") for r in _SCRIPT_ONLY)


def _umask() -> int:
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


def _opened(path: str) -> DistroFileError:
    return DistroFileError(f"cannot open '{path}' for reading")


class HereFiles:
    """``DistroFiles`` on this machine's file system, as the user running the server."""

    def __init__(self) -> None:
        self.umask = _umask()

    def reaches(self, path: str) -> bool:
        return not _script_only(path)

    def probe(self, path: str) -> Probe | None:
        resolved = os.path.realpath(path)
        if _script_only(path) or _script_only(resolved) or _leaves_a_link(resolved):
            return None
        try:
            st = os.stat(resolved)
        except OSError:
            kind, size, mode = "-", None, None
        else:
            kind = "d" if stat.S_ISDIR(st.st_mode) else "f" if stat.S_ISREG(st.st_mode) else "o"
            size, mode = st.st_size, format(stat.S_IMODE(st.st_mode), "o")
        return Probe(resolved, kind, os.path.isdir(os.path.dirname(resolved)), size, mode)

    def head(self, path: str, count: int) -> bytes:
        try:
            with _reading(path) as f:
                return _read_up_to(f, count)
        except OSError as exc:
            raise DistroFileError(f"head: cannot open '{path}' for reading: {exc.strerror}") from None

    def lines(self, path: str, start: int, count: int | None, limit: int) -> tuple[int, bytes]:
        try:
            with _reading(path) as f:
                size = os.fstat(f.fileno()).st_size
                if size <= WHOLE:  # one read, then found from either end
                    data = _read_up_to(f, size + 1)
                    newlines = _newlines(data)
                    total = newlines + (data[-1:] not in (b"", b"\n"))
                    first = start if start > 0 else max(1, total + start + 1)
                    rest = data[_after_newlines(data, first - 1, newlines) :]
                    return total, rest[: _after_lines(rest, count, limit)][:limit]
                total = _line_count(_pieces(f))
                first = start if start > 0 else max(1, total + start + 1)
                f.seek(0)
                return total, _lines_from(_pieces(f), first, count, limit)
        except OSError as exc:
            raise DistroFileError(f"bash: {path}: {exc.strerror}") from None

    def write(self, target: str, temp: str, content: bytes, *, append: bool) -> int:
        directory = os.path.dirname(target) or "/"
        if not os.path.isdir(directory):
            raise DistroFileError(f"parent directory does not exist: {directory}")
        if os.path.isdir(target):
            raise DistroFileError(f"is a directory: {target}")
        exists = os.path.exists(target)
        if exists and not os.access(target, os.W_OK):
            raise DistroFileError(f"permission denied: {target} is not writable")
        fd = _create(temp, 0o600, f"cannot create a file in {directory}")
        with _removed_unless_renamed(temp) as renamed:
            base = 0
            with os.fdopen(fd, "wb") as out:
                if append and exists:
                    try:
                        with _reading(target) as old:
                            while piece := old.read(PIECE):
                                out.write(piece)
                    except OSError as exc:
                        raise DistroFileError(f"cat: {target}: {exc.strerror}") from None
                    base = out.tell()
                out.write(content)
            _verify(temp, base, content, "received {got} of {want} bytes; the target was left unchanged")
            if exists:
                _take_mode_and_owner(target, temp, chmod=True, always_chown=True)
            else:
                os.chmod(temp, 0o666 & ~self.umask)
            _rename(temp, target)
            renamed()
        return len(content)

    def replace(
        self, target: str, temp: str, content: bytes, before: str, *, mode: int | None, known: bool
    ) -> None:
        changed: type[DistroFileError] = DistroFileChanged if known else DistroFileError
        if known and _any_link(target):
            raise DistroFileChanged("the path leads elsewhere now")
        if not os.path.isfile(target):
            raise changed(f"not a regular file any more: {target}")
        if not os.access(target, os.W_OK):
            raise DistroFileError(f"permission denied: {target} is not writable")
        fd = _create(
            temp, 0o666 & mode if mode is not None else 0o600, f"cannot create a file beside {target}"
        )
        with _removed_unless_renamed(temp) as renamed:
            with os.fdopen(fd, "wb") as out:
                out.write(content)
            _take_mode_and_owner(target, temp, chmod=mode is None, always_chown=False)
            if _digest_of(temp) != hashlib.sha256(content).hexdigest():
                raise DistroFileError("the new content did not arrive whole; the target was left unchanged")
            if _digest_of(target) != before:
                raise changed(
                    "the file changed after it was read, so nothing was written; read it again and redo the edit"
                )
            _rename(temp, target)
            renamed()


def _leaves_a_link(resolved: str) -> bool:
    """Whether a resolved path still holds a link (a loop, or a link past the resolution limit)."""
    return any(os.path.islink(p) for p in _prefixes(resolved))


def _any_link(path: str) -> bool:
    return _leaves_a_link(path)


def _prefixes(path: str) -> Iterator[str]:
    parts = path.strip("/").split("/")
    for i in range(len(parts)):
        yield "/" + "/".join(parts[: i + 1])


def _reading(path: str) -> BinaryIO:
    """``path`` opened to read, when it is a regular file: the open does not wait (a FIFO swapped in
    after the probe would hold this thread, which no deadline stops, until a writer came)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "Not a regular file", path)
    return os.fdopen(fd, "rb", buffering=0)


def _read_up_to(f: object, count: int) -> bytes:
    chunks, left = [], count
    read = f.read  # type: ignore[attr-defined]
    while left > 0 and (piece := read(min(left, PIECE))):
        chunks.append(piece)
        left -= len(piece)
    return b"".join(chunks)


def _pieces(f: object) -> Iterator[bytes]:
    read = f.read  # type: ignore[attr-defined]
    while piece := read(PIECE):
        yield piece


def _newlines(data: bytes) -> int:
    """How many newlines ``data`` holds (a third of ``bytes.count``'s time: the copy searches with memchr)."""
    return len(data) - len(data.replace(b"\n", b""))


def _line_count(pieces: Iterator[bytes]) -> int:
    total, last = 0, b"\n"
    for piece in pieces:
        total += _newlines(piece)
        last = piece[-1:]
    return total + (last != b"\n")


def _lines_from(pieces: Iterator[bytes], first: int, count: int | None, limit: int) -> bytes:
    """From line ``first`` (1-based), at most ``count`` lines, at most ``limit`` bytes."""
    skip, out, size, left = first - 1, [], 0, count
    for piece in pieces:
        if skip:
            newlines = _newlines(piece)
            if newlines < skip:
                skip -= newlines
                continue
            piece = piece[_after_newlines(piece, skip, newlines) :]  # noqa: PLW2901
            skip = 0
        end = _after_lines(piece, left, limit - size)
        if left is not None:
            left -= _newlines(piece[:end])
        out.append(piece[:end][: limit - size])
        size += len(out[-1])
        if size >= limit or left == 0:
            break
    return b"".join(out)


def _after_newlines(data: bytes, skip: int, newlines: int) -> int:
    """Where what follows the ``skip``-th of the ``newlines`` newlines of ``data`` starts (its end
    when there are fewer), found from whichever end is nearer (a tail from the end)."""
    if skip <= 0:
        return 0
    if skip > newlines:
        return len(data)
    if skip <= newlines // 2:
        return _after_lines(data, skip, len(data))
    at = len(data)
    for _ in range(newlines - skip + 1):
        at = data.rfind(b"\n", 0, at)
    return at + 1


def _after_lines(piece: bytes, lines: int | None, within: int) -> int:
    """Where ``lines`` whole lines of ``piece`` end (its length when it holds fewer, or ``lines``
    is None), looking no further than ``within`` bytes (what is kept ends there anyway)."""
    if lines is None:
        return len(piece)
    end = 0
    for _ in range(lines):
        if end >= within:
            return end
        nl = piece.find(b"\n", end)
        if nl < 0:
            return len(piece)
        end = nl + 1
    return end


def _create(temp: str, mode: int, failure: str) -> int:
    """``temp`` made exclusively with exactly ``mode`` (the scripts set their umask for it)."""
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        raise DistroFileError(failure) from None
    os.fchmod(fd, mode)
    return fd


@contextlib.contextmanager
def _removed_unless_renamed(temp: str) -> Iterator[Callable[[], None]]:
    done = [False]

    def renamed() -> None:
        done[0] = True

    try:
        yield renamed
    except OSError as exc:
        raise DistroFileError(f"{exc.strerror}: {exc.filename}") from None
    finally:
        if not done[0]:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _verify(temp: str, base: int, content: bytes, said: str) -> None:
    with open(temp, "rb") as f:
        f.seek(base)
        got = f.read()
    if len(got) != len(content):
        raise DistroFileError(said.format(got=len(got), want=len(content)))
    if hashlib.sha256(got).digest() != hashlib.sha256(content).digest():
        raise DistroFileError("content checksum mismatch; the target was left unchanged")


def _take_mode_and_owner(target: str, temp: str, *, chmod: bool, always_chown: bool) -> None:
    """``chmod --reference`` (when asked) and ``chown --reference`` (always, or only when the target
    is not this user's and group's), each failure ignored as the scripts ignore it."""
    try:
        st = os.stat(target)
    except OSError:
        return
    if chmod:
        with contextlib.suppress(OSError):
            os.chmod(temp, stat.S_IMODE(st.st_mode))
    if always_chown or st.st_uid != os.geteuid() or st.st_gid != os.getegid():
        with contextlib.suppress(OSError):
            os.chown(temp, st.st_uid, st.st_gid)


def _digest_of(path: str) -> str:
    digest = hashlib.sha256()
    with _reading(path) as f:
        while piece := f.read(PIECE):
            digest.update(piece)
    return digest.hexdigest()


def _rename(temp: str, target: str) -> None:
    try:
        os.rename(temp, target)
    except OSError as exc:
        raise DistroFileError(f"mv: cannot move '{temp}' to '{target}': {exc.strerror}") from None
