"""Writes the hand-written Windows-side observe scenarios (``python -m tests.observe.windows_scenarios``).

They stand for Windows 11 + WSL2 hosts this Linux CI cannot record: the server runs on Windows
(its primary distro read through wsl.exe), with the process tables and PDH counter samples the
psutil and pdh.dll adapters produce (``wslmcp.fakes.windows_processes`` / ``wslmcp.fakes.pdh`` formats), the
Engine's JSON answers (cgroup v2 shapes of Docker Desktop's engine, which runs in the
``docker-desktop`` distro on the WSL kernel) and wslc.exe's JSON on stdout. Every number follows
from the per-second rates below, so the expected answers can be checked by hand.

* ``docker-build-host``: the reference's worked example on a 16-CPU host. The hypervisor says the
  logical processors are 62.5 % busy: Windows (root) 10 %, virtual machines 50 % (the WSL VM's 16
  vCPUs 45 %, the WSLC session VM's 2 vCPUs 5 %), other 2.5 %. WSL's kernel is 45 % busy, a Docker
  container (on that kernel) 10 %, a WSLC container (in its own VM) 5 % ⇒ WSL 35, Docker 10, WSLC 5.
* ``no-hypervisor``: no Hyper-V counter sets; the breakdown comes from the system CPU times.
* ``access-denied``: Windows processes whose CPU times cannot be read stay null and are counted.
* ``docker-500``: the daemon answers HTTP 500, then hangs on the forced refresh.
* ``docker-absent``: nothing listens on Docker Desktop's pipe; no wslc.exe.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.observe.engine_answers import cpu_stats, top
from tests.observe.scenario_factory import (
    ROOT,
    START_WALL,
    Kernel,
    Proc,
    frame,
    record_expected,
    sample_files,
)
from wslmcp.boundaries.pdh import GUEST_PROCESSORS, LOGICAL_PROCESSORS, ROOT_PROCESSORS
from wslmcp.boundaries.procfs_wsl import DEFAULT_NAME_ARGS, LIST_ARGS, SAMPLE_SCRIPT, sample_args
from wslmcp.boundaries.wslc import LIST_ARGS as WSLC_LIST
from wslmcp.boundaries.wslc import STATS_ARGS as WSLC_STATS
from wslmcp.observe.docker import TOP_ARGS

CPUS = 16
SAMPLES = 3
STEP_S = 3
TICKS = 100  # CLK_TCK
BASE_100NS = 133_000_000_000_000_000  # a FILETIME of late 2022, where the PDH base counters stand
PIPE = {"url": "npipe:////./pipe/dockerDesktopLinuxEngine", "source": "context desktop-linux"}
NS = 1_000_000_000


def _utf16(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-16-le")


# --- WSL side -------------------------------------------------------------------------------------


def kernel(busy_share: float) -> Kernel:
    per_step = round(busy_share * CPUS * TICKS * STEP_S)  # busy ticks per 3 s
    user, system, soft = per_step * 5 // 6, per_step - per_step * 5 // 6 - 12, 12
    return Kernel(
        cpus=CPUS,
        busy=[(600_000 + user * i, 0, 90_000 + system * i, 0, 4_000 + soft * i) for i in range(SAMPLES)],
        uptime=[9000.00 + STEP_S * i for i in range(SAMPLES)],
    )


def kernel_total_ns(k: Kernel, i: int) -> int:
    """dockerd's system_cpu_usage for sample ``i``: the 7-field sum of that /proc/stat, in ns."""
    return (int(k.uptime[i] * TICKS * k.cpus) + 120) * (NS // TICKS)


def busy(
    pid: int, name: str, cores: float, args: str, *, ppid: int = 1, rss: int = 20_000, start: int = 50_000
) -> Proc:
    per_step = round(cores * TICKS * STEP_S)
    return Proc(
        pid,
        name.encode(),
        args.replace(" ", "\0").encode() + b"\0",
        ppid,
        start,
        [(10_000 + per_step * i * 9 // 10, 1_000 + per_step * i // 10) for i in range(SAMPLES)],
        rss,
    )


def ubuntu() -> list[Proc]:
    return [
        busy(1, "init", 0.0, "/init", ppid=0, rss=300, start=2),
        busy(9, "plan9", 0.0, "plan9 --control-socket 5", rss=2_200, start=9),
        busy(310, "bash", 0.0, "-bash", ppid=309, rss=1_200, start=4_200),
        busy(512, "make", 0.1, "make -j4 all", ppid=310, rss=2_600, start=90_000),
        busy(
            530,
            "cc1plus",
            2.0,
            "/usr/lib/gcc/x86_64-linux-gnu/13/cc1plus -O2 src/engine.cc",
            ppid=512,
            rss=240_000,
        ),
        busy(
            531,
            "cc1plus",
            2.0,
            "/usr/lib/gcc/x86_64-linux-gnu/13/cc1plus -O2 src/render.cc",
            ppid=512,
            rss=310_000,
        ),
    ]


def docker_desktop() -> list[Proc]:
    return [
        busy(1, "init", 0.0, "/init", ppid=0, rss=250, start=3),
        busy(
            40,
            "dockerd",
            0.2,
            "/usr/local/bin/dockerd --config-file /run/config/docker/daemon.json",
            rss=30_000,
            start=400,
        ),
        busy(
            41,
            "containerd",
            0.1,
            "containerd --config /var/run/desktop-containerd/containerd.toml",
            ppid=40,
            rss=12_000,
            start=410,
        ),
    ]


# --- Windows side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Win:
    pid: int
    name: str
    cores: float | None  # None: CPU times cannot be read (access denied)
    ws_mib: int
    exe: str | None
    ppid: int = 700
    cmdline: tuple[str, ...] | None = None


def windows_processes(*, hosts: bool = True, wslc: bool = True, denied: tuple[str, ...] = ()) -> list[Win]:
    chrome = r"C:\Program Files\Google\Chrome\Application\chrome.exe"
    code = r"C:\Users\dev\AppData\Local\Programs\Microsoft VS Code\Code.exe"
    rows = [
        Win(4, "System", 0.1, 1, None, 0),
        Win(112, "Registry", 0.0, 60, None, 4),
        Win(700, "csrss.exe", 0.03, 6, r"C:\Windows\System32\csrss.exe", 600),
        Win(
            3000,
            "MsMpEng.exe",
            0.25,
            210,
            r"C:\ProgramData\Microsoft\Windows Defender\Platform\4.18\MsMpEng.exe",
            800,
        ),
        Win(4100, "explorer.exe", 0.05, 180, r"C:\Windows\explorer.exe", 4000, (r"C:\Windows\explorer.exe",)),
        Win(5000, "chrome.exe", 0.2, 420, chrome, 4100, (chrome,)),
        Win(5010, "chrome.exe", 0.1, 260, chrome, 5000, (chrome, "--type=renderer")),
        Win(5020, "chrome.exe", 0.0, 90, chrome, 5000, (chrome, "--type=utility")),
        Win(6000, "Code.exe", 0.3, 510, code, 4100, (code,)),
        Win(6010, "Code.exe", 0.1, 330, code, 6000, (code, "--type=renderer")),
        Win(7000, "WindowsTerminal.exe", 0.02, 95, r"C:\Program Files\WindowsApps\WindowsTerminal.exe", 4100),
    ]
    if hosts:
        rows.append(Win(9000, "vmmemWSL", 7.2, 6_144, None, 8800))
    if hosts and wslc:
        rows.append(Win(9100, "vmmemwslc-3f2a9c", 0.8, 1_024, None, 8800))
    return [
        Win(w.pid, w.name, None, w.ws_mib, w.exe, w.ppid, w.cmdline) if w.name in denied else w for w in rows
    ]


def table(rows: list[Win], i: int) -> dict[str, Any]:
    processes = [
        {
            "pid": w.pid,
            "ppid": w.ppid,
            "name": w.name,
            "create_time_100ns": BASE_100NS - 10_000_000 * (w.pid % 997 + 100),
            "cpu_seconds": None if w.cores is None else round(120.0 + w.cores * STEP_S * i, 6),
            "working_set_bytes": w.ws_mib << 20,
            "exe": w.exe,
            "cmdline": list(w.cmdline) if w.cmdline is not None else None,
        }
        for w in rows
    ]
    return {
        "logical_cpus": CPUS,
        "memory_total_bytes": 34_359_738_368,
        "memory_available_bytes": 9_663_676_416,
        "cpu_unreadable": [w.pid for w in rows if w.cores is None],
        "processes": processes,
    }


def pdh_sample(
    i: int, *, hyperv: bool, lp: float, root: float, guests: Mapping[str, float]
) -> dict[str, Any]:
    base = BASE_100NS + STEP_S * 10_000_000 * i

    def instances(names: list[str], share: float | Mapping[str, float]) -> dict[str, Any]:
        out = {}
        for n in names:
            s = share[n] if isinstance(share, Mapping) else share
            out[n] = {
                "first_value": 1_000_000_000_000 + round(s * STEP_S * 10_000_000) * i,
                "second_value": base,
                "timestamp_100ns": base,
                "status": 0,
            }
        return out

    busy_s = 40_000.0 + lp * CPUS * STEP_S * i
    native = {
        "user_s": busy_s * 0.7,
        "system_s": busy_s * 0.3,
        "idle_s": 500_000.0 + (1 - lp) * CPUS * STEP_S * i,
    }
    if not hyperv:
        return {
            "counters": dict.fromkeys((LOGICAL_PROCESSORS, ROOT_PROCESSORS, GUEST_PROCESSORS)),
            "native": native,
        }
    return {
        "counters": {
            LOGICAL_PROCESSORS: instances([f"Hv LP {c}" for c in range(CPUS)], lp),
            ROOT_PROCESSORS: instances([f"Root VP {c}" for c in range(CPUS)], root),
            GUEST_PROCESSORS: instances(list(guests), guests),
        },
        "native": native,
    }


WSL_VM = {f"WSL:Hv VP {c}": 0.45 for c in range(CPUS)}
WSLC_VM = {f"wslc-3f2a9c:Hv VP {c}": 0.4 for c in range(2)}

# --- containers -----------------------------------------------------------------------------------

CONTAINERS = [
    # (id, name, image, cores, memory usage, inactive_file, top rows)
    (
        "5b1e9c0d7a3f" + "4" * 52,
        "builder",
        "node:22",
        1.6,
        1_288_490_188,
        209_715_200,
        [
            (790, 770, 3_400, "00:00:01", "sh", "sh -c npm run build"),
            (
                812,
                790,
                880_000,
                "00:41:07",
                "node",
                "node /app/node_modules/.bin/vite build --mode production",
            ),
        ],
    ),
    (
        "a3c2e1f0b9d8" + "7" * 52,
        "cache",
        "redis:7",
        0.0,
        67_108_864,
        8_388_608,
        [(640, 620, 9_800, "00:00:12", "redis-server", "redis-server *:6379")],
    ),
]


def engine_answers(
    k: Kernel, *, listing_status: int = 200, after: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    listing = [
        {
            "Id": cid,
            "Names": [f"/{name}"],
            "Image": image,
            "Command": "docker-entrypoint.sh",
            "Created": 1_794_990_000,
            "State": "running",
            "Status": "Up 40 minutes",
        }
        for cid, name, image, *_ in CONTAINERS
    ]
    items: list[dict[str, Any]] = []
    if listing_status != 200:
        items.append(
            {
                "path": "/containers/json",
                "status": listing_status,
                "api_version": "1.47",
                "json": {"message": "Internal Server Error: containerd: connection refused"},
                "duration_ms": 0,
            }
        )
    else:
        items.append(
            {
                "path": "/containers/json",
                "status": 200,
                "api_version": "1.47",
                "json": listing,
                "duration_ms": 0,
            }
        )
    for cid, name, _image, cores, usage, inactive, procs in CONTAINERS:
        for i in range(SAMPLES):
            used = 3_000 * NS + round(cores * NS * STEP_S) * i
            system = kernel_total_ns(k, i)
            body = {
                "name": f"/{name}",
                "id": cid,
                "read": f"2026-12-01T09:00:{10 + STEP_S * i:02d}.000000000Z",
                "preread": f"2026-12-01T09:00:{9 + STEP_S * i:02d}.000000000Z",
                "pids_stats": {"current": len(procs), "limit": 18446744073709551615},
                "blkio_stats": {
                    "io_service_bytes_recursive": [
                        {"major": 8, "minor": 48, "op": "read", "value": 1_048_576}
                    ]
                },
                "num_procs": 0,
                "storage_stats": {},
                "cpu_stats": cpu_stats(used, system, CPUS),
                "precpu_stats": cpu_stats(used - round(cores * NS), system - CPUS * NS, CPUS),
                "memory_stats": {
                    "usage": usage,
                    "stats": {
                        "anon": usage - inactive - 4096,
                        "file": inactive + 4096,
                        "inactive_file": inactive,
                        "active_file": 4096,
                    },
                    "limit": 16_624_349_184,
                },
                "networks": {
                    "eth0": {
                        "rx_bytes": 8_812,
                        "rx_packets": 60,
                        "rx_errors": 0,
                        "rx_dropped": 0,
                        "tx_bytes": 1_220,
                        "tx_packets": 14,
                        "tx_errors": 0,
                        "tx_dropped": 0,
                    }
                },
            }
            items.append(
                {
                    "path": f"/containers/{cid}/stats",
                    "query": {"stream": "false"},
                    "status": 200,
                    "api_version": "1.47",
                    "json": body,
                    "duration_ms": 0,
                }
            )
        items.append(
            {
                "path": f"/containers/{cid}/top",
                "query": {"ps_args": TOP_ARGS},
                "status": 200,
                "api_version": "1.47",
                "json": top(*procs),
                "duration_ms": 0,
            }
        )
    items += after or []
    return items


WSLC_LISTED = [
    {
        "Id": "c7d1" + "e" * 60,
        "Name": "agent-sandbox",
        "Image": "mcr.microsoft.com/devcontainers/python:3.12",
        "State": "running",
    }
]
WSLC_STATS_OUT = [
    {
        "ID": "c7d1" + "e" * 60,
        "Name": "agent-sandbox",
        "CPUPerc": "80.00%",
        "MemUsage": "512.00 MiB / 1.95 GiB",
        "MemPerc": "25.64%",
        "NetIO": "1.20 MiB / 310.00 KiB",
        "BlockIO": "12.00 MiB / 0 B",
        "PIDs": 9,
    }
]


# --- writing --------------------------------------------------------------------------------------


@dataclass
class HostScenario:
    name: str
    description: str
    args: list[str]
    calls: list[dict[str, object]]
    busy_share: float = 0.45
    windows: Callable[[], list[Win]] = windows_processes
    hyperv: bool = True
    engine: Callable[[Kernel], list[dict[str, Any]]] | None = engine_answers
    wslc: bool = True
    extra_distro: bool = True
    lp: float = 0.625
    root: float = 0.1
    guests: Mapping[str, float] = field(default_factory=lambda: {**WSL_VM, **WSLC_VM})


def write(s: HostScenario) -> Path:
    import shutil

    root = ROOT / s.name
    if root.exists():
        shutil.rmtree(root)
    k = kernel(s.busy_share)
    files: dict[str, bytes] = {}
    timeline = []
    win = s.windows()
    for i in range(SAMPLES):
        files[f"samples/{i:04d}/windows.json"] = (
            json.dumps(table(win, i), separators=(",", ":")) + "\n"
        ).encode()
        pdh = pdh_sample(i, hyperv=s.hyperv, lp=s.lp, root=s.root, guests=s.guests)
        files[f"samples/{i:04d}/pdh.json"] = (json.dumps(pdh, separators=(",", ":")) + "\n").encode()
        timeline.append(
            {
                "t_ms": i * STEP_S * 1000,
                "windows": {"file": f"samples/{i:04d}/windows.json"},
                "pdh": {"file": f"samples/{i:04d}/pdh.json"},
            }
        )
    script = hashlib.sha256(SAMPLE_SCRIPT).hexdigest()
    running = "Ubuntu\ndocker-desktop\n" if s.extra_distro else "Ubuntu\n"
    files["wsl/list-running.out"] = _utf16(running)
    files["wsl/default-name.out"] = b"Ubuntu"
    wsl: list[dict[str, object]] = [
        {
            "args": DEFAULT_NAME_ARGS,
            "stdout": "wsl/default-name.out",
            "stdout_encoding": "utf-8",
            "exit_code": 0,
            "duration_ms": 60,
        },
        {
            "args": LIST_ARGS,
            "stdout": "wsl/list-running.out",
            "stdout_encoding": "utf-16le",
            "exit_code": 0,
            "duration_ms": 40,
        },
    ]
    distros = [("Ubuntu", ubuntu())] + ([("docker-desktop", docker_desktop())] if s.extra_distro else [])
    for distro, procs in distros:
        for i in range(SAMPLES):
            rel = f"wsl/{distro.lower()}-{i}.out"
            files[rel] = frame(sample_files(procs, k, i))
            wsl.append(
                {
                    "args": sample_args(distro),
                    "stdin_sha256": script,
                    "stdout": rel,
                    "exit_code": 0,
                    "duration_ms": 0,
                }
            )
    exchanges: dict[str, object] = {"wsl_exe": wsl}
    if s.engine is not None:
        exchanges["docker_api"] = s.engine(k)
    if s.wslc:
        files["wslc/list.out"] = json.dumps(WSLC_LISTED).encode()
        files["wslc/stats.out"] = json.dumps(WSLC_STATS_OUT, indent=2).encode()
        exchanges["wslc"] = [
            {
                "args": list(WSLC_LIST),
                "stdout": "wslc/list.out",
                "stdout_encoding": "utf-8",
                "exit_code": 0,
                "duration_ms": 0,
            },
            {
                "args": list(WSLC_STATS),
                "stdout": "wslc/stats.out",
                "stdout_encoding": "utf-8",
                "exit_code": 0,
                "duration_ms": 0,
            },
        ]
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    calls = [dict(c, expected=f"expected/{i:02d}-{c['tool']}.json") for i, c in enumerate(s.calls, start=1)]
    manifest: dict[str, object] = {
        "schema": "wslmcp-scenario/1.0",
        "name": s.name,
        "description": s.description,
        "source": "hand-written",
        "recorder": "tests/observe/windows_scenarios.py",
        "host": {"docker_endpoint": PIPE},
        "clock": {"start_wall": START_WALL},
        "timeline": timeline,
        "hold_last_ms": 60000,
        "exchanges": exchanges,
        "observe": {"args": s.args, "platform": "windows", "wsl_interop": True, "calls": calls},
        "expect": [{"kind": "observe-tools"}],
    }
    (root / "scenario.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return root


S1 = "{{snapshot:1}}"

BUILD_CALLS: list[dict[str, object]] = [
    {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
    {
        "tool": "list_resources",
        "arguments": {
            "snapshot_id": S1,
            "resource_kind": "container",
            "sort_by": "cpu",
            "sort_order": "desc",
        },
    },
    {"tool": "list_children", "arguments": {"snapshot_id": S1, "resource_id": "{{resource:2:0}}"}},
    {
        "tool": "list_resources",
        "arguments": {"snapshot_id": S1, "environment": "windows", "resource_kind": "host"},
    },
    {
        "tool": "list_children",
        "arguments": {"snapshot_id": S1, "resource_id": "{{resource:4:0}}", "limit": 4},
    },
    {"tool": "list_children", "arguments": {"snapshot_id": S1, "resource_id": "{{resource:4:1}}"}},
    {"tool": "list_resources", "arguments": {"snapshot_id": S1, "resource_kind": "application"}},
    {"tool": "list_children", "arguments": {"snapshot_id": S1, "resource_id": "{{resource:7:0}}"}},
    {"tool": "list_resources", "arguments": {"snapshot_id": S1, "limit": 6}},
    {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
]

SUMMARY_CALLS: list[dict[str, object]] = [
    {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
    {"tool": "list_resources", "arguments": {"snapshot_id": S1, "environment": "windows", "limit": 5}},
    {"tool": "list_resources", "arguments": {"snapshot_id": S1, "environment": "docker"}},
    {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
]


def docker_500(k: Kernel) -> list[dict[str, Any]]:
    hang = {
        "path": "/containers/json",
        "error": "timeout",
        "message": "no complete answer within 2 s",
        "duration_ms": 2000,
    }
    base = engine_answers(k, listing_status=500)
    return [base[0], base[0], hang]


def docker_absent(k: Kernel) -> list[dict[str, Any]]:
    return [
        {
            "path": "/containers/json",
            "error": "absent",
            "message": "open //./pipe/dockerDesktopLinuxEngine: The system cannot find the file specified.",
        }
    ]


SCENARIOS = [
    HostScenario(
        "docker-build-host",
        "The reference's worked example on a 16-CPU Windows 11 host: hypervisor 62.5 % (Windows 10, VMs 50, "
        "other 2.5); the WSL kernel 45 % busy with a C++ build and a Docker Desktop container at 10 % on the "
        "same kernel; a WSLC container at 5 % in its own session VM => WSL 35, Docker 10, WSLC 5",
        [],
        BUILD_CALLS,
    ),
    HostScenario(
        "no-hypervisor",
        "A Windows host without Hyper-V (WSL 1: no VM host process): the breakdown comes from the system "
        "CPU times; Docker and WSLC not collected",
        ["--no-docker", "--no-wslc"],
        SUMMARY_CALLS[:2],
        windows=lambda: windows_processes(hosts=False),
        hyperv=False,
        lp=0.375,
        busy_share=0.3,
        engine=None,
        wslc=False,
        extra_distro=False,
    ),
    HostScenario(
        "access-denied",
        "Windows processes whose CPU times cannot be read without elevation (System, MsMpEng.exe, csrss.exe): "
        "listed with cpu_percent null and counted in a warning, never 0",
        ["--no-docker", "--no-wslc"],
        [
            SUMMARY_CALLS[0],
            {
                "tool": "list_resources",
                "arguments": {
                    "snapshot_id": S1,
                    "environment": "windows",
                    "resource_kind": "process",
                    "sort_by": "name",
                    "sort_order": "asc",
                },
            },
        ],
        windows=lambda: windows_processes(denied=("System", "MsMpEng.exe", "csrss.exe")),
        engine=None,
        wslc=False,
        extra_distro=False,
    ),
    HostScenario(
        "docker-500",
        "Docker Desktop's engine answers HTTP 500 to the container list, then hangs on the forced refresh "
        "(the Engine deadline, 3 s, lengthens that collection: sample_window_ms 6000): Docker is null with "
        "the reason, the rest of each snapshot is valid",
        ["--no-wslc"],
        [SUMMARY_CALLS[0], SUMMARY_CALLS[3]],
        engine=docker_500,
        wslc=False,
    ),
    HostScenario(
        "docker-absent",
        "Nothing listens on Docker Desktop's pipe and wslc.exe is not installed: Docker and WSLC are null "
        "(absent is not zero), the overlap is resolved (no containers)",
        [],
        [SUMMARY_CALLS[0]],
        windows=lambda: windows_processes(wslc=False),
        engine=docker_absent,
        wslc=False,
        extra_distro=False,
        lp=0.575,
        guests=WSL_VM,
    ),
]


def main() -> None:
    for s in SCENARIOS:
        root = write(s)
        record_expected(root)
        print(f"wrote {root}")


if __name__ == "__main__":
    main()
