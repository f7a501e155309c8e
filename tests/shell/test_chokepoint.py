"""The guard is the single chokepoint: with a real Guard and a restrictive policy, every command,
cwd, adopted session directory and file-tool path is refused before anything runs (the transport
is never called, nothing is created on disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell.conftest import Built, WrappedLocal, build


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    (tmp_path / "allowed").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path


def _guarded(sandbox: Path, **extra: str) -> tuple[Built, WrappedLocal]:
    transport = WrappedLocal()
    env = {
        "WSL_ALLOWED_PATHS": str(sandbox / "allowed"),
        "WSL_DENY_PATTERNS": r"^touch\b,created-by-a-refused-call",
        **extra,
    }
    return build(env, transport=transport), transport


def _refused(text: str) -> None:
    assert text.startswith("Refused by this profile's guard policy: ")
    assert "Nothing was run in the distro." in text


async def test_refused_requests_never_reach_the_transport(sandbox: Path) -> None:
    b, transport = _guarded(sandbox)
    s = b.service
    outside, allowed = sandbox / "outside", sandbox / "allowed"
    (sandbox / ".ssh").mkdir()
    (sandbox / ".ssh" / "id_ed25519").write_text("secret")
    (allowed / "ok.txt").write_text("ok")
    cases = [
        s.exec(f"touch {outside}/x"),
        s.exec(f"echo created-by-a-refused-call > {outside}/y"),
        s.exec("rm -rf /"),
        s.exec(f"echo hi > {outside}/z", cwd=f"{sandbox}/$(touch {outside}/w)"),
        s.connect(f"{sandbox}/$(touch {outside}/v)"),
        s.write_file(str(outside / "f.txt"), "x"),
        s.write_file(str(allowed / ".." / "outside" / "g.txt"), "x"),
        s.write_file(f"{allowed}\t", "x"),  # a sibling of the allowed directory, not inside it
        s.read_file(str(outside / "nothing.txt")),
        s.list_dir(str(outside)),
        s.upload(str(allowed / "ok.txt"), str(outside / "up.txt")),
        s.download(str(outside / "down.txt"), str(allowed / "down.txt")),
        s.download(str(allowed / "ok.txt"), str(sandbox / ".ssh" / "authorized_keys")),
        s.upload(str(sandbox / ".ssh" / "id_ed25519"), str(allowed / "key")),
    ]
    for case in cases:
        reply = await case
        assert reply.is_error, reply.text
        _refused(reply.text)
    assert transport.calls == 0
    assert sorted(p.name for p in sandbox.iterdir()) == [".ssh", "allowed", "outside"]
    assert sorted(p.name for p in outside.iterdir()) == []
    assert sorted(p.name for p in allowed.iterdir()) == ["ok.txt"]
    assert sorted(p.name for p in (sandbox / ".ssh").iterdir()) == ["id_ed25519"]
    assert b.log.getvalue().count('"refused by the guard"') == len(cases)


async def test_a_symlink_out_of_the_allowed_paths_is_refused_after_resolving(sandbox: Path) -> None:
    b, transport = _guarded(sandbox)
    (sandbox / "allowed" / "escape").symlink_to(sandbox / "outside")
    reply = await b.service.write_file(str(sandbox / "allowed" / "escape" / "x.txt"), "x")
    _refused(reply.text)
    assert f"resolves to {sandbox}/outside/x.txt" in reply.text
    assert transport.calls == 1  # the read-only resolve probe, nothing else
    assert list((sandbox / "outside").iterdir()) == []


async def test_a_read_only_profile_refuses_writes_before_anything_runs(sandbox: Path) -> None:
    b, transport = _guarded(sandbox, WSL_READONLY="true")
    target = sandbox / "allowed" / "x.txt"
    (sandbox / "src.txt").write_text("data")
    for case in (
        b.service.write_file(str(target), "x"),
        b.service.exec(f"echo x > {target}"),
        b.service.upload(str(sandbox / "src.txt"), str(target)),
    ):
        _refused((await case).text)
    assert transport.calls == 0 and not target.exists()


async def test_a_refused_session_directory_is_not_adopted(sandbox: Path) -> None:
    b, _ = _guarded(sandbox)
    await b.service.connect(str(sandbox / "allowed"))
    (sandbox / "allowed" / "a;b").mkdir()
    reply = await b.service.exec("cd 'a;b'", session="Ubuntu#1")
    assert "the session keeps " + str(sandbox / "allowed") in reply.text
    listing = await b.service.list_sessions()
    assert f"cwd: {sandbox / 'allowed'}  ·" in listing.text
