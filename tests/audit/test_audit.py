"""The audit log end to end: a real ShellService over the real local transport, an AuditedGuard,
and the real append-only file; concurrency across tasks, threads and processes."""

from __future__ import annotations

import asyncio
import io
import json
import multiprocessing
from pathlib import Path

from wslmcp.boundaries.audit_log import AppendOnlyFile, AuditLogFile
from wslmcp.boundaries.local_files import OsLocalFiles
from wslmcp.boundaries.shell_transport import LocalTransport
from wslmcp.fakes.audit_log import MemoryAuditLog
from wslmcp.fakes.clock import FakeClock
from wslmcp.shell.audit import Audit, AuditedGuard, redact
from wslmcp.shell.config import ConfigError, load_config
from wslmcp.shell.log import Log
from wslmcp.shell.replies import render
from wslmcp.shell.runner import Runner
from wslmcp.shell.service import ShellService


def service(
    sink: AuditLogFile, state: Path, *, required: bool = False, env: dict[str, str] | None = None
) -> ShellService:
    config = load_config({"WSL_DISTRO": "Ubuntu", **(env or {})})
    clock = FakeClock()
    return ShellService(
        config,
        runner=Runner(LocalTransport()),
        guard=AuditedGuard(config.policy),
        clock=clock,
        log=Log("silent", io.StringIO(), clock),
        local_files=OsLocalFiles(state),
        audit=Audit(sink, clock, path="/audit.jsonl", required=required),
    )


def records(sink: MemoryAuditLog) -> list[dict[str, object]]:
    return [json.loads(line) for line in sink.lines]


async def test_an_allowed_command_logs_tool_subject_verdict_exit_and_sizes(tmp_path: Path) -> None:
    sink = MemoryAuditLog()
    reply = render(await service(sink, tmp_path / "state").exec("echo hi; exit 3", cwd=str(tmp_path)))
    [line] = records(sink)
    assert line["tool"] == "wsl_exec" and line["verdict"] == "allow" and line["rule"] is None
    assert line["exit_code"] == 3
    assert line["bytes_in"] == len(b"echo hi; exit 3")
    assert line["bytes_out"] == len(reply.text.encode())
    assert {"command": "echo hi; exit 3", "cwd": str(tmp_path)} in line["subjects"]  # type: ignore[operator]
    assert isinstance(line["duration_ms"], float) and str(line["time"]).endswith("+00:00")


async def test_a_refused_command_logs_its_rule_and_no_exit_code(tmp_path: Path) -> None:
    sink = MemoryAuditLog()
    await service(sink, tmp_path / "state").exec("rm -rf /", cwd=str(tmp_path))
    [line] = records(sink)
    assert (line["verdict"], line["rule"], line["exit_code"]) == ("reject", "catastrophe.rm_root", None)


async def test_a_call_that_never_reaches_the_guard_writes_nothing(tmp_path: Path) -> None:
    sink = MemoryAuditLog()
    await service(sink, tmp_path / "state").list_hosts()
    assert sink.lines == []


async def test_file_contents_never_reach_the_log(tmp_path: Path) -> None:
    sink = MemoryAuditLog()
    target = tmp_path / "notes.txt"
    await service(sink, tmp_path / "state").write_file(str(target), "the secret body of the file")
    [line] = records(sink)
    assert "secret body" not in json.dumps(line)
    assert line["tool"] == "wsl_write_file" and line["bytes_in"] == len(b"the secret body of the file")
    assert {"path": str(target), "access": "write"} in line["subjects"]  # type: ignore[operator]


