"""wsl_exec through the real local transport (a real login bash) inside a temporary sandbox."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path

from tests.shell.conftest import WrappedLocal, build, survivors
from wslmcp.boundaries.shell_transport import LocalTransport, ScriptCall
from wslmcp.shell.runner import Runner


async def test_streams_exit_code_and_duration(tmp_path: Path) -> None:
    b = build()
    reply = await b.service.exec("echo out; echo err >&2; exit 3", cwd=str(tmp_path))
    assert not reply.is_error  # a non-zero exit is normal output
    head = reply.text.splitlines()[0]
    assert re.fullmatch(r"exit code: 3  ·  \d+ms", head)
    assert "--- stdout ---\nout\n" in reply.text
    assert "--- stderr ---\nerr\n" in reply.text


async def test_login_shell_closed_stdin_and_verbatim_text(tmp_path: Path) -> None:
    b = build()
    reply = await b.service.exec(
        "shopt -q login_shell && echo login; read -r line; echo \"got=[$line]\"; printf '%s|%s\\n' 'x\\y' \"$PWD\"",
        cwd=str(tmp_path),
    )
    assert "login\ngot=[]\nx\\y|" + str(tmp_path) in reply.text


async def test_a_missing_cwd_fails_with_exit_1_and_says_so(tmp_path: Path) -> None:
    b = build()
    reply = await b.service.exec("echo never", cwd=str(tmp_path / "missing"))
    assert reply.text.startswith("exit code: 1")
    assert "cannot enter the working directory" in reply.text and "never" not in reply.text.split("stderr")[0]


async def test_timeout_kills_every_process_the_command_started_and_names_each(tmp_path: Path) -> None:
    b = build()
    marker = "31.4159"
    reply = await b.service.exec(
        f'echo "bash=$$"; sleep {marker}1 & echo "in-group=$!"; setsid sleep {marker}2 & echo "escaped=$!"; '
        f'(sleep {marker}3 & echo "double-forked=$!"); sleep 0.2; echo started; sleep {marker}4',
        cwd=str(tmp_path),
        timeout_ms=1500,
    )
    assert "TIMED OUT after 1500ms" in reply.text
    assert "exit code: 137 (killed by signal 9, SIGKILL)" in reply.text  # one form for a death by signal
    assert "started" in reply.text
    pids = dict(re.findall(r"^([a-z-]+)=(\d+)$", reply.text, re.M))
    assert set(pids) == {"bash", "in-group", "escaped", "double-forked"}, reply.text
    kill_line = next(line for line in reply.text.splitlines() if line.startswith("TIMED OUT"))
    group, _, outside = kill_line.partition("outside its process group: ")
    # the process group's members, stopped and named before the kill: the command's bash and the
    # sleeps that stayed in its group (including the double-forked one)
    assert f"{pids['bash']} bash" in group
    assert f"{pids['in-group']} sleep" in group and f"{pids['double-forked']} sleep" in group
    assert re.search(r"the command's process group was killed \((\d+) process(es)?: ", group)
    # the setsid'd child left the group; the token sweep found, named and killed it
    assert outside.rstrip(".") == f"{pids['escaped']} sleep", kill_line
    assert await survivors(f"sleep {marker}") == []
    for pid in pids.values():
        assert (
            not Path(f"/proc/{pid}").exists()
            or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
        )


async def test_per_call_timeout_is_capped_by_the_profile(tmp_path: Path) -> None:
    b = build({"WSL_EXEC_TIMEOUT_MS": "500"})
    reply = await b.service.exec("sleep 27.182818", cwd=str(tmp_path), timeout_ms=60_000)
    assert "TIMED OUT after 500ms" in reply.text
    assert await survivors("sleep 27.182818") == []


async def test_output_is_cut_per_stream_with_a_marker(tmp_path: Path) -> None:
    b = build({"WSL_MAX_OUTPUT": "50"})
    reply = await b.service.exec(
        "head -c 120 /dev/zero | tr '\\0' a; echo; echo short >&2", cwd=str(tmp_path)
    )
    # no line end in 120 characters: the head and the tail are cut at characters, the rest counted
    assert "a" * 12 + "\n… 71 characters left out here …\n" + "a" * 37 + "\n\n" in reply.text
    assert "--- stderr ---\nshort\n" in reply.text
    assert "Long output: its first and last lines are kept, 50 characters per stream" in reply.text


async def test_a_runaway_writer_is_stopped_at_the_safety_cap(tmp_path: Path) -> None:
    b = build({"WSL_MAX_OUTPUT": "1000", "WSL_OUTPUT_CAP_BYTES": "40000"})
    reply = await b.service.exec("cat /dev/zero", cwd=str(tmp_path))
    assert "STOPPED: stdout passed the safety cap of 40000 bytes (WSL_OUTPUT_CAP_BYTES)" in reply.text
    assert reply.text.startswith("exit code: 137 (killed by signal 9, SIGKILL)")
    # memory: the captured stream never holds more than the cap
    runner = Runner(LocalTransport())
    run = await runner.run(ScriptCall("cat /dev/zero", timeout_s=30, max_output=4000))
    assert run.exchange.overflowed and len(run.exchange.stdout) == 4000
    assert await survivors("cat /dev/zero") == []


async def test_utf8_and_invalid_bytes_are_decoded_safely(tmp_path: Path) -> None:
    b = build()
    reply = await b.service.exec("printf '한글 😀\\n\\377\\n'", cwd=str(tmp_path))
    assert "한글 😀\n\ufffd\n" in reply.text


async def test_concurrency_is_bounded(tmp_path: Path) -> None:
    transport = WrappedLocal()
    b = build(transport=transport, max_concurrent=3)
    replies = await asyncio.gather(
        *(b.service.exec(f"sleep 0.1; echo {i}", cwd=str(tmp_path)) for i in range(8))
    )
    assert [r.text.split("--- stdout ---\n")[1].strip() for r in replies] == [str(i) for i in range(8)]
    assert transport.calls == 8
    assert transport.peak == 3


async def test_not_configured_answers_every_tool_clearly(tmp_path: Path) -> None:
    b = build({"WSL_DISTRO": ""})
    calls: Sequence[object] = (
        b.service.exec("true"),
        b.service.connect(),
        b.service.list_dir("/tmp"),
        b.service.read_file("/etc/hostname"),
        b.service.write_file(str(tmp_path / "x"), "x"),
        b.service.upload(str(tmp_path / "x"), "/tmp/x"),
        b.service.download("/etc/hostname", str(tmp_path / "y")),
    )
    for call in calls:
        reply = await call  # type: ignore[misc]
        assert reply.is_error and "not configured" in reply.text
    hosts = await b.service.list_hosts()
    assert not hosts.is_error and "No WSL distro is registered" in hosts.text
    assert not list(tmp_path.iterdir())


async def test_unknown_session_is_an_error_that_lists_open_sessions() -> None:
    b = build()
    reply = await b.service.exec("true", session="Ubuntu#9")
    assert reply.is_error and "unknown session 'Ubuntu#9' (open sessions: none)" in reply.text


async def test_logs_carry_the_command_only_at_debug(tmp_path: Path) -> None:
    b = build({"WSL_MCP_LOG_LEVEL": "info"})
    await b.service.exec("echo secret-command-text", cwd=str(tmp_path))
    assert "command finished" in b.log.getvalue()
    assert "secret-command-text" not in b.log.getvalue()
    refused = await b.service.exec("rm -rf /")
    assert refused.is_error
    assert '"level": "warn"' in b.log.getvalue() and "rm -rf /" in b.log.getvalue()
