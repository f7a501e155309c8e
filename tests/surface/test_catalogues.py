"""Both servers' catalogues as data: closed input schemas with no generated titles, an output schema
for every tool, and hints that say what each tool does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from wslmcp.catalogue import Hints, ToolSpec
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.shell.handlers import OPERATIONS
from wslmcp.shell.tools import SERVER as SHELL

TOOLS = [pytest.param(t, id=t.name) for t in (*OBSERVE.tools, *SHELL.tools)]


def _keys(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            if key != "properties":
                yield from _keys(value)
            else:
                for sub in value.values():
                    yield from _keys(sub)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keys(item)


@pytest.mark.parametrize("tool", TOOLS)
def test_schemas_are_valid_closed_and_carry_no_generated_titles(tool: ToolSpec) -> None:
    for schema in (tool.input_schema, tool.output_schema):
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"
    assert tool.input_schema["additionalProperties"] is False
    assert "title" not in set(_keys(tool.input_schema))
    assert tool.title and tool.description


def test_every_shell_tool_has_an_operation_and_every_operation_a_tool() -> None:
    assert [t.name for t in SHELL.tools] == list(OPERATIONS)


# What each tool does to the world, stated once more by hand: (readOnly, destructive, idempotent, openWorld).
HINTS = {
    "get_system_summary": (True, False, False, False),  # may take a new observation: answers move
    "list_resources": (True, False, False, False),
    "inspect_resource": (True, False, False, False),
    "list_children": (True, False, False, False),
    "get_history": (True, False, False, False),  # the history moves on with every sample
    "get_metric_series": (True, False, False, False),
    "wsl_list_hosts": (True, False, True, False),
    "wsl_connect": (False, False, False, False),  # a new session each time
    "wsl_disconnect": (False, False, True, False),  # forgets; a second time changes nothing
    "wsl_list_sessions": (True, False, True, False),
    "wsl_exec": (False, True, False, True),  # any command, reaching whatever the distro reaches
    "wsl_start": (False, True, False, True),  # a command, as wsl_exec
    "wsl_read_output": (True, False, False, False),  # moves the read cursor: a second read differs
    "wsl_send_input": (False, True, False, True),  # input to a program: whatever it does with it
    "wsl_stop": (False, True, True, False),  # ends a tree; a second stop finds it ended
    "wsl_list_processes": (True, False, False, False),  # a process read to its end is listed once more
    "wsl_list_dir": (True, False, True, False),
    "wsl_read_file": (True, False, True, False),
    "wsl_write_file": (False, True, False, False),  # replaces a file; appending twice differs
    "wsl_edit_file": (False, True, False, False),  # the same edit twice finds no oldText the second time
    "wsl_search": (True, False, True, False),
    "wsl_upload": (False, True, True, False),  # replaces the destination with the same bytes
    "wsl_download": (False, True, True, False),
}


@pytest.mark.parametrize("tool", TOOLS)
def test_hints_say_what_the_tool_does(tool: ToolSpec) -> None:
    assert tool.hints == Hints(*HINTS[tool.name])
    annotations = tool.listing()["annotations"]
    assert annotations["readOnlyHint"] is tool.hints.read_only
    assert annotations["title"] == tool.title
