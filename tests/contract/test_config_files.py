"""ConfigFiles contract: the real adapter on files under a temp home and the in-memory twin read,
find and replace alike (atomically, with a backup, never over a file that changed, links kept)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from wslmcp.boundaries.client_files import FileTooLarge, NotRegularFile
from wslmcp.boundaries.config_files import TEMP_SUFFIX, Changed, ConfigFiles, LocalConfigFiles
from wslmcp.fakes.config_files import MemoryConfigFiles

FILES = {"conf/a.json": b'{"a": 1}\n', "real/b.json": b"{}\n"}


@dataclass
class World:
    port: ConfigFiles
    home: str
    mode: Callable[[str], int]  # a file's permission bits
    listing: Callable[[str], list[str]]  # every entry under the home, relative
    is_link: Callable[[str], bool]

    def at(self, relative: str) -> str:
        return f"{self.home}/{relative}"


def _real(tmp_path: Path, limit: int) -> World:
    home = tmp_path / "home"
    for name, data in FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(data)
        (home / name).chmod(0o644)
    (home / "empty-dir").mkdir()
    os.mkfifo(home / "fifo")
    (home / "link.json").symlink_to(home / "real" / "b.json")
    return World(
        LocalConfigFiles(max_file_bytes=limit),
        str(home),
        lambda p: stat.S_IMODE(os.stat(p).st_mode),
        lambda p: sorted(str(x.relative_to(p)) for x in Path(p).rglob("*")),
        os.path.islink,
    )


def _fake(tmp_path: Path, limit: int) -> World:
    home = "/home/me"
    memory = MemoryConfigFiles(
        {f"{home}/{name}": data for name, data in FILES.items()},
        directories=(f"{home}/empty-dir",),
        special={f"{home}/fifo": "FIFO"},
        links={f"{home}/link.json": f"{home}/real/b.json"},
        max_file_bytes=limit,
    )
    memory.modes.update({f"{home}/{name}": 0o644 for name in FILES})

    def listing(root: str) -> list[str]:
        names = {*memory.files, *memory.directories, *memory.special, *memory.links}
        return sorted(n[len(root) + 1 :] for n in names if n.startswith(root + "/"))

    return World(
        memory, home, lambda p: memory.modes[memory.links.get(p, p)], listing, memory.links.__contains__
    )


@pytest.fixture(params=["real", "fake"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., World]:
    builder = _real if request.param == "real" else _fake
    return lambda limit=1 << 20: builder(tmp_path, limit)


def test_reads_a_file_and_none_when_absent(make: Callable[..., World]) -> None:
    w = make()
    assert w.port.read(w.at("conf/a.json")) == b'{"a": 1}\n'
    assert w.port.read(w.at("link.json")) == b"{}\n"
    assert w.port.read(w.at("conf/missing.json")) is None
    assert w.port.read(w.at("nowhere/missing.json")) is None


def test_refuses_to_read_what_is_not_a_regular_file_or_too_large(make: Callable[..., World]) -> None:
    w = make(limit=4)
    with pytest.raises(NotRegularFile):
        w.port.read(w.at("fifo"))
    with pytest.raises(IsADirectoryError):
        w.port.read(w.at("empty-dir"))
    with pytest.raises(FileTooLarge):
        w.port.read(w.at("conf/a.json"))


def test_tells_what_exists(make: Callable[..., World]) -> None:
    w = make()
    assert w.port.exists(w.at("conf/a.json")) and w.port.exists(w.at("empty-dir"))
    assert w.port.exists(w.at("conf")) and w.port.exists(w.at("link.json"))
    assert not w.port.exists(w.at("nothing")) and not w.port.exists(w.at("conf/nothing"))


def test_a_new_file_is_made_with_its_directories_private_and_without_a_backup(
    make: Callable[..., World],
) -> None:
    w = make()
    target = w.at("new/deeper/c.json")
    w.port.replace(target, b"{}\n", expected=None, backup=target + ".bak")
    assert w.port.read(target) == b"{}\n" and w.mode(target) == 0o600
    assert not w.port.exists(target + ".bak")
    assert "new/deeper/c.json" in w.listing(w.home)


def test_an_existing_file_is_replaced_keeping_its_mode_and_a_backup(make: Callable[..., World]) -> None:
    w = make()
    target = w.at("conf/a.json")
    w.port.replace(target, b'{"a": 2}\n', expected=b'{"a": 1}\n', backup=target + ".bak")
    assert w.port.read(target) == b'{"a": 2}\n' and w.mode(target) == 0o644
    assert w.port.read(target + ".bak") == b'{"a": 1}\n' and w.mode(target + ".bak") == 0o600
    assert not any(name.endswith(TEMP_SUFFIX) for name in w.listing(w.home))


def test_a_file_that_changed_since_it_was_read_is_left_alone(make: Callable[..., World]) -> None:
    w = make()
    target = w.at("conf/a.json")
    with pytest.raises(Changed):
        w.port.replace(target, b"{}", expected=b'{"a": 0}\n', backup=target + ".bak")
    with pytest.raises(Changed):
        w.port.replace(w.at("conf/new.json"), b"{}", expected=b"{}", backup=None)
    with pytest.raises(Changed):  # it exists now, where it was absent
        w.port.replace(target, b"{}", expected=None, backup=None)
    assert w.port.read(target) == b'{"a": 1}\n'
    assert not w.port.exists(target + ".bak") and not w.port.exists(w.at("conf/new.json"))
    assert not any(name.endswith(TEMP_SUFFIX) for name in w.listing(w.home))


def test_a_link_stays_a_link_and_the_file_it_names_is_replaced(make: Callable[..., World]) -> None:
    w = make()
    w.port.replace(w.at("link.json"), b'{"b": 1}\n', expected=b"{}\n", backup=None)
    assert w.is_link(w.at("link.json"))
    assert w.port.read(w.at("real/b.json")) == b'{"b": 1}\n'
