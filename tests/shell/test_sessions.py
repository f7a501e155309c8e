"""Sessions: the remembered directory, its validation, serialisation, idle expiry and the cap."""

from __future__ import annotations

import asyncio
import getpass
from pathlib import Path

import pytest

from tests.shell.conftest import build
from wslmcp.fakes.clock import FakeClock
from wslmcp.shell.sessions import SessionError, SessionStore


def _stdout(text: str) -> str:
    return text.split("--- stdout ---\n", 1)[1].split("\n\n--- stderr ---", maxsplit=1)[0]


async def test_cwd_persists_across_calls_and_cwd_argument_moves_the_session(tmp_path: Path) -> None:
    b = build()
    opened = await b.service.connect(str(tmp_path))
    assert not opened.is_error, opened.text
    assert f"Opened session Ubuntu#1 → {getpass.getuser()}@Ubuntu\ncwd: {tmp_path}" in opened.text
    first = await b.service.exec("mkdir -p sub/deeper && cd sub", session="Ubuntu#1")
    assert f"cwd: {tmp_path}/sub" in first.text.splitlines()[0]
    second = await b.service.exec("pwd", session="Ubuntu#1")
    assert _stdout(second.text).strip() == f"{tmp_path}/sub"
    moved = await b.service.exec("pwd", session="Ubuntu#1", cwd=f"{tmp_path}/sub/deeper")
    assert _stdout(moved.text).strip() == f"{tmp_path}/sub/deeper"
    after = await b.service.exec("pwd", session="Ubuntu#1")
    assert _stdout(after.text).strip() == f"{tmp_path}/sub/deeper"
    listing = await b.service.list_sessions()
    assert f"cwd: {tmp_path}/sub/deeper  ·  5 commands" in listing.text


async def test_exit_in_the_command_still_reports_the_directory(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    (tmp_path / "a").mkdir()
    reply = await b.service.exec("cd a; exit 4", session="Ubuntu#1")
    assert reply.text.startswith("exit code: 4  ·  ") and f"cwd: {tmp_path}/a" in reply.text


async def test_the_marker_cannot_be_forged_by_output(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    reply = await b.service.exec("printf '\\n__WSLMCP_CWD_0000000000000000__/etc\\n'", session="Ubuntu#1")
    assert f"cwd: {tmp_path}" in reply.text.splitlines()[0]
    assert "__WSLMCP_CWD_0000000000000000__/etc" in reply.text


async def test_a_directory_the_guard_refuses_is_not_adopted(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    (tmp_path / "x$(reboot)").mkdir()
    reply = await b.service.exec("cd 'x$(reboot)' && pwd", session="Ubuntu#1")
    assert "the session keeps " + str(tmp_path) in reply.text
    assert f"cwd: {tmp_path}" in reply.text.splitlines()[0]
    again = await b.service.exec("pwd", session="Ubuntu#1")
    assert _stdout(again.text).strip() == str(tmp_path)
    assert "reported working directory refused" in b.log.getvalue()


async def test_calls_in_one_session_run_one_at_a_time(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    slow = b.service.exec("sleep 0.3; mkdir -p later && cd later", session="Ubuntu#1")
    quick = b.service.exec("pwd", session="Ubuntu#1")
    first, second = await asyncio.gather(slow, quick)
    assert f"cwd: {tmp_path}/later" in first.text
    assert _stdout(second.text).strip() == f"{tmp_path}/later"


async def test_connect_to_a_missing_directory_fails_and_opens_nothing(tmp_path: Path) -> None:
    b = build()
    reply = await b.service.connect(str(tmp_path / "missing"))
    assert reply.is_error and "could not confirm the starting directory" in reply.text
    assert "No open sessions" in (await b.service.list_sessions()).text


async def test_idle_sessions_are_forgotten_after_15_minutes(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    b.clock.advance(14 * 60)
    assert "idle 840s (forgotten in 60s)" in (await b.service.list_sessions()).text
    b.clock.advance(60)
    reply = await b.service.exec("pwd", session="Ubuntu#1")
    assert reply.is_error and "unknown session 'Ubuntu#1'" in reply.text


async def test_disconnect_forgets_and_a_second_disconnect_is_an_error(tmp_path: Path) -> None:
    b = build()
    await b.service.connect(str(tmp_path))
    closed = await b.service.disconnect(" Ubuntu#1 ")
    assert not closed.is_error and "Closed session Ubuntu#1." in closed.text
    again = await b.service.disconnect("Ubuntu#1")
    assert again.is_error and "unknown session" in again.text


def test_the_store_caps_open_sessions_and_never_reuses_ids() -> None:
    store = SessionStore(FakeClock(), "dev", limit=3)
    ids = [store.open(None).id for _ in range(3)]
    assert ids == ["dev#1", "dev#2", "dev#3"]
    with pytest.raises(SessionError, match=r"too many open sessions \(3\)"):
        store.open(None)
    store.close("dev#2")
    assert store.open(None).id == "dev#4"


def test_a_busy_session_is_never_expired() -> None:
    clock = FakeClock()
    store = SessionStore(clock, "dev")
    busy = store.open(None)
    idle = store.open(None)
    busy.busy = 1
    clock.advance(3600)
    assert store.expire() == [idle.id]
    assert [s.id for s in store.all()] == [busy.id]
