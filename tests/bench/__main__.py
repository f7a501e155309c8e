"""Run every benchmark module (``python -m tests.bench [NAME ...]``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import tests.bench as package


def main(selected: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("bench_"))
    if selected:
        names = [n for n in names if any(s in n for s in selected)]
    for name in names:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"tests.bench.{name}").main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
