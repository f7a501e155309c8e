"""A child that leads its own process group: start it, signal the whole group, see it gone.

The one process-group implementation, shared by ``process.run_process`` and the MCP launcher
(``mcp_stdio``), both on asyncio.

- ``start_group(argv, ...)`` starts the child in a new session (POSIX), so it leads a process
  group holding everything it spawns. Raises what ``asyncio.create_subprocess_exec`` raises
  (``OSError`` for a missing or non-executable program, ``ValueError`` for an embedded NUL).
- ``Group.kill()`` SIGKILLs the group (on Windows, only the child); ``kill_named()`` first stops
  the group (twice, for a child forked while the first stop was delivered), names its members
  ("pid comm"), then kills them.
- ``Group.stop(polite=, grace_s=)`` ends it for good: SIGTERM and up to ``grace_s`` for the
  leader to exit when ``polite``, then SIGKILL; on return the leader is reaped and no member of
  the group is alive (zombies count as dead), unless one survives SIGKILL for two seconds.
- The leader's exit is awaited on its pidfd where the kernel offers one (opened at start, while
  the pid surely is this child's), else by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from typing import Any

_POLL_S = 0.01
KILL_WAIT_S = 2.0


def group_members(pgid: int, proc_root: str = "/proc") -> list[tuple[int, str]]:
    """(pid, comm) of every live process (neither zombie nor dead) in process group ``pgid``, read
    from /proc; empty where there is no /proc."""
    try:
        entries = os.listdir(proc_root)
    except OSError:
        return []
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc_root}/{entry}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        close = raw.rfind(b")")
        fields = raw[close + 2 :].split()
        if len(fields) < 3 or fields[0] in (b"Z", b"X") or not fields[2].isdigit() or int(fields[2]) != pgid:
            continue
        members.append((int(entry), raw[raw.find(b"(") + 1 : close].decode("utf-8", "replace")))
    return sorted(members)


class Group:
    """A started child and the process group it leads."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid
        self._exit_fd = _open_exit_fd(process.pid)

    def signal(self, sig: signal.Signals) -> None:
        """``sig`` to the whole group; quiet when it is already gone."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.name == "posix":
                os.killpg(self.pid, sig)
            elif sig == signal.SIGKILL:  # pragma: no cover - Windows has no process groups here
                self.process.kill()

    def kill(self) -> None:
        self.signal(signal.SIGKILL)

    def kill_named(self) -> tuple[str, ...]:
        """Stop the group, name its members ("pid comm"), then kill them all."""
        if os.name != "posix":
            self.kill()
            return ()
        for _ in range(2):
            self.signal(signal.SIGSTOP)
        members = group_members(self.pid)
        self.kill()
        return tuple(f"{pid} {comm}" for pid, comm in members)

    async def wait_leader(self, limit_s: float) -> None:
        """Wait for the leader's exit, at most ``limit_s`` (not for its pipes: a straggler may hold
        them): woken by its pidfd where there is one, else by polling."""
        proc = self.process
        if proc.returncode is not None:
            return
        if self._exit_fd is not None:
            loop = asyncio.get_running_loop()
            readable: asyncio.Future[None] = loop.create_future()

            def wake() -> None:
                if not readable.done():
                    readable.set_result(None)

            loop.add_reader(self._exit_fd, wake)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(readable, limit_s)
            finally:
                loop.remove_reader(self._exit_fd)
            return
        deadline = time.monotonic() + limit_s
        while proc.returncode is None and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(_POLL_S)

    async def wait_gone(self, limit_s: float) -> None:
        """SIGKILL is asynchronous: make sure the group (grandchildren too) is really gone.

        Usually the group no longer exists at all (one ``killpg(pgid, 0)``); only when something of
        it is still there (a zombie not yet reaped counts) is /proc read to tell the living from
        the dead.
        """
        if os.name != "posix":  # pragma: no cover
            return
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            try:
                os.killpg(self.pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:  # a member we cannot signal: only /proc can tell
                pass
            if not await asyncio.to_thread(self._live_members):
                return
            self.kill()
            await asyncio.sleep(_POLL_S)

    def _live_members(self) -> list[int]:
        if not os.path.isdir("/proc"):  # no procfs: the group still answered signal 0
            return [self.pid]
        return [pid for pid, _ in group_members(self.pid)]

    def close_pipes(self) -> None:
        """Stop listening to the child's pipes (a member that escaped the group may hold them)."""
        transport = getattr(self.process, "_transport", None)
        if transport is None:
            return
        for fd in (0, 1, 2):
            pipe = transport.get_pipe_transport(fd)
            if pipe is not None:
                pipe.close()

    async def stop(self, *, polite: bool, grace_s: float) -> None:
        """Close stdin; SIGTERM and up to ``grace_s`` for the leader if ``polite``; then SIGKILL the
        whole group, reap the leader, wait until no member is alive and close the pipes."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            if polite and self.process.returncode is None:
                self.signal(signal.SIGTERM)
                await self.wait_leader(grace_s)
            self.kill()
            await self.wait_leader(KILL_WAIT_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), KILL_WAIT_S)
            await self.wait_gone(KILL_WAIT_S)
            self.close_pipes()
        except BaseException:  # cancelled while waiting: the group still dies
            self.kill()
            raise
        finally:
            self.close()

    def close(self) -> None:
        """Release the pidfd (idempotent)."""
        if self._exit_fd is not None:
            fd, self._exit_fd = self._exit_fd, None
            os.close(fd)


def _open_exit_fd(pid: int) -> int | None:
    """A pidfd for the leader (readable once it has exited), where the kernel offers one."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux >= 5.3: poll instead
        return None


async def start_group(
    argv: Sequence[str],
    *,
    stdin: int,
    stdout: int,
    stderr: int,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> Group:
    """Start ``argv`` as the leader of a new process group (``stdin``/``stdout``/``stderr`` are
    ``asyncio.subprocess.PIPE`` / ``DEVNULL`` constants)."""
    kwargs: dict[str, Any] = {"start_new_session": os.name == "posix"}
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, **kwargs
    )
    return Group(proc)