async def test_secrets_in_arguments_and_urls_are_redacted(tmp_path: Path) -> None:
    sink = MemoryAuditLog()
    command = (
        "curl -H 'Authorization: Bearer abc.def' https://me:hunter2@example.com/x?token=t0k3n "
        "&& PGPASSWORD=pw1 psql && mysql -psecretpw && echo ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    )
    await service(sink, tmp_path / "state").exec(command, cwd=str(tmp_path))
    text = json.dumps(records(sink))
    for secret in ("abc.def", "hunter2", "t0k3n", "pw1", "secretpw", "ghp_abcdefghij"):
        assert secret not in text, secret
    assert "https://me:***@example.com" in text


def test_redaction_keeps_ordinary_commands_intact() -> None:
    for text in ("ls -la /tmp", "git log --oneline", "grep -r password_reset src/", "cat ~/.bashrc"):
        assert redact(text) == text


async def test_required_and_unwritable_refuses_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    broken = AppendOnlyFile(str(tmp_path / "missing-dir" / "audit.jsonl"))
    reply = render(
        await service(broken, tmp_path / "state", required=True).exec(f"touch {marker}", cwd=str(tmp_path))
    )
    assert reply.is_error and "audit log" in reply.text and reply.text.endswith("nothing was run")
    assert not marker.exists()


async def test_not_required_and_unwritable_still_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    broken = AppendOnlyFile(str(tmp_path / "missing-dir" / "audit.jsonl"))
    reply = render(await service(broken, tmp_path / "state").exec(f"touch {marker}", cwd=str(tmp_path)))
    assert not reply.is_error and marker.exists()


def test_config_reads_the_audit_variables() -> None:
    config = load_config({"WSL_AUDIT_LOG": "/var/log/wslmcp.jsonl", "WSL_AUDIT_REQUIRED": "true"})
    assert (config.audit_log, config.audit_required) == ("/var/log/wslmcp.jsonl", True)
    assert load_config({}).audit_log is None
    for bad in (
        {"WSL_AUDIT_REQUIRED": "true"},
        {"WSL_AUDIT_LOG": "relative.jsonl"},
        {"WSL_AUDIT_REQUIRED": "maybe", "WSL_AUDIT_LOG": "/x"},
    ):
        try:
            load_config(bad)
        except ConfigError as exc:
            assert "WSL_AUDIT" in str(exc)
        else:
            raise AssertionError(f"{bad} was accepted")


async def test_concurrent_calls_in_one_server_write_one_whole_line_each(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    svc = service(AppendOnlyFile(str(path)), tmp_path / "state")
    await asyncio.gather(*(svc.exec(f"echo {k} {'y' * (k * 97)}", cwd=str(tmp_path)) for k in range(24)))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(int(str(r["subjects"][0]["command"]).split()[1]) for r in lines) == list(range(24))  # type: ignore[index]


def _append_from_process(path: str, writer: int) -> None:
    clock = FakeClock()
    audit = Audit(AppendOnlyFile(path), clock, path=path, required=True)
    guard = AuditedGuard(load_config({}).policy)
    for k in range(100):
        with audit.call("wsl_exec", {"command": f"echo {writer} {k}"}) as call:
            guard.check_command(f"echo {writer} {k} {'z' * ((writer * 131 + k * 61) % 5000)}")
            call.finished(f"exit code: {k % 3}", k % 3)


def test_concurrent_processes_never_interleave(tmp_path: Path) -> None:
    path = str(tmp_path / "audit.jsonl")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_from_process, args=(path, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    assert len(lines) == 400
    seen = {tuple(str(r["subjects"][0]["command"]).split()[1:3]) for r in lines}  # type: ignore[index]
    assert seen == {(str(w), str(k)) for w in range(4) for k in range(100)}


async def test_the_workbench_tools_each_write_their_line(tmp_path: Path) -> None:
    from wslmcp.boundaries.clock import SystemClock
    from wslmcp.shell.edits import Edit

    sink = MemoryAuditLog()
    config = load_config({"WSL_DISTRO": "Ubuntu", "WSL_NAME": "box"})
    clock = SystemClock()
    s = ShellService(
        config,
        runner=Runner(LocalTransport()),
        guard=AuditedGuard(config.policy),
        clock=clock,
        log=Log("silent", io.StringIO(), clock),
        local_files=OsLocalFiles(tmp_path / "state"),
        audit=Audit(sink, clock, path="/audit.jsonl", required=False),
    )
    (tmp_path / "f.txt").write_text("old\n")
    await s.start("cat", cwd=str(tmp_path), wait_ms=0)
    await s.send_input("box#p1", "token=hunter2\n", wait_ms=0)
    await s.read_output("box#p1")
    await s.stop("box#p1", signal="KILL")
    await s.edit_file(str(tmp_path / "f.txt"), [Edit("old", "new")])
    await s.search("new", str(tmp_path))
    await s.shutdown()
    lines = records(sink)
    assert [line["tool"] for line in lines] == [
        "wsl_start", "wsl_send_input", "wsl_read_output", "wsl_stop", "wsl_edit_file", "wsl_search",
    ]  # fmt: skip
    start, send, read, stop, edit, search = lines
    assert start["subjects"] == [{"command": "cat", "cwd": str(tmp_path)}]
    assert "hunter2" not in json.dumps(send) and send["bytes_in"] == len("token=hunter2\n")
    assert read["subjects"] == stop["subjects"] == [{"process": "box#p1", "command": "cat"}]
    assert {"path": str(tmp_path / "f.txt"), "access": "write"} in edit["subjects"]  # type: ignore[operator]
    assert search["subjects"] == [{"path": str(tmp_path), "access": "read"}]


async def test_a_huge_command_is_logged_capped_saying_how_much_was_left_out(tmp_path: Path) -> None:
    from wslmcp.shell.audit import AUDIT_TEXT_CHARS

    sink = MemoryAuditLog()
    huge = "rm -rf / # " + "x" * (1 << 20)
    await service(sink, tmp_path / "state").exec(huge, cwd=str(tmp_path))
    [line] = records(sink)
    [subject] = [s for s in line["subjects"] if "command" in s]  # type: ignore[attr-defined]
    left = len(huge) - AUDIT_TEXT_CHARS
    assert subject["command"] == f"{huge[:AUDIT_TEXT_CHARS]}… ({left} more characters)"
    assert line["verdict"] == "reject" and line["bytes_in"] == len(huge)  # the size still says it all
    assert len(sink.lines[0]) < 2 * AUDIT_TEXT_CHARS
