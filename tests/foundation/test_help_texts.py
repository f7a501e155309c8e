"""Every option of every subcommand says what it does in its --help (argparse parsers, walked with
their subcommands; observe's hand-written parser is checked against its help text)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest

from wslmcp.cli import SUBCOMMANDS


class _Built(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
    raise _Built(self)


def _walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield path, action


def _parsers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", _capture)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", _capture)
    entries = {name: module for name, (module, _) in SUBCOMMANDS.items() if name != "observe"}
    entries["shell explain"] = "wslmcp.shell.explain"
    for name, module in entries.items():
        main = importlib.import_module(module).main
        try:
            main(["--help"])
        except _Built as built:
            yield name, built.parser
        else:
            raise AssertionError(f"wslmcp {name} parsed no arguments")


def test_every_option_has_help(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = [
        f"wslmcp {path}: {'/'.join(action.option_strings) or action.dest}"
        for name, parser in _parsers(monkeypatch)
        for path, action in _walk(parser, name)
        if not (action.help and action.help.strip()) and action.help != argparse.SUPPRESS
    ]
    assert missing == []


def test_observe_help_names_every_option() -> None:
    from wslmcp.observe.options import HELP, _given

    for option in ("--interval-ms", "--wsl-only", "--no-docker", "--no-wslc", "--distro", "--replay"):
        assert option in HELP
        assert _given([option, "100"] if option in ("--interval-ms", "--distro", "--replay") else [option])


def _helps(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """Every help text: each argparse parser's (subcommands' too), and observe's hand-written one."""
    from wslmcp.observe.options import HELP

    def every(name: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
        yield name, parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    yield from every(f"{name} {sub}", child)

    from wslmcp.cli import _top_parser

    yield "wslmcp", _top_parser().format_help()
    for name, parser in _parsers(monkeypatch):
        yield from every(f"wslmcp {name}", parser)
    yield "wslmcp observe", HELP


def test_every_help_has_one_width_and_one_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    from wslmcp.cliargs import HELP_LINE, WIDTH

    helps = dict(_helps(monkeypatch))
    assert len(helps) > 15
    too_long = [
        f"{name}: {line}" for name, text in helps.items() for line in text.splitlines() if len(line) > WIDTH
    ]
    assert too_long == []
    assert [name for name, text in helps.items() if "-h, --help" in text and HELP_LINE not in text] == []
    assert "WSL_PROCESS_OUTPUT_BYTES  default: 1048576" in helps["wslmcp shell"]  # a column for every name


def test_profile_diff_names_its_snapshots_as_the_readme_does(monkeypatch: pytest.MonkeyPatch) -> None:
    helps = dict(_helps(monkeypatch))
    assert "OLD NEW" in helps["wslmcp profile diff"]
