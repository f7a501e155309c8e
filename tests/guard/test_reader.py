"""Input→tree tests for the bash reader: bash text in, the syntax tree out, as data (``tree.py``).

One case per construct the flow pass relies on: lists and pipelines, assignments (subscripts,
arrays, appends), redirections and here-documents, quoting, parameters with their operators and
subscripts, substitutions, arithmetic text, compound commands with their loop variables, functions,
and the reader's leniency (unterminated quotes, stray keywords, continuations).
"""

from __future__ import annotations

import pytest

from tests.guard.tree import Data, script
from wslmcp.shell.guard.limits import MAX_NESTING, GuardLimit
from wslmcp.shell.guard.reader import read

CASES: list[tuple[str, str, Data]] = [
    (
        "lists and pipelines",
        "a; b && c || d\na | b |& c\na & b",
        [
            {"pipeline": [{"simple": ["a"]}]},
            {"pipeline": [{"simple": ["b"]}]},
            {"pipeline": [{"simple": ["c"]}]},
            {"pipeline": [{"simple": ["d"]}]},
            {"pipeline": [{"simple": ["a"]}, {"simple": ["b"]}, {"simple": ["c"]}]},
            {"background": True, "pipeline": [{"simple": ["a"]}]},
            {"pipeline": [{"simple": ["b"]}]},
        ],
    ),
    (
        "coproc",
        "coproc cat",
        [{"coproc": True, "pipeline": [{"simple": ["cat"]}]}],
    ),
    (
        "leading assignments: scalar, append, element with a substitution, prefix",
        "a=1 b+=2 c[$(x)]=3 cmd",
        [
            {
                "pipeline": [
                    {
                        "assigns": [
                            {"name": "a", "value": "1"},
                            {"append": True, "name": "b", "value": "2"},
                            {
                                "index": [{"sub": [{"pipeline": [{"simple": ["x"]}]}]}],
                                "name": "c",
                                "value": "3",
                            },
                        ],
                        "simple": ["cmd"],
                    }
                ]
            }
        ],
    ),
    (
        "an array of elements",
        'arr=(one "two three" $(four))',
        [
            {
                "pipeline": [
                    {
                        "assigns": [
                            {
                                "array": [
                                    "one",
                                    [{"q": "two three"}],
                                    [{"sub": [{"pipeline": [{"simple": ["four"]}]}]}],
                                ],
                                "name": "arr",
                            }
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "an empty value",
        "x=",
        [{"pipeline": [{"assigns": [{"name": "x", "value": ""}]}]}],
    ),
    (
        "subscripts are arithmetic text",
        "a[1+2]=x b[$i]+=y",
        [
            {
                "pipeline": [
                    {
                        "assigns": [
                            {"index": "1+2", "name": "a", "value": "x"},
                            {"append": True, "index": [{"param": "i"}], "name": "b", "value": "y"},
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "substitutions in values",
        "x=$(a) y=`b` z=${c:-$(d)}",
        [
            {
                "pipeline": [
                    {
                        "assigns": [
                            {"name": "x", "value": [{"sub": [{"pipeline": [{"simple": ["a"]}]}]}]},
                            {"name": "y", "value": [{"sub": [{"pipeline": [{"simple": ["b"]}]}]}]},
                            {
                                "name": "z",
                                "value": [
                                    {
                                        "arg": [{"sub": [{"pipeline": [{"simple": ["d"]}]}]}],
                                        "op": ":-",
                                        "param": "c",
                                    }
                                ],
                            },
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "redirections with descriptors",
        "cmd 2>&1 {fd}> f &> all < in >> app <<< 'here'",
        [
            {
                "pipeline": [
                    {
                        "redirects": [
                            {"fd": "2", "op": ">&", "target": "1"},
                            {"fd": "{fd}", "op": ">", "target": "f"},
                            {"op": "&>", "target": "all"},
                            {"op": "<", "target": "in"},
                            {"op": ">>", "target": "app"},
                            {"op": "<<<", "target": [{"q": "here"}]},
                        ],
                        "simple": ["cmd"],
                    }
                ]
            }
        ],
    ),
    (
        "an unquoted here-document: its substitutions are read",
        "cat <<EOF\nhi $(who) `id`\nEOF",
        [
            {
                "pipeline": [
                    {
                        "redirects": [
                            {
                                "heredoc": {
                                    "body": [
                                        {"q": "hi "},
                                        {"quoted": True, "sub": [{"pipeline": [{"simple": ["who"]}]}]},
                                        {"q": " "},
                                        {"quoted": True, "sub": [{"pipeline": [{"simple": ["id"]}]}]},
                                        {"q": "\n"},
                                    ],
                                    "delimiter": "EOF",
                                },
                                "op": "<<",
                            }
                        ],
                        "simple": ["cat"],
                    }
                ]
            }
        ],
    ),
    (
        "a quoted here-document with tabs stripped",
        "cat <<-'END'\n\traw $(no)\n\tEND\necho next",
        [
            {
                "pipeline": [
                    {
                        "redirects": [
                            {
                                "heredoc": {
                                    "body": [{"q": "raw $(no)\n"}],
                                    "delimiter": "END",
                                    "quoted": True,
                                    "strip_tabs": True,
                                },
                                "op": "<<-",
                            }
                        ],
                        "simple": ["cat"],
                    }
                ]
            },
            {"pipeline": [{"simple": ["echo", "next"]}]},
        ],
    ),
    (
        "quoting",
        "echo $'a\\x41' \"q $v\" 'lit' \\$x",
        [
            {
                "pipeline": [
                    {
                        "simple": [
                            "echo",
                            [{"q": "aA"}],
                            [{"q": "q "}, {"param": "v", "quoted": True}],
                            [{"q": "lit"}],
                            [{"q": "$"}, "x"],
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "parameters: default, length, indirection, transformation, subscripts",
        'echo ${x:-d} ${#x} ${!x} ${x@P} ${a[$(c)]} ${a[@]} "${a[*]}"',
        [
            {
                "pipeline": [
                    {
                        "simple": [
                            "echo",
                            [{"arg": "d", "op": ":-", "param": "x"}],
                            [{"op": "#len", "param": "x"}],
                            [{"op": "!", "param": "x"}],
                            [{"arg": "P", "op": "@", "param": "x"}],
                            [{"index": [{"sub": [{"pipeline": [{"simple": ["c"]}]}]}], "param": "a"}],
                            [{"index": "@", "param": "a"}],
                            [{"index": "*", "param": "a", "quoted": True}],
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "command and process substitutions, nested backticks",
        "echo $(echo `echo \\`id\\``) <(a) >(b)",
        [
            {
                "pipeline": [
                    {
                        "simple": [
                            "echo",
                            [
                                {
                                    "sub": [
                                        {
                                            "pipeline": [
                                                {
                                                    "simple": [
                                                        "echo",
                                                        [
                                                            {
                                                                "sub": [
                                                                    {
                                                                        "pipeline": [
                                                                            {
                                                                                "simple": [
                                                                                    "echo",
                                                                                    [
                                                                                        {
                                                                                            "sub": [
                                                                                                {
                                                                                                    "pipeline": [
                                                                                                        {
                                                                                                            "simple": [
                                                                                                                "id"
                                                                                                            ]
                                                                                                        }
                                                                                                    ]
                                                                                                }
                                                                                            ]
                                                                                        }
                                                                                    ],
                                                                                ]
                                                                            }
                                                                        ]
                                                                    }
                                                                ]
                                                            }
                                                        ],
                                                    ]
                                                }
                                            ]
                                        }
                                    ]
                                }
                            ],
                            [{"body": [{"pipeline": [{"simple": ["a"]}]}], "proc": "<"}],
                            [{"body": [{"pipeline": [{"simple": ["b"]}]}], "proc": ">"}],
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "arithmetic: its text and the substitutions in it",
        'echo $(( x + $(y) )) "$((1))"',
        [
            {
                "pipeline": [
                    {
                        "simple": [
                            "echo",
                            [{"arith": " x + $(y) ", "subs": [[{"pipeline": [{"simple": ["y"]}]}]]}],
                            [{"arith": "1", "quoted": True}],
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "subshell and group",
        "( a ) { b; }",
        [
            {"pipeline": [{"subshell": [[{"pipeline": [{"simple": ["a"]}]}]]}]},
            {"pipeline": [{"group": [[{"pipeline": [{"simple": ["b"]}]}]]}]},
        ],
    ),
    (
        "if/elif/else",
        "if a; then b; elif c; then d; else e; fi",
        [
            {
                "pipeline": [
                    {
                        "if": [
                            [{"pipeline": [{"simple": ["a"]}]}],
                            [{"pipeline": [{"simple": ["b"]}]}],
                            [{"pipeline": [{"simple": ["c"]}]}],
                            [{"pipeline": [{"simple": ["d"]}]}],
                            [{"pipeline": [{"simple": ["e"]}]}],
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "while and until",
        "while a; do b; done; until c; do d; done",
        [
            {
                "pipeline": [
                    {"while": [[{"pipeline": [{"simple": ["a"]}]}], [{"pipeline": [{"simple": ["b"]}]}]]}
                ]
            },
            {
                "pipeline": [
                    {"until": [[{"pipeline": [{"simple": ["c"]}]}], [{"pipeline": [{"simple": ["d"]}]}]]}
                ]
            },
        ],
    ),
    (
        "for with its variable and list",
        "for i in 1 2; do echo $i; done",
        [
            {
                "pipeline": [
                    {
                        "for": [[{"pipeline": [{"simple": ["echo", [{"param": "i"}]]}]}]],
                        "var": "i",
                        "words": ["1", "2"],
                    }
                ]
            }
        ],
    ),
    (
        "arithmetic for",
        "for ((i=0; i<3; i++)); do x; done",
        [{"pipeline": [{"expr": "i=0; i<3; i++", "for": [[{"pipeline": [{"simple": ["x"]}]}]]}]}],
    ),
    (
        "select",
        "select s in a b; do y; done",
        [{"pipeline": [{"select": [[{"pipeline": [{"simple": ["y"]}]}]], "var": "s", "words": ["a", "b"]}]}],
    ),
    (
        "case with every terminator",
        "case $x in a|b) one;; c) two;& *) three;;& esac",
        [
            {
                "pipeline": [
                    {
                        "case": [
                            [{"pipeline": [{"simple": ["one"]}]}],
                            [{"pipeline": [{"simple": ["two"]}]}],
                            [{"pipeline": [{"simple": ["three"]}]}],
                        ],
                        "words": [[{"param": "x"}], "a", "b", "c", "*"],
                    }
                ]
            }
        ],
    ),
    (
        "[[ ]]: < and && are words",
        "[[ $a < b && -v c[1] ]]",
        [{"pipeline": [{"test": [], "words": [[{"param": "a"}], "<", "b", "&&", "-v", "c[1]"]}]}],
    ),
    (
        "(( )) keeps its expression",
        "(( x = y + 1 ))",
        [{"pipeline": [{"arith": [], "expr": " x = y + 1 "}]}],
    ),
    (
        "(( that does not close as )) is nested subshells",
        "((echo a); (echo b))",
        [
            {
                "pipeline": [
                    {
                        "subshell": [
                            [
                                {"pipeline": [{"subshell": [[{"pipeline": [{"simple": ["echo", "a"]}]}]]}]},
                                {"pipeline": [{"subshell": [[{"pipeline": [{"simple": ["echo", "b"]}]}]]}]},
                            ]
                        ]
                    }
                ]
            }
        ],
    ),
    (
        "functions, both forms",
        "f() { a; }; function g { b; }",
        [
            {"pipeline": [{"body": {"group": [[{"pipeline": [{"simple": ["a"]}]}]]}, "function": "f"}]},
            {"pipeline": [{"body": {"group": [[{"pipeline": [{"simple": ["b"]}]}]]}, "function": "g"}]},
        ],
    ),
    (
        "a comment",
        "echo a # comment",
        [{"pipeline": [{"simple": ["echo", "a"]}]}],
    ),
    (
        "a continuation inside a word",
        "r\\\nm -rf /",
        [{"pipeline": [{"simple": ["rm", "-rf", "/"]}]}],
    ),
    (
        "CRLF ends a command; the CR stays in the word, as bash reads it",
        "ls\r\nrm x",
        [{"pipeline": [{"simple": ["ls\r"]}]}, {"pipeline": [{"simple": ["rm", "x"]}]}],
    ),
    (
        "an unterminated quote runs to the end",
        'echo "unterminated',
        [{"pipeline": [{"simple": ["echo", [{"q": "unterminated"}]]}]}],
    ),
    (
        "a stray keyword is skipped",
        "then rm x; fi",
        [{"pipeline": [{"simple": ["rm", "x"]}]}],
    ),
    (
        "declare's array operand stays one word",
        "declare -a a=(x y); export b=1",
        [
            {
                "pipeline": [
                    {
                        "simple": [
                            "declare",
                            "-a",
                            ["a=", {"q": "("}, "x", {"q": " "}, "y", {"q": " "}, {"q": ")"}],
                        ]
                    }
                ]
            },
            {"pipeline": [{"simple": ["export", "b=1"]}]},
        ],
    ),
    (
        "quoted arithmetic text is a plain word to the reader",
        "let 'x=a[$(id)]'",
        [{"pipeline": [{"simple": ["let", [{"q": "x=a[$(id)]"}]]}]}],
    ),
]


@pytest.mark.parametrize(("title", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_reader_tree(title: str, text: str, expected: Data) -> None:
    assert script(read(text)) == expected


def test_blank_text_is_an_empty_script() -> None:
    assert script(read("   \n\t")) == []


def test_nesting_past_the_bound_raises_the_structural_limit() -> None:
    text = "( " * (MAX_NESTING + 1) + "a" + " )" * (MAX_NESTING + 1)
    with pytest.raises(GuardLimit) as caught:
        read(text)
    assert caught.value.rule == "parse.too_deep"
