"""``--query-http`` end to end: a real SDK streamable-HTTP server on loopback named by the configs."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.contract.mcp_http_servers import HEADER, running
from tests.profile_sources.conftest import Layout
from wslmcp.boundaries.mcp_http import HttpMcpLauncher
from wslmcp.boundaries.mcp_launcher import ServerSpec


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with running() as up:
        yield up


def _profile(home: Path, *args: str) -> tuple[dict[str, Any], str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wslmcp",
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
    )
    return json.loads(done.stdout), done.stdout + done.stderr


def _home(tmp_path: Path, urls: dict[str, str]) -> Path:
    servers = {
        "remote": {"type": "http", "url": urls["sse"]},
        "keyed": {"type": "http", "url": urls["guarded"], "headers": {HEADER[0]: HEADER[1]}},
        "unkeyed": {"type": "http", "url": urls["guarded"]},
        "events": {"type": "sse", "url": urls["sse"]},
    }
    (tmp_path / ".claude.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


def _rows(doc: dict[str, Any]) -> dict[str, tuple[str, str | None, int | None]]:
    return {
        s["server"]: (s["def_status"], s["def_error"], s["tool_count"]) for s in doc["clis"][0]["servers"]
    }


def test_http_servers_are_queried_only_when_asked(tmp_path: Path, urls: dict[str, str]) -> None:
    home = _home(tmp_path, urls)
    unsupported = ("unsupported", "unsupported transport (this version queries stdio only)", None)
    plain, _ = _profile(home)
    assert set(_rows(plain).values()) == {unsupported}

    doc, text = _profile(home, "--query-http")
    assert _rows(doc) == {
        "remote": ("ok", None, 5),
        "keyed": ("ok", None, 1),
        "unkeyed": ("error", "initialize failed (HTTP 401)", None),
        "events": unsupported,  # the old HTTP+SSE transport is not spoken
    }
    assert HEADER[1] not in text and "127.0.0.1" not in text


class _Capture(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        type(self).seen.append(dict(self.headers.items()))
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_only_the_config_s_own_headers_are_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_AUTHORIZATION", "Bearer from-env")
    server = http.server.HTTPServer(("127.0.0.1", 0), _Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://user:pw@127.0.0.1:{server.server_address[1]}/mcp?x=1"
        answer = HttpMcpLauncher().query(ServerSpec(name="s", command="", url=url, headers={"X-K": "v"}), 5.0)
    finally:
        server.shutdown()
        server.server_close()
    assert answer.error == "initialize failed (HTTP 401)"
    (sent,) = _Capture.seen
    assert set(sent) == {"Host", "Accept-Encoding", "Content-Length", "Content-Type", "Accept", "X-K"}
    assert sent["X-K"] == "v" and sent["Accept"] == "application/json, text/event-stream"


def test_headers_come_from_the_config_and_stay_out_of_every_view(layout: Layout) -> None:
    remote = {
        "type": "http",
        "url": "https://h.invalid/mcp",
        "headers": {"Authorization": "Bearer s3cret", "N": 1},
    }
    layout.write(".claude.json", {"mcpServers": {"c": remote}})
    layout.write(
        ".codex/config.toml", '[mcp_servers.x]\nurl = "https://h.invalid/x"\nhttp_headers = { K = "v3" }\n'
    )
    found = {s.name: s for s in layout.discover().servers()}
    assert dict(found["c"].headers) == {"Authorization": "Bearer s3cret"}  # non-strings dropped
    assert dict(found["x"].headers) == {"K": "v3"} and found["x"].transport == "http"
    for server in found.values():
        shown = repr(server) + json.dumps(server.to_public_dict())
        assert "s3cret" not in shown and "v3" not in shown and "h.invalid" not in shown
