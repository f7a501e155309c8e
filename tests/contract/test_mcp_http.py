"""McpLauncher contract over streamable HTTP: the real adapter (the SDK's streamable-HTTP server on
loopback) and the twin (answers recorded from those same servers) pass the same suite."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from wslmcp.boundaries.mcp_http import HttpMcpLauncher
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
from wslmcp.fakes.mcp_launcher import FakeMcpLauncher, load_answers

from .mcp_http_servers import CASES, FIXTURE, HEADER, record, running, spec, timeout_for


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with running() as up:
        yield up


@pytest.fixture(params=["real", "fake"])
def launcher(request: pytest.FixtureRequest) -> McpLauncher:
    return HttpMcpLauncher() if request.param == "real" else FakeMcpLauncher.from_file(FIXTURE)


def ask(launcher: McpLauncher, name: str, urls: dict[str, str]) -> ServerAnswer:
    return launcher.query(spec(name, urls), timeout_for(name))


@pytest.mark.parametrize(("name", "tools"), [("streamed", 5), ("json-bodies", 3), ("keyed", 1)])
def test_every_page_is_read_from_event_streams_and_json_bodies(
    launcher: McpLauncher, urls: dict[str, str], name: str, tools: int
) -> None:
    answer = ask(launcher, name, urls)
    assert (answer.error, answer.server_name, answer.server_version) == (None, "sdk-test-server", "4.5.6")
    assert answer.instructions == "Built with the SDK." and answer.protocol_version == "2025-11-25"
    assert [t["name"] for t in answer.tools] == [f"sdk_tool_{i}" for i in range(tools)]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("unkeyed", "initialize failed (HTTP 401)"),
        ("refused", "[Errno 111] Connection refused"),
        ("silent", "timeout after 0.5 seconds"),
    ],
)
def test_failures_are_answers_that_name_no_url_or_header(
    launcher: McpLauncher, urls: dict[str, str], name: str, error: str
) -> None:
    answer = ask(launcher, name, urls)
    assert (answer.error, answer.tools, answer.server_name) == (error, (), None)
    assert "127.0.0.1" not in repr(answer) and HEADER[1] not in repr(answer)


def test_a_spec_never_shows_its_url_or_headers(urls: dict[str, str]) -> None:
    shown = repr(spec("keyed", urls))
    assert HEADER[1] not in shown and "127.0.0.1" not in shown


def test_only_http_urls_are_queried() -> None:
    answer = HttpMcpLauncher().query(ServerSpec(name="f", command="", url="file:///etc/passwd"), 1.0)
    assert answer.error == "unsupported URL scheme (streamable HTTP needs http:// or https://)"


def test_fixture_is_a_faithful_recording(tmp_path: Path) -> None:
    """Recording the same servers again gives the committed fixture (timings aside)."""
    fresh = tmp_path / "answers.json"
    record(path=fresh)

    def strip(path: Path) -> list[dict[str, object]]:
        return [{k: v for k, v in a.__dict__.items() if k != "duration_s"} for a in load_answers(path)]

    assert strip(fresh) == strip(FIXTURE)
    assert [a["name"] for a in json.loads(fresh.read_text())["answers"]] == sorted(CASES)
