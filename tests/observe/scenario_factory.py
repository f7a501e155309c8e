"""Writes the hand-written observe scenarios (``python -m tests.observe.scenario_factory``).

They stand for hosts this Linux CI cannot record (a 16-CPU Windows host with a build running, a
host with several distros, processes with hostile names). /proc files are laid out exactly as the
kernel writes them; additional distros' samples are the framed output the wsl.exe sample script
prints; wsl.exe's own listing is UTF-16LE. Expected answers are produced by replaying the
scenario over stdio and were reviewed by hand (see tests/observe/test_scenarios.py).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wslmcp.boundaries.procfs_wsl import LIST_ARGS, SAMPLE_SCRIPT, sample_args

ROOT = Path(__file__).resolve().parents[2] / "scenarios"
START_WALL = 1_795_000_000.0
BOOT_ID = "6f1c1f4e-3b9a-4c55-9a53-2d0c9f3c2a10"
MARKER = b"5f0d1e2c3b4a59687766554433221100"


@dataclass
class Proc:
    pid: int
    comm: bytes
    cmdline: bytes
    ppid: int
    starttime: int
    ticks: Sequence[tuple[int, int] | None]  # (utime, stime) per sample; None = absent then
    rss_pages: int = 1000
    starttimes: Sequence[int] | None = None  # per-sample override (PID reuse)


def stat_line(p: Proc, utime: int, stime: int, starttime: int) -> bytes:
    rest = [
        "S", p.ppid, p.pid, p.pid, 0, -1, 4194560, 120, 0, 0, 0, utime, stime, 0, 0, 20, 0, 1, 0,
        starttime, 10_485_760, p.rss_pages, "18446744073709551615",
    ] + [0] * 29  # fmt: skip
    return b"%d (%s) " % (p.pid, p.comm) + " ".join(str(v) for v in rest).encode() + b"\n"


@dataclass
class Kernel:
    cpus: int
    busy: Sequence[tuple[int, int, int, int, int]]  # user, nice, system, irq, softirq per sample
    uptime: Sequence[float]
    counted: Sequence[float] | None = None  # the time /proc/stat's counters count (default: uptime)


def global_files(k: Kernel, i: int) -> dict[str, bytes]:
    u, n, s, irq, soft = k.busy[i]
    idle = int((k.counted or k.uptime)[i] * 100 * k.cpus) - (u + n + s + irq + soft)
    lines = [f"cpu  {u} {n} {s} {idle} 120 {irq} {soft} 0 0 0"]
    for c in range(k.cpus):
        lines.append(f"cpu{c} {u // k.cpus} {n // k.cpus} {s // k.cpus} {idle // k.cpus} 7 0 0 0 0 0")
    lines += ["ctxt 912345", "btime 1794990000", "processes 5123", "procs_running 2", "procs_blocked 0"]
    return {
        "stat": ("\n".join(lines) + "\n").encode(),
        "uptime": f"{k.uptime[i]:.2f} {k.uptime[i] * k.cpus * 0.9:.2f}\n".encode(),
        "meminfo": b"MemTotal:       16303428 kB\nMemFree:         9876543 kB\n",
        "sys/kernel/random/boot_id": (BOOT_ID + "\n").encode(),
    }


def sample_files(procs: Sequence[Proc], k: Kernel, i: int) -> dict[str, bytes]:
    files = global_files(k, i)
    for p in procs:
        t = p.ticks[i]
        if t is None:
            continue
        start = p.starttimes[i] if p.starttimes is not None else p.starttime
        files[f"{p.pid}/stat"] = stat_line(p, t[0], t[1], start)
        files[f"{p.pid}/cmdline"] = p.cmdline
    return files


def frame(files: Mapping[str, bytes], clk_tck: int = 100, page_size: int = 4096) -> bytes:
    """What SAMPLE_SCRIPT prints for these files."""
    out = [b"WSLMCP1 " + MARKER + b"\n", b"CLK_TCK %d\nPAGESIZE %d\n" % (clk_tck, page_size)]
    for path in sorted(files, key=lambda p: (p.split("/")[0].isdigit(), p)):
        out.append(b"\n" + MARKER + b" F " + path.encode() + b"\n" + files[path])
    out.append(b"\n" + MARKER + b" END\n")
    return b"".join(out)


@dataclass
class Built:
    name: str
    description: str
    samples: list[dict[str, bytes]]
    observe: dict[str, object]
    calls: list[dict[str, object]]
    exchanges: list[dict[str, object]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)


def write(b: Built) -> Path:
    root = ROOT / b.name
    if root.exists():
        shutil.rmtree(root)
    timeline = []
    for i, files in enumerate(b.samples):
        base = root / "samples" / f"{i:04d}" / "proc"
        for rel, data in files.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_bytes(data)
        timeline.append(
            {"t_ms": i * 3000, "procfs": {"dir": f"samples/{i:04d}/proc", "clk_tck": 100, "page_size": 4096}}
        )
    for rel, data in b.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    calls = [dict(c, expected=f"expected/{i:02d}-{c['tool']}.json") for i, c in enumerate(b.calls, start=1)]
    manifest: dict[str, object] = {
        "schema": "wslmcp-scenario/1.0",
        "name": b.name,
        "description": b.description,
        "source": "hand-written",
        "recorder": "tests/observe/scenario_factory.py",
        "clock": {"start_wall": START_WALL},
        "timeline": timeline,
        "hold_last_ms": 60000,
        "exchanges": {"wsl_exe": b.exchanges} if b.exchanges else {},
        "observe": {**b.observe, "calls": calls},
        "expect": [{"kind": "observe-tools"}],
    }
    (root / "scenario.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return root


def record_expected(root: Path) -> None:
    from wslmcp.replay.observe import run
    from wslmcp.scenario.loader import Scenario
    from wslmcp.scenario.sections import read_section

    scenario = Scenario.load(root)
    answers = run(scenario)
    for call, answer in zip(read_section(scenario).calls, answers, strict=True):
        path = root / str(call["expected"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(answer, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _idle(pid: int, name: str, ppid: int = 1, start: int = 100, rss: int = 800) -> Proc:
    return Proc(pid, name.encode(), f"/usr/bin/{name}\0".encode(), ppid, start, [(50, 10)] * 3, rss)


def slow_build() -> Built:
    procs = [
        Proc(1, b"init", b"/init\0", 0, 2, [(12, 30), (12, 30), (12, 31)], 300),
        Proc(9, b"plan9", b"plan9\0--control-socket\0005\0", 1, 9, [(40, 80), (40, 81), (41, 82)], 2200),
        _idle(310, "bash", ppid=309, start=4200),
        Proc(512, b"make", b"make\0-j1\0all\0", 310, 90_000, [(700, 120), (702, 121), (704, 122)], 2600),
        Proc(
            513,
            b"gw_sh",
            b"/home/dev/project/gw_sh\0build\0--no-parallel\0",
            512,
            90_010,
            [(51_000, 3_000), (51_282, 3_018), (51_565, 3_035)],
            189_000,
        ),
        _idle(620, "sshd", start=300, rss=1500),
    ]
    kernel = Kernel(
        cpus=16,
        busy=[(70_000, 0, 9_000, 0, 400), (70_310, 0, 9_025, 0, 402), (70_621, 0, 9_049, 0, 405)],
        uptime=[9000.00, 9003.00, 9006.00],
    )
    samples = [sample_files(procs, kernel, i) for i in range(3)]
    calls: list[dict[str, object]] = [
        {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "sort_by": "cpu", "sort_order": "desc", "limit": 5}},
        {"tool": "inspect_resource", "arguments": {"snapshot_id": "{{snapshot:1}}", "resource_id": "{{resource:2:0}}"}},
        {"tool": "list_children", "arguments": {"snapshot_id": "{{snapshot:1}}", "resource_id": "{{resource:2:0}}"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "resource_kind": "container", "sort_by": "cpu", "sort_order": "desc", "limit": 5}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "sort_by": "memory", "limit": 3}},
        {"tool": "get_system_summary", "arguments": {}},
        {"tool": "list_resources", "arguments": {"max_age_ms": 0, "limit": 2}},
        {"tool": "inspect_resource", "arguments": {"snapshot_id": "{{snapshot:8}}", "resource_id": "{{resource:2:0}}"}},
        {"tool": "inspect_resource", "arguments": {"snapshot_id": "{{snapshot:1}}", "resource_id": "{{resource:2:0}}"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "max_age_ms": 0}},
    ]  # fmt: skip
    return Built(
        name="slow-build",
        description=(
            "A 16-CPU Windows host (host facts stated, part 1) where an Ubuntu build process (gw_sh) "
            "uses about one core, no containers, about 25% host CPU; the README's slow-build session"
        ),
        samples=samples,
        observe={
            "args": ["--no-docker", "--no-wslc"],
            "platform": "linux",
            "distro": "Ubuntu",
            "wsl_interop": False,
            "host": {
                "logical_cpus": 16,
                "cpu_breakdown": {"total": 25.4, "windows": 17.9, "virtual_machines": 7.1, "other": 0.4},
                "memory": {"total_bytes": 34_359_738_368, "available_bytes": 6_120_328_192},
            },
        },
        calls=calls,
    )


def _utf16(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-16-le")


def multi_distro() -> Built:
    ubuntu = [
        Proc(1, b"init", b"/init\0", 0, 2, [(10, 20), (10, 20), (10, 21)], 300),
        _idle(400, "bash", start=5000),
        Proc(
            410,
            b"node",
            b"/usr/bin/node\0server.js\0",
            400,
            8000,
            [(9_000, 500), (9_090, 505), (9_180, 510)],
            52_000,
        ),
    ]
    debian = [
        Proc(1, b"init", b"/init\0", 0, 3, [(11, 21), (11, 21), (11, 21)], 290),
        Proc(
            77,
            b"postgres",
            b"/usr/lib/postgresql/15/bin/postgres\0-D\0/var/lib/pg\0",
            1,
            700,
            [(4_000, 900), (4_150, 930), (4_300, 960)],
            80_000,
        ),
        _idle(78, "bash", start=710),
    ]
    alpine = [
        Proc(1, b"init", b"/init\0", 0, 4, [(5, 9), (5, 9), (5, 9)], 250),
        Proc(
            30, b"redis-server", b"redis-server *:6379\0", 1, 300, [(800, 200), (830, 206), (860, 212)], 9_000
        ),
    ]
    kernel = Kernel(
        cpus=8,
        busy=[(40_000, 0, 6_000, 0, 100), (40_280, 0, 6_040, 0, 101), (40_560, 0, 6_080, 0, 102)],
        uptime=[5000.00, 5003.00, 5006.00],
    )
    samples = [sample_files(ubuntu, kernel, i) for i in range(3)]
    script_sha = hashlib.sha256(SAMPLE_SCRIPT).hexdigest()
    files: dict[str, bytes] = {"wsl/list-running.out": _utf16("Ubuntu\nDebian\nAlpine\n")}
    exchanges: list[dict[str, object]] = [
        {
            "args": LIST_ARGS,
            "stdout": "wsl/list-running.out",
            "stdout_encoding": "utf-16le",
            "exit_code": 0,
            "duration_ms": 40,
        }
    ]
    for name, procs in (("Debian", debian), ("Alpine", alpine)):
        for i in range(2):
            rel = f"wsl/{name.lower()}-{i}.out"
            files[rel] = frame(sample_files(procs, kernel, i))
            exchanges.append(
                {
                    "args": sample_args(name),
                    "stdin_sha256": script_sha,
                    "stdout": rel,
                    "exit_code": 0,
                    "duration_ms": 150,
                }
            )
    files["wsl/debian-2.out"] = frame(sample_files(debian, kernel, 2))
    exchanges.append(
        {
            "args": sample_args("Debian"),
            "stdin_sha256": script_sha,
            "stdout": "wsl/debian-2.out",
            "exit_code": 0,
            "duration_ms": 150,
        }
    )
    files["wsl/alpine-stopped.err"] = _utf16(
        "The distribution 'Alpine' is not running.\nError code: Wsl/Service/WSL_E_DISTRO_NOT_RUNNING\n"
    )
    exchanges.append(
        {
            "args": sample_args("Alpine"),
            "stdin_sha256": script_sha,
            "stderr": "wsl/alpine-stopped.err",
            "stderr_encoding": "utf-16le",
            "exit_code": 1,
            "duration_ms": 30,
        }
    )
    calls: list[dict[str, object]] = [
        {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "limit": 20}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "environment": "wsl", "sort_by": "memory", "sort_order": "desc", "limit": 1}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "name_contains": "post"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "name_contains": "Post"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "sort_by": "name", "sort_order": "asc", "limit": 0}},
        {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:7}}", "sort_by": "name", "sort_order": "asc"}},
    ]  # fmt: skip
    return Built(
        name="multi-distro",
        description=(
            "Ubuntu (where the server runs) plus Debian and Alpine read through wsl.exe in one call per "
            "sample; Alpine stops before the third sample; 8-CPU host (host facts stated, part 1)"
        ),
        samples=samples,
        observe={
            "args": ["--no-docker", "--no-wslc"],
            "platform": "linux",
            "distro": "Ubuntu",
            "wsl_interop": True,
            "host": {
                "logical_cpus": 8,
                "cpu_breakdown": {"total": 18.0, "windows": 6.5, "virtual_machines": 11.2, "other": 0.3},
                "memory": {"total_bytes": 17_179_869_184, "available_bytes": 7_516_192_768},
            },
        },
        calls=calls,
        exchanges=exchanges,
        files=files,
    )


def hostile_names() -> Built:
    procs = [
        Proc(1, b"init", b"/init\0", 0, 2, [(10, 20), (10, 20), (10, 20)], 300),
        Proc(200, b"my proc (x)", b"", 1, 50, [(100, 10), (130, 10), (160, 10)], 0),
        Proc(201, b") ) (", b"", 1, 51, [(200, 0), (203, 0), (206, 0)], 0),
        Proc(202, b"line\nbreak", b"", 1, 52, [(1, 1), (1, 1), (1, 1)], 0),
        Proc(203, b"bad\xff\xfeutf", b"", 1, 53, [(5, 5), (8, 5), (8, 5)], 0),
        Proc(
            204,
            b"evil) R 1 2 3",
            b"/usr/bin/evil) R 1\0--flag\0",
            1,
            60,
            [(300, 30), (360, 33), (420, 36)],
            5_000,
        ),
        Proc(
            205,
            b"python3",
            "/usr/bin/python3\0-c\0print('héllo wörld')\0".encode(),
            1,
            70,
            [(40, 4), (41, 4), (41, 4)],
            7_000,
        ),
        Proc(206, b"tab\tname", b"\xff\xfe/bin/x\0arg\nwith newline\0", 1, 80, [(9, 9), (9, 9), (9, 9)], 100),
        Proc(
            300,
            b"old-owner",
            b"old-owner\0",
            1,
            500,
            [(900, 100), (20, 2), (40, 4)],
            400,
            starttimes=[500, 9_100, 9_100],
        ),
        Proc(301, b"newcomer", b"newcomer\0", 1, 9_200, [None, (50, 5), (80, 5)], 600),
    ]
    procs[8].comm = b"old-owner"
    kernel = Kernel(
        cpus=4,
        busy=[(8_000, 0, 900, 0, 10), (8_190, 0, 930, 0, 11), (8_380, 0, 960, 0, 12)],
        uptime=[100.00, 103.00, 106.00],
    )
    samples = [sample_files(procs, kernel, i) for i in range(3)]
    calls: list[dict[str, object]] = [
        {"tool": "list_resources", "arguments": {"max_age_ms": 0, "sort_by": "name", "sort_order": "asc", "limit": 50}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "name_contains": "("}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "name_contains": "\n"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "name_contains": "\ufffd"}},
        {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:1}}", "sort_by": "cpu", "sort_order": "asc", "limit": 50}},
        {"tool": "inspect_resource", "arguments": {"snapshot_id": "{{snapshot:1}}", "resource_id": "{{resource:2:0}}"}},
        {"tool": "get_system_summary", "arguments": {"snapshot_id": "{{snapshot:1}}"}},
    ]  # fmt: skip
    return Built(
        name="hostile-names",
        description=(
            "Process names with spaces, parentheses, a newline, a tab and invalid UTF-8, a comm that "
            "imitates stat fields, a reused PID and a process born between samples; --wsl-only"
        ),
        samples=samples,
        observe={"args": ["--wsl-only", "--no-docker", "--no-wslc"], "platform": "linux", "distro": "Ubuntu"},
        calls=calls,
    )


def main() -> None:
    for built in (slow_build(), multi_distro(), hostile_names()):
        root = write(built)
        record_expected(root)
        print(f"wrote {root}")


if __name__ == "__main__":
    main()
