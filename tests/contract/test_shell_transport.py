"""The shell transport contract, run against the real transports: the local login bash, the
wsl.exe transport driving a `wsl.exe` stand-in on PATH (whose Linux side runs in its own session,
as inside a real distro), and the local bash as a shell recording runs it (each run recorded as the
wsl.exe exchange it stands for, ``boundaries.local_exchanges``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shell.conftest import survivors
from tests.shell.standin import transport_of
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.local_exchanges import LocalThroughWslExe, LocalWslExe
from wslmcp.boundaries.shell_transport import ScriptCall, ShellTransport, current_user
from wslmcp.fakes.wsl_exe import RecordingWslExe
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.shell.runner import Runner


@pytest.fixture(params=["local", "wsl.exe-standin", "local-recorded"])
def transport(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ShellTransport:
    if request.param == "local-recorded":  # what a shell recording over the local transport runs on
        writer = ScenarioWriter(tmp_path / "rec", "rec", "", SystemClock())
        recorder = RecordingWslExe(LocalWslExe(os.path.expanduser("~")), writer)
        return LocalThroughWslExe(recorder, "local", None, current_user())
    return transport_of(request.param, tmp_path, monkeypatch)


async def test_streams_and_exit_code(transport: ShellTransport) -> None:
    ex = await transport.run(ScriptCall("echo out; echo err >&2; exit 7", timeout_s=30))
    assert (ex.stdout, ex.stderr, ex.exit_code, ex.timed_out) == (b"out\n", b"err\n", 7, False)


async def test_both_streams_go_to_their_sinks_up_to_the_cap(transport: ShellTransport) -> None:
    out, err = bytearray(), bytearray()
    ex = await transport.run(
        ScriptCall("seq 1 100000; echo err >&2", timeout_s=30, stdout_sink=out.extend, stderr_sink=err.extend)
    )
    assert (ex.stdout, ex.stderr, ex.exit_code, bytes(err)) == (b"", b"", 0, b"err\n")
    assert bytes(out) == b"".join(b"%d\n" % n for n in range(1, 100001)) and ex.stdout_total == len(out)
    capped = bytearray()
    flood = await transport.run(
        ScriptCall("cat /dev/zero", timeout_s=30, max_output=10_000, stdout_sink=capped.extend)
    )
    assert flood.overflowed and len(capped) == 10_000 and flood.stdout_total > 10_000


async def test_the_script_arrives_verbatim_in_a_login_shell(transport: ShellTransport) -> None:
    ex = await transport.run(
        ScriptCall("shopt -q login_shell && printf '%s|%s|%s\\n' 'x\\y' \"$HOME\" '%PATH%'", timeout_s=30)
    )
    assert ex.stdout.decode() == f"x\\y|{os.path.expanduser('~')}|%PATH%\n"


async def test_stdin_is_closed_unless_bytes_are_given(transport: ShellTransport) -> None:
    closed = await transport.run(ScriptCall('read -r line; echo "got=[$line] $?"', timeout_s=30))
    assert closed.stdout == b"got=[] 1\n"
    payload = bytes(range(256)) * 3
    fed = await transport.run(ScriptCall("cat", stdin=payload, timeout_s=30))
    assert fed.stdout == payload


async def test_deadline_and_output_cap(transport: ShellTransport) -> None:
    slow = await transport.run(ScriptCall("echo before; sleep 5", timeout_s=0.5))
    assert slow.timed_out and slow.exit_code is None and slow.stdout == b"before\n"
    flood = await transport.run(ScriptCall("cat /dev/zero", timeout_s=30, max_output=10_000))
    assert flood.overflowed and len(flood.stdout) == 10_000
    await Runner(transport).sweep("0")  # harmless with no match


async def test_the_runner_kills_and_names_every_process_of_a_timed_out_script(
    transport: ShellTransport,
) -> None:
    runner = Runner(transport)
    run = await runner.run(
        ScriptCall(
            'echo "$$"; sleep 14.142135 & echo "$!"; sleep 14.142136; echo never',
            timeout_s=1.5,
            max_output=1000,
        )
    )
    assert run.exchange.timed_out and run.sweep_error is None
    shell_pid, sleep_pid = run.exchange.stdout.decode().split()
    # the local transport names its process group; killing the wsl.exe stand-in leaves the Linux
    # side alive, and the token sweep finds, names and kills it: either way every process is named
    assert f"{shell_pid} bash" in run.killed and f"{sleep_pid} sleep" in run.killed, run.killed
    assert len({k.split()[0] for k in run.killed}) == len(run.killed)  # nobody named twice
    assert await survivors("sleep 14.14213") == []


async def test_a_non_login_script_sources_no_profile(transport: ShellTransport) -> None:
    login = await transport.run(ScriptCall("shopt -q login_shell && echo login || echo plain", timeout_s=30))
    plain = await transport.run(
        ScriptCall("shopt -q login_shell && echo login || echo plain", timeout_s=30, login=False)
    )
    assert (login.stdout, plain.stdout) == (b"login\n", b"plain\n")


async def test_stdin_streams_from_a_source_and_stdout_into_a_sink(transport: ShellTransport) -> None:
    import io

    payload = os.urandom(3 * 1024 * 1024 + 5)
    received = bytearray()
    ex = await transport.run(
        ScriptCall("cat", stdin=io.BytesIO(payload), stdout_sink=received.extend, timeout_s=60, login=False)
    )
    assert ex.exit_code == 0 and ex.stdout == b"" and ex.stdout_total == len(payload)
    assert bytes(received) == payload


async def test_a_live_script_takes_input_as_it_comes_and_merges_its_streams(
    transport: ShellTransport,
) -> None:
    import asyncio

    queue: asyncio.Queue[bytes] = asyncio.Queue()

    class Pieces:
        async def receive(self) -> bytes:
            return await queue.get()

    seen = bytearray()
    grew = asyncio.Event()

    def sink(data: bytes) -> None:
        seen.extend(data)
        grew.set()

    script = 'exec 2>&1; echo ready; echo warn >&2; read -r x; echo "got=$x" >&2; read -r y; echo "eof=$?"'
    run = asyncio.ensure_future(
        transport.run(
            ScriptCall(
                script, stdin=Pieces(), stdout_sink=sink, merge_stderr=True, timeout_s=60, max_output=1 << 40
            )
        )
    )
    while b"warn\n" not in seen:  # both lines arrive before any input is sent
        grew.clear()
        await asyncio.wait_for(grew.wait(), 30)
    assert bytes(seen) == b"ready\nwarn\n" and not run.done()
    queue.put_nowait(b"abc\n")
    queue.put_nowait(b"")
    ex = await run
    assert bytes(seen) == b"ready\nwarn\ngot=abc\neof=1\n" and ex.exit_code == 0 and ex.stderr == b""
