"""The file tools: fixed scripts whose only variable parts are quoted paths, sizes and digests.

Order for every tool: the guard checks the path as given; a read-only probe resolves it inside the
distro (``realpath -m``) and reports its type; the guard checks the resolved path; only then does
the operation run, on the resolved path. Upload/download also pass the local path (as given and
resolved) through the guard first.

Writes are atomic: content goes to a new file beside the target (``mktemp`` in the same
directory), its size and SHA-256 are verified inside the distro, it takes the target's mode (and
owner, where permitted), and it is renamed over the target. A failure, timeout or short stdin
leaves the target as it was and removes the new file; an upload's chunk whose input ends short (the
server was killed mid-transfer) removes its partial file itself. Transfers move up to ``chunk_bytes`` per
call, streamed through the call's stdin / stdout a piece at a time, so memory stays bounded whatever
the chunk or file size; downloads land in a partial file beside the local destination that is
renamed into place only after the SHA-256 matches.

These scripts are fixed and need no profile, so they run in a plain ``bash -c`` (``login=False``):
a login shell's profile costs more than the work for small files.

Where a script would run on this machine as this user, unconfined (the local transport with the
sandbox off, or dropped by ``auto``), the probe, reads and edit and write commits are made in process instead
(``boundaries.distro_files``: the same results, in a thread under the same deadline), in the same
order and through the same guard checks; a path only a script answers the same for (``/proc``,
``/sys``, ``/dev``) still goes to the script.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import posixpath
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from wslmcp.arguments import quoted
from wslmcp.boundaries.distro_files import DistroFileChanged, DistroFileError, DistroFiles, Probe
from wslmcp.boundaries.local_files import LocalFiles, LocalPartial, LocalSource
from wslmcp.boundaries.process import ByteSink, Stdin
from wslmcp.boundaries.shell_transport import ScriptCall
from wslmcp.shell.errors import Refused, ToolFailure
from wslmcp.shell.guard import Access, Guard
from wslmcp.shell.runner import Run, Runner, quote

CHUNK_BYTES = 64 * 1024 * 1024  # per call: bounds each call's time (memory is bounded by streaming)
MAX_ENTRIES = 1000
META_CAPTURE = 4 * 1024 * 1024
KNOWN_FILES = 8  # whole contents kept for wsl_edit_file (the files last read, written or edited)
CHANGED = 4  # a writing script's exit code: the target is not what the caller knew (``FileChanged``)
_T = TypeVar("_T")

_PROBE = r"""p={path}
r=$(realpath -m -- "$p" 2>/dev/null) || r=$p
if [ -d "$r" ]; then t=d; elif [ -f "$r" ]; then t=f; elif [ -e "$r" ]; then t=o; else t=-; fi
d=$(dirname -- "$r"); if [ -d "$d" ]; then pd=1; else pd=0; fi
s=; m=
if [ "$t" != - ]; then s=$(stat -L -c %s -- "$r" 2>/dev/null); m=$(stat -L -c %a -- "$r" 2>/dev/null); fi
printf '%s\0%s\0%s\0%s\0%s\0' "$r" "$t" "$pd" "$s" "$m"
"""

_TARGET_CHECKS = r"""t={target}
d=$(dirname -- "$t"); b=$(basename -- "$t")
[ -d "$d" ] || {{ printf 'parent directory does not exist: %s\n' "$d" >&2; exit 3; }}
[ -d "$t" ] && {{ printf 'is a directory: %s\n' "$t" >&2; exit 3; }}
[ -e "$t" ] && [ ! -w "$t" ] && {{ printf 'permission denied: %s is not writable\n' "$t" >&2; exit 3; }}
"""

_ADOPT_MODE = r"""if [ -e "$t" ]; then chmod --reference="$t" -- "$tmp" 2>/dev/null; chown --reference="$t" -- "$tmp" 2>/dev/null
else chmod "$(printf '%o' $(( 0666 & ~0$(umask) )))" -- "$tmp"; fi
"""

_CREATE_TEMP = r"""tmp={temp}
(umask 077; set -C; : > "$tmp") || {{ printf 'cannot create a file in %s\n' "$d" >&2; exit 3; }}
"""

_WRITE = (
    _TARGET_CHECKS
    + _CREATE_TEMP
    + r"""trap 'rm -f -- "$tmp"' EXIT
