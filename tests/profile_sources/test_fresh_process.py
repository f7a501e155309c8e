"""The launcher's own JSON-RPC client against SDK-built servers, and what a fresh run imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.servers import SDK_SERVER, STDIO_SERVER
from wslmcp.boundaries.mcp_launcher import ServerSpec
from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher

ROOT = Path(__file__).resolve().parents[2]
SDK_ROOTS = ("mcp", "mcp_types", "pydantic", "anyio", "httpx", "httpx2")
#: Not the SDK, but most of a fresh run's import time if loaded (~30 ms): the launcher blocks a
#: pool thread per query instead, as mcp-top does.
HEAVY = ("asyncio",)
#: What a profiler run has no use for: the other areas, the boundaries wiring builds on demand,
#: the scenario format, and the writers and parsers only some runs need.
UNUSED = (
    "wslmcp.observe",
    "wslmcp.shell",
    "wslmcp.guard",
    "wslmcp.evals",
    "wslmcp.scenario.loader",
    "wslmcp.boundaries.procfs",
    "wslmcp.boundaries.local_files",
    "wslmcp.boundaries.shell_transport",
    "wslmcp.boundaries.distro_homes",
    "wslmcp.boundaries.mcp_session",
    "wslmcp.boundaries.audit_log",
    "wslmcp.boundaries.docker_api",
    "wslmcp.boundaries.wslc_cli",
    "wslmcp.profile.snapshot",
    "wslmcp.profile.diff",
    "wslmcp.profile.report_human",
    "tomllib",
    "secrets",
    "urllib.parse",
)


@pytest.mark.parametrize("era", ["dual", "handshake"])
def test_sdk_built_servers_of_both_protocol_eras_answer_every_page(era: str) -> None:
    spec = ServerSpec(
        name="sdk",
        command=sys.executable,
        args=(str(SDK_SERVER), "--era", era, "--tools", "5", "--page-size", "2"),
    )
    answer = StdioMcpLauncher().query(spec, 20.0)
    assert answer.error is None, answer
    assert (answer.server_name, answer.server_version, answer.instructions) == (
        "sdk-test-server",
        "4.5.6",
        "Built with the SDK.",
    )
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    assert answer.protocol_version == LATEST_HANDSHAKE_VERSION
    assert [t["name"] for t in answer.tools] == [f"sdk_tool_{i}" for i in range(5)]
    assert answer.tools[0]["inputSchema"] == {"type": "object", "properties": {"q": {"type": "string"}}}


def _fresh_run(home: Path, *args: str) -> tuple[dict[str, object], list[str]]:
    code = (
        "import json, sys\n"
        "from wslmcp.cli import main\n"
        "code = main(sys.argv[1:])\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {(*SDK_ROOTS, *HEAVY)!r})\n"
        f"unused = sorted(m for m in sys.modules if m.startswith({UNUSED!r}))\n"
        "print(json.dumps(loaded), file=sys.stderr)\n"
        "print(json.dumps(unused), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    # -S: no site hooks (a .pth file may import modules at every start: setuptools' editable finder
    # loads pathlib and urllib.parse), so what is loaded is what the run imports; the source and the
    # installed packages on the path instead
    path = os.pathsep.join([str(ROOT / "src"), sysconfig.get_paths()["purelib"]])
    done = subprocess.run(
        [
            sys.executable,
            "-S",
            "-c",
            code,
            "profile",
            "--home",
            str(home),
            "--project",
            str(home),
            "--json",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    *_, loaded, unused = done.stderr.strip().splitlines()
    assert json.loads(unused) == []  # wiring builds those on demand; the rest import where used
    return json.loads(done.stdout), json.loads(loaded)


def _home(tmp_path: Path) -> Path:
    server = {"command": sys.executable, "args": [str(STDIO_SERVER), "--tools", "2"]}
    (tmp_path / ".claude.json").write_text(json.dumps({"mcpServers": {"fast": server}}))
    return tmp_path


def test_a_no_query_run_imports_neither_the_sdk_nor_asyncio(tmp_path: Path) -> None:
    doc, loaded = _fresh_run(_home(tmp_path), "--no-query")
    assert doc["clis"][0]["servers"][0]["def_error"] == "skipped by --no-query"  # type: ignore[index]
    assert loaded == []


def test_a_queried_run_imports_neither_the_sdk_nor_asyncio(tmp_path: Path) -> None:
    doc, loaded = _fresh_run(_home(tmp_path))
    assert doc["clis"][0]["servers"][0]["def_status"] == "ok"  # type: ignore[index]
    assert loaded == []
