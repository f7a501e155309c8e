"""A loaded scenario: its manifest plus typed access to each boundary's fixtures."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wslmcp.boundaries.procfs import ProcSample
from wslmcp.scenario.exchanges import ProcessExchange
from wslmcp.scenario.fields import Fields, NotADirectory
from wslmcp.scenario.manifest import MANIFEST_NAME, ScenarioError, inside, read_manifest


@dataclass(frozen=True)
class TimelineEntry:
    index: int
    t_ms: int
    data: Mapping[str, Any]


class Scenario:
    """A validated scenario directory. Construct with ``Scenario.load``."""

    def __init__(self, root: Path, manifest: Mapping[str, Any]) -> None:
        self.root = root
        self.manifest = manifest
        self.timeline = [
            TimelineEntry(i, int(e["t_ms"]), e) for i, e in enumerate(manifest.get("timeline", []))
        ]

    @classmethod
    def load(cls, root: str | os.PathLike[str]) -> Scenario:
        path = Path(root)
        if not path.is_dir():
            raise NotADirectory(path)
        return cls(path, read_manifest(path))

    @property
    def name(self) -> str:
        return str(self.manifest["name"])

    @property
    def description(self) -> str:
        return str(self.manifest.get("description", ""))

    @property
    def hold_last_ms(self) -> int:
        return int(self.manifest.get("hold_last_ms", 0))

    @property
    def start_wall(self) -> float:
        return float(self.manifest.get("clock", {}).get("start_wall", 1_767_225_600.0))  # 2026-01-01Z

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.manifest.get(name, {})
        return value if isinstance(value, Mapping) else {}

    def file(self, rel: str) -> Path:
        path = inside(self.root, rel)
        if path is None:
            raise ScenarioError(self.root / MANIFEST_NAME, rel, "a path inside the scenario directory")
        return path

    def process_exchanges(self, boundary: str) -> list[ProcessExchange]:
        """The recorded runs of a program (``exchanges.wsl_exe``, ``exchanges.wslc``), in recorded order."""
        fields = Fields(self.root / MANIFEST_NAME)
        items = self.manifest.get("exchanges", {}).get(boundary, [])
        return [
            ProcessExchange.read(item, f"exchanges.{boundary}[{i}]", fields, self.root)
            for i, item in enumerate(items)
        ]

    def procfs_sample(self, entry: TimelineEntry) -> ProcSample:
        spec = entry.data.get("procfs")
        if spec is None:
            raise ScenarioError(
                self.root / MANIFEST_NAME, f"timeline[{entry.index}].procfs", "a /proc sample"
            )
        base = self.file(spec["dir"])
        files = {rel: (base / rel).read_bytes() for rel in _walk_files(base)}
        return ProcSample.build(files, clk_tck=int(spec["clk_tck"]), page_size=int(spec["page_size"]))


def _walk_files(base: Path) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            yield Path(dirpath, name).relative_to(base).as_posix()


def sample_digest(sample: ProcSample) -> str:
    """SHA-256 over every (path, bytes) of a sample plus its tick rate and page size."""
    digest = hashlib.sha256(f"clk_tck={sample.clk_tck};page_size={sample.page_size}\n".encode())
    for path in sorted(sample.files):
        data = sample.files[path]
        digest.update(f"{path}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def discover(root: str | os.PathLike[str]) -> list[Path]:
    """Scenario directories: ``root`` itself if it holds a manifest, else its children that do."""
    base = Path(root)
    if (base / MANIFEST_NAME).is_file():
        return [base]
    if not base.is_dir():
        raise NotADirectory(base)
    return sorted(p for p in base.iterdir() if (p / MANIFEST_NAME).is_file())
