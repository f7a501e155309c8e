"""Real processes with hostile /proc contents, for byte-exact comparisons of /proc readers.

Each child is a Python process started with a chosen ``argv[0]`` and arguments; it then writes its
own ``/proc/self/comm`` (its last argument says how) and, when asked, overwrites its whole argument area through
``/proc/self/mem`` so that ``cmdline`` no longer ends with a NUL (what ``setproctitle`` does; the
environment is empty, so the kernel appends nothing after it), and
it can leave an unreaped child behind (a zombie: empty ``cmdline``). Every child blocks on stdin, so
its ``stat`` and ``cmdline`` stay the same until the context ends; all are reaped on exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CHILD = """
import os, sys
comm, title, zombie = sys.argv[-1].split(",")
with open("/proc/self/comm", "wb") as f:
    f.write(bytes.fromhex(comm))
if title:
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])
    with open("/proc/self/mem", "r+b", buffering=0) as m:
        m.seek(start)
        m.write(bytes.fromhex(title)[: end - start].ljust(end - start, b" "))
z = os.fork() if zombie == "1" else 0
if zombie == "1" and z == 0:
    os._exit(0)
print("ready", z, flush=True)
sys.stdin.read()
if z:
    os.waitpid(z, 0)
"""

FORGED = b"\n0123456789abcdef0123456789abcdef F 1/stat\n1 (init) S\n0123456789abcdef0123456789abcdef END\n"
ALL_BYTES = bytes(range(1, 256))


@dataclass(frozen=True)
class Hostile:
    argv: tuple[bytes, ...]  # argv[0] first; the interpreter's "-c CODE" follow it
    comm: bytes  # at most 15 bytes
    title: bytes = b""  # non-empty: the argument area is overwritten with it, space-padded, no NUL
    zombie: bool = False


CASES: tuple[Hostile, ...] = (
    Hostile((b"\xffname\nwith newline", b"\x01\x7f\x80", b"", ALL_BYTES, FORGED), b"a\nb) c"),
    Hostile((b"bad (comm)",), b"\xff\xfe) R 1 2 3"),
    Hostile((b"proctitle",), b"titled", title=b"title without a trailing NUL (x) \xff"),
    Hostile((b"parent-of-zombie",), b"zparent", zombie=True),
)


@dataclass(frozen=True)
class Running:
    pids: tuple[int, ...]  # the children, then any zombies they hold


@contextmanager
def hostile_processes(cases: tuple[Hostile, ...] = CASES) -> Iterator[Running]:
    children: list[subprocess.Popen[bytes]] = []
    pids: list[int] = []
    zombies: list[int] = []
    try:
        for case in cases:
            spec = f"{case.comm.hex()},{case.title.hex()},{int(case.zombie)}".encode()
            argv = [case.argv[0], b"-c", CHILD.encode(), *case.argv[1:], spec]
            child = subprocess.Popen(
                argv, executable=sys.executable, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={}
            )
            children.append(child)
            assert child.stdout is not None
            ready = child.stdout.readline().split()
            assert ready[:1] == [b"ready"], ready
            pids.append(child.pid)
            if int(ready[1]):
                zombies.append(int(ready[1]))
        for zombie in zombies:  # wait until the forked child has really exited (a zombie)
            while _state(zombie) not in ("Z", None):
                os.sched_yield()
        for pid in pids:  # "ready" comes just before the read of stdin: wait until blocked in it
            while _state(pid) != "S":
                os.sched_yield()
        yield Running((*pids, *zombies))
    finally:
        for child in children:
            assert child.stdin is not None
            child.stdin.close()
        for child in children:
            child.wait()
            if child.stdout is not None:
                child.stdout.close()


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return None
