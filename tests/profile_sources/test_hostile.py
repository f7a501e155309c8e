"""Hostile servers over real stdio: each is a failed query with a clear reason, and nothing survives.

"Nothing survives" is checked on the pids the servers (and their grandchildren) wrote to files.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import psutil
import pytest

from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher

from .conftest import PYTHON, SERVER

TIMEOUT = 1.0


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _pid(path: Path) -> int:
    return int(path.read_text())


def _query(
    tmp_path: Path, *args: str, max_output: int = 1024 * 1024, timeout_s: float = TIMEOUT
) -> tuple[ServerAnswer, list[int]]:
    pidfile, grandchild = tmp_path / "server.pid", tmp_path / "grandchild.pid"
    spec = ServerSpec(
        name="hostile",
        command=PYTHON,
        args=(SERVER, "--pidfile", str(pidfile), "--grandchild", str(grandchild), *args),
    )
    answer = StdioMcpLauncher(max_output=max_output).query(spec, timeout_s)
    pids = [_pid(p) for p in (pidfile, grandchild) if p.exists()]
    return answer, pids


CASES = [
    pytest.param(("--mode", "silent"), "timeout after 1 seconds", None, id="no-answer"),
    pytest.param(
        ("--junk", "6", "--mode", "silent"), "timeout after 1 seconds", "were not JSON-RPC", id="junk-only"
    ),
    pytest.param(("--mode", "invalid"), "timeout after 1 seconds", "were not JSON-RPC", id="invalid-json"),
    pytest.param(
        ("--mode", "exit"),
        "server closed stdout before response id 1",
        "exited with code 3",
        id="instant-exit",
    ),
    pytest.param(
        ("--mode", "crash"),
        "server closed stdout before response id 2",
        "exited with code 1",
        id="crash-mid-answer",
    ),
    pytest.param(
        ("--mode", "huge", "--huge-bytes", "3000000"),
        "server output exceeded 1048576 bytes",
        None,
        id="enormous-tool",
    ),
    pytest.param(("--tools", "50000"), "server output exceeded 1048576 bytes", None, id="enormous-tool-list"),
    pytest.param(("--mode", "error"), "initialize failed (code -32603)", None, id="json-rpc-error"),
    pytest.param(("--sleep", "30"), "timeout after 1 seconds", None, id="too-slow"),
    pytest.param(
        ("--mode", "error", "--error-code", '"x"'), "initialize failed (no code)", None, id="text-error-code"
    ),
    pytest.param(
        ("--mode", "error", "--error-code", "1.5"), "initialize failed (no code)", None, id="float-error-code"
    ),
    pytest.param(
        ("--mode", "error", "--error-code", "true"), "initialize failed (no code)", None, id="bool-error-code"
    ),
    pytest.param(
        ("--mode", "listerror", "--error-code", "null"),
        "tools/list failed (no code)",
        None,
        id="list-no-code",
    ),
    pytest.param(("--mode", "listerror"), "tools/list failed (code -32603)", None, id="list-error"),
    pytest.param(
        ("--mode", "noresult"), "tools/list response has no result object", None, id="list-result-array"
    ),
]


@pytest.mark.parametrize(("args", "error", "detail"), CASES)
def test_hostile_server_is_a_failed_query_and_leaves_nothing(
    tmp_path: Path, args: tuple[str, ...], error: str, detail: str | None
) -> None:
    # Only the servers that never answer are given the short deadline: the others must be
    # diagnosed from their answer, not by waiting (a timeout would show in the error text).
    timeout_s = TIMEOUT if error.startswith("timeout") else 30.0
    answer, pids = _query(tmp_path, *args, timeout_s=timeout_s)
    assert answer.error == error
    assert answer.tools == () and answer.server_name is None
    if detail is not None:
        assert answer.detail is not None and detail in answer.detail
    assert "secret-ish" not in (answer.error or "") + (answer.detail or "")
    assert len(pids) == 2, "the server and its grandchild both started"
    assert [p for p in pids if _alive(p)] == []


def test_junk_before_valid_answers_is_tolerated_and_counted(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--junk", "4", "--tools", "3")
    assert answer.error is None and len(answer.tools) == 3
    assert answer.detail == "ignored 3 stdout line(s) that were not JSON-RPC"
    assert [p for p in pids if _alive(p)] == []


def test_well_behaved_server_grandchild_is_killed_too(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--instructions", "Use me.", "--name", "nice")
    assert (answer.error, answer.server_name, answer.server_version, answer.instructions) == (
        None,
        "nice",
        "1.2.3",
        "Use me.",
    )
    assert answer.protocol_version and [t["name"] for t in answer.tools] == ["tool_00000", "tool_00001"]
    assert [p for p in pids if _alive(p)] == []


def test_large_paginated_list_is_collected_whole(tmp_path: Path) -> None:
    answer, _ = _query(tmp_path, "--tools", "2500", "--page-size", "300", max_output=32 * 1024 * 1024)
    assert answer.error is None
    names = [t["name"] for t in answer.tools]
    assert len(names) == 2500 and names == sorted(set(names))


def test_missing_command_reports_the_os_error() -> None:
    answer = StdioMcpLauncher().query(ServerSpec(name="x", command="/nonexistent/mcp-server"), TIMEOUT)
    assert answer.error == "[Errno 2] No such file or directory: '/nonexistent/mcp-server'"


def test_non_executable_command_reports_permission_denied(tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    answer = StdioMcpLauncher().query(ServerSpec(name="x", command=str(script)), TIMEOUT)
    assert answer.error == f"[Errno 13] Permission denied: '{script}'"


def test_missing_cwd_is_reported_without_launching(tmp_path: Path) -> None:
    marker = tmp_path / "launched.pid"
    spec = ServerSpec(
        name="x", command=PYTHON, args=(SERVER, "--pidfile", str(marker)), cwd=str(tmp_path / "gone")
    )
    answer = StdioMcpLauncher().query(spec, TIMEOUT)
    assert answer.error == f"cwd does not exist: {tmp_path / 'gone'}"
    assert not marker.exists()


def test_env_is_laid_over_the_base_environment_and_cwd_applies(tmp_path: Path) -> None:
    probe = tmp_path / "env.txt"
    code = (
        "import os,sys; open(sys.argv[1],'w').write(os.environ.get('BASE','-')+'|'+os.environ['MINE']+'|'+os.getcwd());"
        f"sys.argv=[sys.argv[0]]; exec(open({SERVER!r}).read())"
    )
    spec = ServerSpec(
        name="x", command=PYTHON, args=("-c", code, str(probe)), env={"MINE": "v"}, cwd=str(tmp_path)
    )
    answer = StdioMcpLauncher(base_env={**os.environ, "BASE": "b"}).query(spec, 10.0)
    assert answer.error is None
    assert probe.read_text() == f"b|v|{tmp_path}"


def test_a_result_without_tools_list_is_named(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--mode", "notools")
    assert answer.error == "tools/list response has no tools list"
    assert [p for p in pids if _alive(p)] == []


def test_schema_invalid_tools_are_kept_as_listed_like_mcp_top(tmp_path: Path) -> None:
    answer, _ = _query(tmp_path, "--mode", "badtool")
    assert answer.error is None and answer.tools == ({"name": "no_schema"},)


def test_an_unknown_protocol_version_is_read_like_mcp_top(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--protocol", "1999-01-01")
    assert (answer.error, answer.protocol_version, len(answer.tools)) == (None, "1999-01-01", 2)
    assert [p for p in pids if _alive(p)] == []


def test_a_server_ignoring_sigterm_and_eof_is_killed_after_answering(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--mode", "stubborn")
    assert answer.error is None and len(answer.tools) == 2
    assert len(pids) == 2 and [p for p in pids if _alive(p)] == []


def test_a_stubborn_silent_server_is_killed_at_the_deadline(tmp_path: Path) -> None:
    pidfile = tmp_path / "s.pid"
    spec = ServerSpec(
        name="x",
        command=PYTHON,
        args=(SERVER, "--pidfile", str(pidfile), "--mode", "stubborn", "--sleep", "60"),
    )
    answer = StdioMcpLauncher().query(spec, 0.5)
    assert answer.error == "timeout after 0.5 seconds"
    assert not _alive(_pid(pidfile))


def test_a_last_answer_without_newline_still_counts(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--mode", "nonewline")
    assert answer.error is None and [t["name"] for t in answer.tools] == ["tool_00000"]
    assert [p for p in pids if _alive(p)] == []


def test_one_big_line_under_the_limit_is_read_whole(tmp_path: Path) -> None:
    answer, _ = _query(tmp_path, "--mode", "huge", "--huge-bytes", "6000000", max_output=8 * 1024 * 1024)
    assert answer.error is None and len(answer.tools[0]["description"]) == 6_000_000


def test_a_loose_initialize_result_is_read_like_mcp_top(tmp_path: Path) -> None:
    answer, _ = _query(tmp_path, "--mode", "looseinit", "--name", "loose")
    assert (answer.error, answer.server_name, answer.server_version, len(answer.tools)) == (
        None,
        "loose",
        None,
        2,
    )


def test_an_unlaunchable_argument_is_a_launch_failure() -> None:
    answer = StdioMcpLauncher().query(ServerSpec(name="x", command=PYTHON, args=("a\x00b",)), TIMEOUT)
    assert answer.error == "embedded null byte"


def test_non_object_entries_are_dropped_and_nameless_tools_kept_on_every_page(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--odd-entries", "--tools", "3", "--page-size", "2", timeout_s=30.0)
    assert answer.error is None
    assert [t.get("name") for t in answer.tools] == ["tool_00000", None, "tool_00001", "tool_00002"]
    assert answer.tools[1] == {"description": "A tool without a name.", "inputSchema": {}}
    assert [p for p in pids if _alive(p)] == []


def test_a_lone_surrogate_in_a_description_is_passed_on(tmp_path: Path) -> None:
    answer, pids = _query(tmp_path, "--surrogate", timeout_s=30.0)
    assert answer.error is None
    assert answer.tools[0]["description"] == "Lone surrogate \ud800 here."
    assert [p for p in pids if _alive(p)] == []
