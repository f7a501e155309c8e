"""The reader's syntax tree as plain data, for input→tree tests.

A script is a list of pipelines; every node is a dict holding only the fields that differ from
their defaults. A word made only of unquoted literal text is that text; any other word is a list
of parts: ``"text"`` (unquoted literal), ``{"q": text}`` (quoted literal), ``{"param": …}``,
``{"sub": script}`` (``$( )`` or backticks), ``{"proc": "<" or ">", "body": script}``,
``{"arith": text, "subs": […]}``.
"""

from __future__ import annotations

from typing import Any

from wslmcp.shell.guard.syntax import (
    Arith,
    Assign,
    Command,
    CommandSub,
    Compound,
    FunctionDef,
    Lit,
    Param,
    Part,
    Pipeline,
    ProcessSub,
    Redirect,
    Script,
    Simple,
    Word,
)

Data = Any


def script(node: Script) -> list[Data]:
    return [pipeline(p) for p in node.pipelines]


def pipeline(node: Pipeline) -> Data:
    out: dict[str, Data] = {"pipeline": [command(c) for c in node.commands]}
    if node.background:
        out["background"] = True
    if node.coproc:
        out["coproc"] = True
    return out


def command(node: Command) -> Data:
    if isinstance(node, Simple):
        return _drop_empty(
            {
                "simple": [word(w) for w in node.words],
                "assigns": [assign(a) for a in node.assigns],
                "redirects": [redirect(r) for r in node.redirects],
            }
        )
    if isinstance(node, Compound):
        return _drop_empty(
            {
                node.kind: [script(b) for b in node.bodies],
                "words": [word(w) for w in node.words],
                "subs": [script(s) for s in node.subs],
                "expr": node.expr,
                "var": node.var,
                "redirects": [redirect(r) for r in node.redirects],
            },
            keep=node.kind,
        )
    assert isinstance(node, FunctionDef)
    return {"function": node.name, "body": command(node.body)}


def assign(node: Assign) -> Data:
    out: dict[str, Data] = {"name": node.name, "value": word(node.value)}
    if node.index is not None:
        out["index"] = word(node.index)
    if node.append:
        out["append"] = True
    if node.array is not None:
        out["array"] = [word(w) for w in node.array]
        del out["value"]
    return out


def redirect(node: Redirect) -> Data:
    out: dict[str, Data] = {"op": node.op}
    if node.fd:
        out["fd"] = node.fd
    if node.target is not None:
        out["target"] = word(node.target)
    if node.heredoc is not None:
        doc = node.heredoc
        out["heredoc"] = _drop_empty(
            {
                "delimiter": doc.delimiter,
                "quoted": doc.quoted,
                "strip_tabs": doc.strip_tabs,
                "body": word(doc.body) if doc.body is not None else None,
            }
        )
    return out


def word(node: Word) -> Data:
    if all(isinstance(p, Lit) and not p.quoted for p in node.parts):
        return "".join(p.text for p in node.parts if isinstance(p, Lit))
    return [part(p) for p in node.parts]


def part(node: Part) -> Data:
    if isinstance(node, Lit):
        return {"q": node.text} if node.quoted else node.text
    if isinstance(node, Param):
        return _drop_empty(
            {
                "param": node.name,
                "op": node.op,
                "arg": word(node.arg) if node.arg is not None else None,
                "index": word(node.index) if node.index is not None else None,
                "quoted": node.quoted,
            }
        )
    if isinstance(node, CommandSub):
        return _drop_empty({"sub": script(node.body), "quoted": node.quoted}, keep="sub")
    if isinstance(node, ProcessSub):
        return {"proc": node.direction, "body": script(node.body)}
    assert isinstance(node, Arith)
    return _drop_empty(
        {"arith": node.text, "subs": [script(s) for s in node.subs], "quoted": node.quoted}, keep="arith"
    )


def _drop_empty(data: dict[str, Data], keep: str = "") -> dict[str, Data]:
    return {k: v for k, v in data.items() if k == keep or v not in (None, "", [], False)}
