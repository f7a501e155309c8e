"""The wheel holds the product and its twins only (``--replay`` is a production feature), never the
tests, the scenarios or the docs; the twins under our own name (``wslmcp.fakes``), never as a
top-level package another project may own."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_installs_only_wslmcp_with_its_twins_inside(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = tmp_path.glob("wslmcp-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/", 1)[0] for name in archive.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"wslmcp"}
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"wslmcp/replay/client.py", "wslmcp/fakes/wsl_exe.py", "wslmcp/fakes/py.typed"} <= names