base=0
if [ {append} = 1 ] && [ -e "$t" ]; then cat -- "$t" > "$tmp" || exit 3; base=$(wc -c < "$tmp"); fi
cat >> "$tmp" || exit 3
n=$(( $(wc -c < "$tmp") - base ))
[ "$n" = {size} ] || {{ printf 'received %s of {size} bytes; the target was left unchanged\n' "$n" >&2; exit 3; }}
h=$(tail -c {size} -- "$tmp" | sha256sum | cut -c1-64)
[ "$h" = {digest} ] || {{ echo 'content checksum mismatch; the target was left unchanged' >&2; exit 3; }}
"""
    + _ADOPT_MODE
    + r"""mv -f -- "$tmp" "$t" || exit 3
trap - EXIT
printf '%s\n' "$n"
"""
)

# wsl_edit_file's write, in few processes (the edit's cost is mostly theirs): the new file is made
# with the target's mode through the umask (``{umask}``; a mode with execute or special bits is set
# by chmod), takes the owner only when it is not this user's already, and is renamed over the
# target only when its SHA-256 is the content's and the target still holds what was read (one
# sha256sum of both; it escapes a name holding a newline or backslash, so each is one line, marked
# by a leading backslash). An edit of content known from an earlier call (``FileTools.known``) adds
# ``{unmoved}``, takes the mode by chmod, and exits ``{changed}`` = 4 (``FileChanged``) when the
# path no longer resolves to itself or to a regular file, or the file no longer holds that content.
_REPLACE = r"""t={target}
tmp={temp}
{unmoved}[ -f "$t" ] || {{ printf 'not a regular file any more: %s\n' "$t" >&2; exit {changed}; }}
[ -w "$t" ] || {{ printf 'permission denied: %s is not writable\n' "$t" >&2; exit 3; }}
umask {umask}; set -C
: > "$tmp" || {{ printf 'cannot create a file beside %s\n' "$t" >&2; exit 3; }}
set +C
trap 'rm -f -- "$tmp"' EXIT
cat > "$tmp" || exit 3
{chmod}[ -O "$t" ] && [ -G "$t" ] || chown --reference="$t" -- "$tmp" 2>/dev/null
sums=$(sha256sum -- "$tmp" "$t") || exit 3
{{ read -r h _; read -r u _; }} <<< "$sums"
[ "${{h#\\}}" = {digest} ] || {{ echo 'the new content did not arrive whole; the target was left unchanged' >&2; exit 3; }}
[ "${{u#\\}}" = {before} ] || {{ echo 'the file changed after it was read, so nothing was written; read it again and redo the edit' >&2; exit {changed}; }}
mv -f -- "$tmp" "$t" || exit 3
trap - EXIT
"""

_APPEND_CHUNK = r"""cat >> "$tmp" || {{ rm -f -- "$tmp"; exit 3; }}
n=$(wc -c < "$tmp")
[ "$n" = {end} ] || {{ rm -f -- "$tmp"; printf 'partial upload holds %s bytes, expected {end}; removed it\n' "$n" >&2; exit 3; }}
"""

_UPLOAD_FIRST = _TARGET_CHECKS + _CREATE_TEMP + _APPEND_CHUNK

_UPLOAD_NEXT = (
    r"""tmp={temp}
[ -f "$tmp" ] || {{ echo 'the partial upload file disappeared' >&2; exit 3; }}
"""
    + _APPEND_CHUNK
)

_UPLOAD_COMMIT = (
    r"""tmp={temp}
t={target}
h=$(sha256sum < "$tmp" | cut -c1-64)
[ "$h" = {digest} ] || {{ echo 'upload checksum mismatch; the target was left unchanged' >&2; exit 3; }}
"""
    + _ADOPT_MODE
    + r"""mv -f -- "$tmp" "$t" || exit 3
