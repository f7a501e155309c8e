"""A fork server for ``python -m MODULE ARGS...`` children whose imports are already done.

Starting ``python -m wslmcp observe --replay DIR`` costs most of its time importing (the MCP SDK and
pydantic); ``wslmcp eval`` starts a fresh server per trace and alias. This program imports the
modules it is told to once, then forks a child per request. A child is exactly what ``python -m``
would have run (``runpy``, fresh ``sys.argv``), in its own session, with the requester's three
file descriptors as its stdin, stdout and stderr.

Protocol (a ``SOCK_SEQPACKET`` unix socket inherited as fd ``argv[1]``): a request is one packet,
``{"argv": [MODULE, ARG...]}`` in JSON with the three descriptors attached (SCM_RIGHTS); the answer
is one packet ``{"pid": N}`` (or ``{"error": "..."}``). The server is single-threaded, never runs
an event loop, reaps its children and exits when the socket closes (its parent is gone).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import traceback

MAX_PACKET = 1 << 16


def _child(argv: list[str], fds: list[int], server: socket.socket) -> None:
    code = 1
    try:
        server.close()
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        sys.argv = [argv[0], *argv[1:]]
        try:
            runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def serve(server: socket.socket) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(server, MAX_PACKET, 3)
        except (ConnectionError, OSError):
            return
        if not data:
            return
        try:
            argv = json.loads(data)["argv"]
            if len(fds) != 3 or not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
                raise ValueError("a request is {'argv': [MODULE, ...]} with three descriptors")
            pid = os.fork()
            if pid == 0:
                _child(argv, fds, server)
            answer: dict[str, object] = {"pid": pid}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            for fd in fds:
                os.close(fd)
        server.send(json.dumps(answer).encode())


def main() -> None:
    fd, preload = int(sys.argv[1]), sys.argv[2:]
    for name in preload:
        importlib.import_module(name)
    server = socket.socket(fileno=fd)
    server.send(b'{"ready": true}')
    serve(server)


if __name__ == "__main__":
    main()
