"""The command names the guard's reader says a script runs, for the parser evaluations
(``bashlex_eval.py``, ``treesitter_eval.py``): first literal words of every simple command,
substitutions, compound bodies and function bodies included."""

from __future__ import annotations

from wslmcp.shell.guard.syntax import (
    Arith,
    CommandSub,
    Compound,
    FunctionDef,
    Lit,
    Param,
    ProcessSub,
    Redirect,
    Script,
    Simple,
    Word,
)


def reader_names(script: Script, out: list[str]) -> None:
    def words(ws: list[Word]) -> None:
        for w in ws:
            for p in w.parts:
                if isinstance(p, CommandSub | ProcessSub):
                    reader_names(p.body, out)
                elif isinstance(p, Arith):
                    for s in p.subs:
                        reader_names(s, out)
                elif isinstance(p, Param) and p.arg is not None:
                    words([p.arg])

    def redirects(rs: list[Redirect]) -> None:
        words([r.target for r in rs if r.target is not None])
        words([r.heredoc.body for r in rs if r.heredoc is not None and r.heredoc.body is not None])

    for pipeline in script.pipelines:
        stack = list(pipeline.commands)
        while stack:
            c = stack.pop(0)
            if isinstance(c, Simple):
                if c.words:
                    first = c.words[0]
                    out.append("".join(p.text for p in first.parts if isinstance(p, Lit)))
                words(c.words)
                words([v for a in c.assigns for v in (a.value, *(a.array or ()))])
                redirects(c.redirects)
            elif isinstance(c, Compound):
                for b in c.bodies:
                    reader_names(b, out)
                words(c.words)
                redirects(c.redirects)
            elif isinstance(c, FunctionDef):
                stack.append(c.body)