"""
)

_REMOVE = "rm -f -- {temp}\n"

_DOWNLOAD_CHUNK = r"""r={target}
[ -f "$r" ] || {{ printf 'not a regular file: %s\n' "$r" >&2; exit 3; }}
tail -c +{start} -- "$r" | head -c {count}
"""

_DIGEST = r"""sha256sum < {target} | cut -c1-64"""

_LIST = r"""r={target}
[ -d "$r" ] || {{ printf 'not a directory: %s\n' "$r" >&2; exit 3; }}
[ -r "$r" ] && [ -x "$r" ] || {{ printf 'permission denied: %s\n' "$r" >&2; exit 3; }}
n=$(find "$r" -mindepth 1 -maxdepth 1 -printf x 2>/dev/null | wc -c)
printf '%s\0' "$n"
find "$r" -mindepth 1 -maxdepth 1 -printf '%f\t%y\t%m\t%s\t%T@\0' 2>/dev/null | LC_ALL=C sort -z | head -z -n {cap}
"""

_READ = r"""head -c {count} -- {target}
"""

# after ``_PROBE``: the file's bytes too, when the path as given is the resolved path of a regular file
_READ_IF_RESOLVED = r"""if [ "$r" = "$p" ] && [ "$t" = f ]; then head -c {count} -- "$r"; fi
"""

# the file's line count (a last line without its newline counts), then the lines asked for
_LINES = r"""n=$(wc -l < "$r") || exit 3
if [ -s "$r" ] && [ "$(tail -c 1 -- "$r" | wc -l)" = 0 ]; then n=$((n + 1)); fi
printf '%s\0' "$n"
tail -n {start} -- "$r" | {first} | head -c {count}
"""
_READ_LINES = "r={target}\n" + _LINES

# after ``_PROBE``, under the sandbox: the lines too, when the path as given is the resolved path
# of a regular file (one bubblewrap instead of two)
_LINES_IF_RESOLVED = 'if [ "$r" = "$p" ] && [ "$t" = f ]; then\n' + _LINES + "fi\n"


@dataclass(frozen=True)
class Target:
    path: str  # as given
    resolved: str
    kind: str  # d directory, f regular file, o other, - missing
    parent_exists: bool
    size: int | None
    mode: str | None


@dataclass(frozen=True)
class Lines:
    """Which lines a ranged read returned: ``first`` to ``last`` (1-based, ``last < first`` when
    none) of ``total``."""

    first: int
    last: int
    total: int


@dataclass(frozen=True)
class ReadResult:
    target: Target
    data: bytes
    truncated: bool  # cut at the byte limit
    lines: Lines | None = None  # a ranged read (offset / limit)

    @functools.cached_property
    def text(self) -> str:
        """The bytes as text, bytes that are not UTF-8 shown as U+FFFD (decoded once)."""
        return self.data.decode("utf-8", errors="replace")

    @property
    def utf8(self) -> bool:
        return "\ufffd" not in self.text or _is_utf8(self.data)

    @property
    def binary(self) -> bool:
        """Holds a NUL byte: not text, so not shown (wsl_download copies it)."""
        return b"\x00" in self.data

    @property
    def cut(self) -> bool:
        """Whether the file holds more than was returned."""
        if self.lines is None:
            return self.truncated
        return self.truncated or self.lines.first > 1 or self.lines.last < self.lines.total


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str  # file, directory, symlink, other
    mode: str
    size: int
    mtime: str


@dataclass(frozen=True)
class Listing:
    target: Target
    entries: tuple[Entry, ...]
    total: int

    @property
    def truncated(self) -> bool:
        return self.total > len(self.entries)


@dataclass(frozen=True)
class Transfer:
    local: str
    remote: str
    size: int
    sha256: str


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class FileChanged(ToolFailure):
    """The target no longer holds, or its path no longer leads to, what the caller knew."""


def _links_on(path: str) -> str:
    """A test true when any component of the normalized absolute ``path`` is now a symbolic link
    (builtins only: no process is started)."""
    parts = path.strip("/").split("/")
    return " || ".join(f"[ -L {quote('/' + '/'.join(parts[: i + 1]))} ]" for i in range(len(parts)))


_KINDS = {"f": "file", "d": "directory", "l": "symlink"}
_OWN_TEMP = re.compile(r"/\.[^/]*\.wslmcp-[0-9a-f]{8,64}$")  # the names ``_temp_for`` makes


class FileTools:
    def __init__(
        self,
        runner: Runner,
        guard: Guard,
        local: LocalFiles,
        *,
        timeout_s: float,
        chunk_bytes: int = CHUNK_BYTES,
        known_bytes: int = 0,
        where: str = "",
        keeps: Callable[[], bool] = lambda: False,
    ) -> None:
        self.runner = runner
        self.keeps = keeps  # a person approved, for the call in progress, a change to what runs later
        self.guard = guard
        self.local = local
        self.timeout_s = timeout_s
        self.chunk_bytes = chunk_bytes
        self.where = where or f"{runner.transport.kind}:{runner.transport.user or ''}"
        self._orphans: list[str] = []
        self._live: set[str] = set()  # temp files of calls in flight
        self.known_bytes = known_bytes
        self._known: OrderedDict[str, tuple[Target, bytes]] = OrderedDict()  # newest last

    @property
    def direct(self) -> DistroFiles | None:
        """The distro's files in process, while the transport reaches them as a script would (the
        local transport unconfined: no sandbox, or ``auto`` found it cannot run)."""
        return self.runner.transport.files

    def _track(self, temp: str) -> None:
        self._live.add(temp)
        self.local.track(self.where, temp)

    def _untrack(self, temp: str) -> None:
        self._live.discard(temp)
        self.local.untrack(self.where, temp)

    async def shutdown(self) -> None:
        """Remove the temp files of calls the shutdown cut short (their own cleanup was cancelled)."""
        for temp in sorted(self._live):
            with contextlib.suppress(ToolFailure):
                await self._remove(temp)
        self.local.close()

    # -- temp files left by servers that were killed -----------------------------------------------

    def reclaim(self, entries: list[tuple[str, str]]) -> None:
        """``entries``: what ``LocalFiles.reclaim`` took over from the ledgers of servers that are
        gone (their local partials already removed). Their temp files beside targets here are removed
        before this server's first file-tool call (so a stopped distro is not started just to clean up)."""
        self._orphans += [path for where, path in entries if where == self.where and _OWN_TEMP.search(path)]

    async def remove_orphans(self) -> None:
        """Remove the reclaimed temp files (a failure leaves them in the ledger for the next server)."""
        orphans, self._orphans = self._orphans, []
        for temp in orphans:
            with contextlib.suppress(ToolFailure):
                await self._remove(temp)

    # -- plumbing -------------------------------------------------------------------------------

    async def _run(
        self,
        script: str,
        *,
        stdin: Stdin = None,
        max_output: int = META_CAPTURE,
        stdout_sink: ByteSink | None = None,
        checked: bool = True,
    ) -> Run:
        """Run a fixed script (plain ``bash -c``). A deadline or an overflow is a failure, and so is
        a non-zero exit when ``checked`` (the script's stderr says why)."""
        if self._orphans:
            await self.remove_orphans()
        run = await self.runner.run(
            ScriptCall(
                script,
                stdin=stdin,
                timeout_s=self.timeout_s,
                max_output=max_output,
                stdout_sink=stdout_sink,
                login=False,
                confine="kept" if self.keeps() else "own",  # (kept: the sandbox leaves it in place)
            )
        )
        if run.exchange.timed_out:
            killed = f"; killed: {', '.join(run.killed)}" if run.killed else ""
            raise ToolFailure(f"timed out after {round(self.timeout_s * 1000)}ms{killed}")
        if run.exchange.overflowed:
            raise ToolFailure("the distro sent more output than expected; the operation was stopped")
        if checked and run.exchange.exit_code != 0:
            said = run.exchange.stderr.decode("utf-8", "replace").strip()
            failure = FileChanged if run.exchange.exit_code == CHANGED else ToolFailure
            raise failure(said or f"exit code {run.exchange.exit_code}")
        return run

    async def _in_process(self, work: Callable[[], _T]) -> _T:
        """``work`` (a ``DistroFiles`` operation) in a thread, under the scripts' deadline; its
        failures as the script's would be."""
        try:
            return await asyncio.wait_for(asyncio.to_thread(work), self.timeout_s)
        except TimeoutError:
            raise ToolFailure(f"timed out after {round(self.timeout_s * 1000)}ms") from None
        except DistroFileChanged as exc:
            raise FileChanged(str(exc)) from None
        except DistroFileError as exc:
            raise ToolFailure(str(exc)) from None

    # -- contents known from earlier calls ------------------------------------------------------

    def known(self, path: str) -> tuple[Target, bytes] | None:
        """The whole content this server last read, wrote or edited at ``path``, when the path
        resolved to itself then; the file may have changed since (``replace(..., known=True)``
        finds out before it writes)."""
        entry = self._known.get(path)
        if entry is not None:
            self._known.move_to_end(path)
        return entry

    def _remember(self, target: Target, data: bytes) -> None:
        if target.resolved != target.path or len(data) > self.known_bytes:
            self.forget(target.resolved)
            return
        self._known[target.resolved] = (target, data)
        self._known.move_to_end(target.resolved)
        while len(self._known) > KNOWN_FILES:
            self._known.popitem(last=False)

    def forget(self, path: str) -> None:
        self._known.pop(path, None)

    def check(self, path: str, access: Access, action: str) -> None:
        """A path in the distro as given: absolute, one line, and allowed by the guard."""
        if not path.startswith("/"):
            raise ToolFailure(f"the path must be absolute (start with /): {quoted(path)!r}")
        if "\x00" in path or "\n" in path:
            raise ToolFailure("the path contains a NUL or newline character")
        self._guard_remote(path, access, action)

    def _guard_remote(self, path: str, access: Access, action: str) -> None:
        decision = self.guard.check_path(path, access)
        if not decision.allowed:
            raise Refused(decision, action)

    def _guard_local(self, path: str, access: Access, action: str) -> None:
        decision = self.guard.check_local_path(path, access)
        if not decision.allowed:
            raise Refused(decision, action)

    def _local(self, path: str, access: Access, action: Callable[[str], str]) -> tuple[str, str, str]:
        """The local path resolved (lexically) and symlink-resolved, each passed through the guard;
        returns (resolved, real, the action text naming the resolved path)."""
        resolved = self.local.resolve(path)
        said = action(resolved)
        self._guard_local(resolved, access, said)
        real = self.local.real(resolved)
        if real != resolved:
            self._guard_local(real, access, said)
        return resolved, real, said

    async def resolve(self, path: str, access: Access, action: str) -> Target:
        """Guard the path as given, resolve it in the distro, guard the resolved path."""
        target, _ = await self._resolve(path, access, action, None)
        return target

    async def _resolve(
        self, path: str, access: Access, action: str, read: int | None, then: tuple[str, int] | None = None
    ) -> tuple[Target, bytes | None]:
        """``resolve``; with ``read``, the same call also reads up to that many bytes of the file when
        the path as given (which the guard has checked) is already the resolved path of a regular
        file: then nothing is read that the guard did not allow. ``then`` (a script tail that does
        the same, and the most it prints) in place of ``read``, on the script path only."""
        self.check(path, access, action)
        direct = self.direct
        if direct is not None:

            def head(target: Target) -> bytes | None:
                return direct.head(target.resolved, read) if read is not None and target.kind == "f" else None

            found = await self._resolved_then(direct, path, access, action, head)
            if found is not None:
                return found
        script = _PROBE.format(path=quote(path))
        if read is not None:
            script += _READ_IF_RESOLVED.format(count=read)
        elif then is not None:
            script += then[0]
        run = await self._run(script, max_output=META_CAPTURE + (read or (then[1] if then else 0)))
        fields = run.exchange.stdout.split(b"\0", 5)
        if len(fields) < 6 or not fields[0].startswith(b"/"):
            raise ToolFailure(f"could not resolve {path} in the distro")
        resolved, kind, parent, size, mode = (f.decode("utf-8", "surrogateescape") for f in fields[:5])
        probed = Probe(resolved, kind, parent == "1", int(size) if size.isdigit() else None, mode or None)
        target = self._judged(path, probed, access, action)
        together = read is not None or then is not None
        return target, fields[5] if together and resolved == path and kind == "f" else None

    async def _resolved_then(
        self, direct: DistroFiles, path: str, access: Access, action: str, then: Callable[[Target], _T]
    ) -> tuple[Target, _T] | None:
        """In one step in process: probe ``path``, judge where it leads, then ``then`` on the
        target; None when only the script answers for the path."""

        def work() -> tuple[Target, _T] | None:
            probe = direct.probe(path)
            if probe is None:
                return None
            target = self._judged(path, probe, access, action)
            return target, then(target)

        return await self._in_process(work)

    def _judged(self, path: str, probe: Probe, access: Access, action: str) -> Target:
        """The probed target, once the guard has allowed the path it resolves to."""
        if probe.resolved != path:
            self._guard_remote(probe.resolved, access, f"{action} (resolves to {probe.resolved})")
        return Target(path, probe.resolved, probe.kind, probe.parent_exists, probe.size, probe.mode)

    # -- tools ----------------------------------------------------------------------------------

    def _regular(self, target: Target, path: str) -> None:
        if target.kind == "-":
            raise ToolFailure(f"no such file: {path}")
        if target.kind == "d":
            raise ToolFailure(f"{path} is a directory; use wsl_list_dir")
        if target.kind != "f":
            raise ToolFailure(f"{path} is not a regular file (device, FIFO or socket); it is not read")

    async def read(self, path: str, limit: int) -> ReadResult:
        # in process and under the sandbox (a bubblewrap per script) the probe reads too; other
        # scripts probe, then read (as the scenarios recorded them)
        together = self.direct is not None or self.runner.transport.confinement is not None
        target, data = await self._resolve(path, "read", f"read {path}", limit + 1 if together else None)
        self._regular(target, path)
        if data is None:
            data = await self._head(target, limit + 1)
        if len(data) <= limit:
            self._remember(target, data)
        return ReadResult(target, data[:limit], len(data) > limit)

    async def _head(self, target: Target, count: int) -> bytes:
        """Up to ``count`` leading bytes of the resolved target."""
        direct = self._direct_at(target.resolved)
        if direct is not None:
            return await self._in_process(lambda: direct.head(target.resolved, count))
        run = await self._run(_READ.format(count=count, target=quote(target.resolved)), max_output=count)
        return run.exchange.stdout

    async def read_lines(self, path: str, limit: int, offset: int, count: int | None) -> ReadResult:
        """Lines from ``offset`` (1-based; negative: that many from the end), at most ``count`` of
        them and ``limit`` bytes, with the file's line count."""
        direct = self.direct
        found = None
        if direct is not None:
            self.check(path, "read", f"read {path}")

            def lines(target: Target) -> tuple[int, bytes]:
                self._regular(target, path)
                return direct.lines(target.resolved, offset, count, limit + 1)

            found = await self._resolved_then(direct, path, "read", f"read {path}", lines)
        if found is not None:
            target, (total, data) = found
        else:
            target, total, data = await self._lines_by_script(path, limit, offset, count)
        first = offset if offset > 0 else max(1, total + offset + 1)
        kept = data[:limit]
        shown = kept.count(b"\n") + (1 if kept and not kept.endswith(b"\n") else 0)
        return ReadResult(target, kept, len(data) > limit, Lines(first, first + shown - 1, total))

    async def _lines_by_script(
        self, path: str, limit: int, offset: int, count: int | None
    ) -> tuple[Target, int, bytes]:
        """``read_lines`` through the scripts: probe, then the lines (under the sandbox one script
        does both, when the path as given is where it leads)."""
        fields = {
            "start": f"+{offset}" if offset > 0 else str(-offset),
            "first": f"head -n {count}" if count is not None else "cat",
            "count": limit + 1,
        }
        raw = None
        if self.runner.transport.confinement is not None:
            then = (_LINES_IF_RESOLVED.format(**fields), limit + 32)
            target, raw = await self._resolve(path, "read", f"read {path}", None, then)
        else:
            target = await self.resolve(path, "read", f"read {path}")
        self._regular(target, path)
        if raw is None:
            script = _READ_LINES.format(target=quote(target.resolved), **fields)
            raw = (await self._run(script, max_output=limit + 32)).exchange.stdout
        total_field, _, data = raw.partition(b"\0")
        return target, int(total_field) if total_field.isdigit() else 0, data

    async def write(self, path: str, content: bytes, *, append: bool) -> tuple[Target, int]:
        target = await self.resolve(path, "write", f"{'append to' if append else 'write'} {path}")
        self._writable(target, path)
        if append and target.kind == "o":  # appending reads it first: a FIFO would wait for a writer
            raise ToolFailure(f"{path} is not a regular file (device, FIFO or socket); it is not appended to")
        self.forget(target.resolved)
        direct = self._direct_at(target.resolved)
        if direct is not None:
            await self._in_place(
                target, lambda temp: direct.write(target.resolved, temp, content, append=append)
            )
        else:
            await self._commit(target, _WRITE, content, append=1 if append else 0)
        if not append:
            self._remember(target, content)
        return target, len(content)

    async def _commit(self, target: Target, script: str, content: bytes, **fields: object) -> None:
        """Run a writing ``script`` (``_WRITE``, ``_REPLACE``) with ``content`` on stdin: a hidden
        file beside the target, in the ledger until the script has renamed or removed it."""
        temp = self._temp_for(target.resolved)
        self._track(temp)
        try:
            await self._run(
                script.format(
                    target=quote(target.resolved),
                    temp=quote(temp),
                    size=len(content),
                    digest=hashlib.sha256(content).hexdigest(),
                    **fields,
                ),
                stdin=content,
            )
        except FileChanged:  # exit 4: before the temp file was made, or after its EXIT trap was set
            self._untrack(temp)
            raise
        except BaseException:
            await self._remove(temp)  # a run killed at its deadline never reached its EXIT trap
            raise
        self._untrack(temp)

    def _direct_at(self, resolved: str) -> DistroFiles | None:
        """The in-process files, when they answer for ``resolved`` as a script would."""
        return self.direct if self.direct is not None and self.direct.reaches(resolved) else None

    async def _in_place(self, target: Target, work: Callable[[str], object]) -> None:
        """A writing ``DistroFiles`` operation on a hidden file beside the target, in the ledger
        until it is renamed or removed (a failure removes it; a deadline leaves it to the ledger)."""
        temp = self._temp_for(target.resolved)
        self._track(temp)
        try:
            await self._in_process(lambda: work(temp))
        except (ToolFailure, FileChanged):
            self._untrack(temp)
            raise
        self._untrack(temp)

    async def read_whole(self, path: str, limit: int, access: Access, action: str) -> tuple[Target, bytes]:
        """A regular file read whole, refused when it holds more than ``limit`` bytes."""
        target, data = await self._resolve(path, access, action, limit + 1)
        self._regular(target, path)
        if target.size is not None and target.size > limit:
            raise ToolFailure(
                f"{path} is {target.size} bytes, over WSL_MAX_READ_BYTES ({limit}); nothing was changed"
            )
        if data is None:  # the path resolved elsewhere: read it there, now that the guard allowed that
            data = await self._head(target, limit + 1)
        if len(data) > limit:
            raise ToolFailure(
                f"{path} grew past WSL_MAX_READ_BYTES ({limit}) while it was read; nothing was changed"
            )
        return target, data

    async def replace(self, target: Target, content: bytes, before: bytes, *, known: bool = False) -> None:
        """Replace ``target`` with ``content`` atomically, keeping its mode and owner, only if it
        still holds ``before`` (checked just before the rename). ``known``: ``target`` and
        ``before`` come from ``known``, not from a read just now, so neither the path's resolution
        nor the mode is trusted; ``FileChanged`` when either is not as known."""
        mode = int(target.mode, 8) if target.mode and target.mode.isdigit() and not known else None
        plain = mode is not None and not mode & 0o7111  # no execute, setuid, setgid or sticky bit
        self.forget(target.resolved)
        digest = hashlib.sha256(before).hexdigest()
        direct = self._direct_at(target.resolved)
        if direct is not None:
            plain_mode = mode if plain else None
            await self._in_place(
                target,
                lambda temp: direct.replace(
                    target.resolved, temp, content, digest, mode=plain_mode, known=known
                ),
            )
            self._remember(target, content)
            return
        await self._commit(
            target,
            _REPLACE,
            content,
            before=digest,
            umask=f"{0o666 & ~mode:03o}" if plain and mode is not None else "077",
            chmod="" if plain else 'chmod --reference="$t" -- "$tmp" 2>/dev/null\n',
            unmoved=f"if {_links_on(target.resolved)}; then echo 'the path leads elsewhere now' >&2; exit {CHANGED}; fi\n"
            if known
            else "",
            changed=CHANGED if known else 3,
        )
        self._remember(target, content)

    def _temp_for(self, resolved: str) -> str:
        """The new file written beside ``resolved``: hidden, named after a fresh run token."""
        directory, base = posixpath.split(resolved)
        return f"{directory.rstrip('/')}/.{base[:200]}.wslmcp-{self.runner.tokens()}"

    async def _remove(self, temp: str) -> None:
        try:
            await self._run(_REMOVE.format(temp=quote(temp)), checked=False)
        except Exception as cleanup:
            raise ToolFailure(
                f"the operation failed and its partial file {temp} could not be removed: {cleanup}"
            ) from None
        self._untrack(temp)

    def _writable(self, target: Target, path: str) -> None:
        if target.kind == "d":
            raise ToolFailure(f"{path} is a directory")
        if not target.parent_exists:
            raise ToolFailure(f"parent directory does not exist: {posixpath.dirname(target.resolved)}")

    async def list_dir(self, path: str) -> Listing:
        target = await self.resolve(path, "read", f"list {path}")
        if target.kind == "-":
            raise ToolFailure(f"no such directory: {path}")
        if target.kind != "d":
            raise ToolFailure(f"{path} is not a directory; use wsl_read_file for a file")
        run = await self._run(_LIST.format(target=quote(target.resolved), cap=MAX_ENTRIES))
        fields = run.exchange.stdout.decode("utf-8", "replace").split("\0")
        total = int(fields[0]) if fields and fields[0].isdigit() else 0
        entries = []
        for raw in fields[1:]:
            parts = raw.rsplit("\t", 4)
            if len(parts) != 5 or not parts[0]:
                continue
            name, kind, mode, size, mtime = parts
            try:
                when = datetime.fromtimestamp(float(mtime), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            except ValueError:
                when = "?"
            entries.append(
                Entry(name, _KINDS.get(kind, "other"), "0" + mode, int(size) if size.isdigit() else 0, when)
            )
        entries.sort(key=lambda e: (e.kind != "directory", e.name))
        kept = tuple(entries[:MAX_ENTRIES])
        return Listing(target, kept, max(total, len(entries)))

    async def upload(self, local_path: str, remote_path: str) -> Transfer:
        resolved_local, _, action = self._local(
            local_path, "read", lambda local: f"upload {local} to {remote_path}"
        )
        self._guard_remote(remote_path, "write", action)
        try:
            source = self.local.open_source(resolved_local)
        except OSError as exc:
            raise ToolFailure(f"cannot read the local file: {exc}") from exc
        try:
            target = await self.resolve(remote_path, "write", action)
            self._writable(target, remote_path)
            self.forget(target.resolved)
            return await self._upload(source, resolved_local, target)
        finally:
            source.close()

    async def _upload(self, source: LocalSource, local: str, target: Target) -> Transfer:
        """The first call checks the target, creates the hidden file and appends the first chunk;
        each further call appends one more; the last verifies the SHA-256 and renames."""
        temp = self._temp_for(target.resolved)
        digest = hashlib.sha256()
        sent = 0
        first = True
        self._track(temp)
        try:
            while first or sent < source.size:
                piece = _Slice(source, min(self.chunk_bytes, source.size - sent), digest)
                script = _UPLOAD_FIRST if first else _UPLOAD_NEXT
                end = sent + piece.limit
                await self._run(
                    script.format(target=quote(target.resolved), temp=quote(temp), end=end), stdin=piece
                )
                sent, first = end, False
                if piece.taken != piece.limit:
                    raise ToolFailure(
                        f"the local file changed while it was read ({sent - piece.limit + piece.taken} "
                        f"of {source.size} bytes)"
                    )
            if source.read(1):
                raise ToolFailure(
                    f"the local file changed while it was read (it grew past {source.size} bytes)"
                )
            await self._run(
                _UPLOAD_COMMIT.format(
                    temp=quote(temp), target=quote(target.resolved), digest=digest.hexdigest()
                )
            )
        except BaseException:
            await self._remove(temp)
            raise
        self._untrack(temp)
        return Transfer(local, target.resolved, sent, digest.hexdigest())

    async def download(self, remote_path: str, local_path: str) -> Transfer:
        resolved_local, real_local, action = self._local(
            local_path, "write", lambda local: f"download {remote_path} to {local}"
        )
        target = await self.resolve(remote_path, "read", action)
        if target.kind == "-":
            raise ToolFailure(f"no such file: {remote_path}")
        if target.kind != "f":
            raise ToolFailure(f"{remote_path} is not a regular file")
        try:
            partial = self.local.partial(real_local)
        except OSError as exc:
            raise ToolFailure(str(exc)) from exc
        try:
            transfer = await self._download(target, partial, resolved_local)
            partial.commit()
        except BaseException:
            partial.abort()
            raise
        return transfer

    async def _download(self, target: Target, partial: LocalPartial, local: str) -> Transfer:
        """Chunks stream into the partial file until one comes back short (or the size the probe saw
        is reached); when more than one call was needed, the distro's SHA-256 must match."""
        digest = hashlib.sha256()
        calls = 0

        def sink(data: bytes) -> None:
            digest.update(data)
            partial.write(data)

        while True:
            run = await self._run(
                _DOWNLOAD_CHUNK.format(
                    target=quote(target.resolved), start=partial.written + 1, count=self.chunk_bytes
                ),
                max_output=self.chunk_bytes,
                stdout_sink=sink,
            )
            calls += 1
            if run.exchange.stdout_total < self.chunk_bytes or partial.written == target.size:
                break
        if calls > 1:
            run = await self._run(_DIGEST.format(target=quote(target.resolved)))
            remote = run.exchange.stdout.decode("ascii", "replace").strip()
            if remote != digest.hexdigest():
                raise ToolFailure(
                    f"{target.path} changed while it was downloaded (checksums differ); nothing was written locally"
                )
        return Transfer(local, target.resolved, partial.written, digest.hexdigest())


class _Slice:
    """At most ``limit`` bytes of ``source``, fed to a call's stdin a piece at a time and hashed."""

    def __init__(self, source: LocalSource, limit: int, digest: hashlib._Hash) -> None:
        self.source = source
        self.limit = limit
        self.digest = digest
        self.taken = 0

    def read(self, n: int, /) -> bytes:
        data = self.source.read(min(n, self.limit - self.taken))
        self.taken += len(data)
        self.digest.update(data)
        return data
