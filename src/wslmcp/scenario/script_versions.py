"""Recorded scripts of earlier versions, read as today's.

A scenario records each wsl.exe call with its exact arguments, a fixed script among them. When such
a script changes in a way that cannot change what it prints, a recording of the earlier version
still answers today's request: the twin (``wslmcp.fakes.wsl_exe``) reads each recorded script through
``EARLIER_SCRIPT_PARTS``, each earlier part replaced with today's, and ``EARLIER_SCRIPT_FORMS``,
earlier forms (with the run token in them) rewritten as today's. Each today part is checked to be
in today's script (``tests/shell/test_search.py``, ``tests/shell/test_endings.py``). (The wrappers
of ``EARLIER_SCRIPT_FORMS`` print differently only when a shell dies of a signal: a recording made
before says what it said then.)
"""

from __future__ import annotations

import functools
import re

# ripgrep's exclusions of today's search walk: the client table's places (``wslmcp.clients``)
_RG_WALK_EXCLUSIONS = (
    "'--iglob' '!**/{.git,.hg,.svn,.aws,.azure,.claude,.claude.json,.claude.json.backup,.clau"
    "de.json.wslmcp-backup,.codeium/windsurf/mcp_config.json,.codeium/windsurf/mcp_config.jso"
    "n.wslmcp-backup,.codex,.codex/config.toml,.codex/config.toml.wslmcp-backup,.config/claud"
    "e,.config/code - insiders/user/mcp.json,.config/code - insiders/user/mcp.json.wslmcp-bac"
    "kup,.config/code/user/mcp.json,.config/code/user/mcp.json.wslmcp-backup,.config/cursor/u"
    "ser/globalstorage,.config/gcloud,.config/gh,.config/windsurf/user/globalstorage,.cursor/"
    "mcp.json,.cursor/mcp.json.wslmcp-backup,.docker/config.json,.gemini/.env,.gemini/google_"
    "accounts.json,.gemini/mcp-oauth-tokens.json,.gemini/oauth_creds.json,.gemini/settings.js"
    "on,.gemini/settings.json.wslmcp-backup,.git-credentials,.gnupg,.kube,.mcp.json,.mcp.json"
    ".wslmcp-backup,.netrc,.npmrc,.pypirc,.ssh,.vscode-server-insiders/data/user/mcp.json,.vs"
    "code-server-insiders/data/user/mcp.json.wslmcp-backup,.vscode-server/data/user/mcp.json,"
    ".vscode-server/data/user/mcp.json.wslmcp-backup,.vscode/mcp.json,.vscode/mcp.json.wslmcp"
    "-backup,appdata/roaming/claude,appdata/roaming/code - insiders/user/mcp.json,appdata/roa"
    "ming/code - insiders/user/mcp.json.wslmcp-backup,appdata/roaming/code/user/mcp.json,appd"
    "ata/roaming/code/user/mcp.json.wslmcp-backup,appdata/roaming/cursor/user/globalstorage,a"
    "ppdata/roaming/gcloud,appdata/roaming/github cli,appdata/roaming/windsurf/user/globalsto"
    "rage}'"
)

#: (earlier text, today's text) pairs, each specific enough to occur in one fixed script only.
EARLIER_SCRIPT_PARTS: tuple[tuple[str, str], ...] = (
    # wsl_search: ripgrep no longer sorts (``--sort path`` walks on one thread; the parser sorts) ...
    (
        "'rg' '--no-config' '--no-heading' '--null' '--color' 'never' '--hidden' '--no-ignore' '--no-messages' '--sort' 'path' ",
        "'rg' '--no-config' '--no-heading' '--null' '--color' 'never' '--hidden' '--no-ignore' '--no-messages' ",
    ),
    # ... takes one glob for the walk's exclusions (one matcher, where each glob cost a few ms) ...
    (
        "'--iglob' '!**/.git' '--iglob' '!**/.hg' '--iglob' '!**/.svn' '--iglob' '!**/.aws' "
        "'--iglob' '!**/.azure' '--iglob' '!**/.claude' '--iglob' '!**/.claude.json' '--iglob' "
        "'!**/.claude.json.backup' '--iglob' '!**/.codex' '--iglob' '!**/.config/gcloud' "
        "'--iglob' '!**/.config/gh' '--iglob' '!**/.cursor/mcp.json' '--iglob' "
        "'!**/.docker/config.json' '--iglob' '!**/.gemini/settings.json' '--iglob' "
        "'!**/.git-credentials' '--iglob' '!**/.gnupg' '--iglob' '!**/.kube' '--iglob' "
        "'!**/.mcp.json' '--iglob' '!**/.netrc' '--iglob' '!**/.npmrc' '--iglob' '!**/.pypirc' "
        "'--iglob' '!**/.ssh' '--iglob' '!**/.vscode/mcp.json' '--iglob' "
        "'!**/appdata/roaming/claude' '--iglob' '!**/appdata/roaming/gcloud' '--iglob' "
        "'!**/appdata/roaming/github cli' '--iglob' '!**/claude_desktop_config.json'",
        _RG_WALK_EXCLUSIONS,
    ),
    # ... that skips every place of the client table (``wslmcp.clients``) ...
    (
        "'--iglob' '!**/{.git,.hg,.svn,.aws,.azure,.claude,.claude.json,.claude.json.backup,.codex,"
        ".config/gcloud,.config/gh,.cursor/mcp.json,.docker/config.json,.gemini/settings.json,"
        ".git-credentials,.gnupg,.kube,.mcp.json,.netrc,.npmrc,.pypirc,.ssh,.vscode/mcp.json,"
        "appdata/roaming/claude,appdata/roaming/gcloud,appdata/roaming/github cli,claude_desktop_config.json}'",
        _RG_WALK_EXCLUSIONS,
    ),
    # ... and prunes the same places from grep's walk ...
    (
        "\\( -ipath '*/.git' -o -ipath '*/.hg' -o -ipath '*/.svn' -o -ipath '*/.aws' -o -ipath '*/"
        ".azure' -o -ipath '*/.claude' -o -ipath '*/.claude.json' -o -ipath '*/.claude.json.backu"
        "p' -o -ipath '*/.codex' -o -ipath '*/.config/gcloud' -o -ipath '*/.config/gh' -o -ipath "
        "'*/.cursor/mcp.json' -o -ipath '*/.docker/config.json' -o -ipath '*/.gemini/settings.jso"
        "n' -o -ipath '*/.git-credentials' -o -ipath '*/.gnupg' -o -ipath '*/.kube' -o -ipath '*/"
        ".mcp.json' -o -ipath '*/.netrc' -o -ipath '*/.npmrc' -o -ipath '*/.pypirc' -o -ipath '*/"
        ".ssh' -o -ipath '*/.vscode/mcp.json' -o -ipath '*/appdata/roaming/claude' -o -ipath '*/a"
        "ppdata/roaming/gcloud' -o -ipath '*/appdata/roaming/github cli' -o -ipath '*/claude_desk"
        "top_config.json' \\)",
        "\\( -ipath '*/.git' -o -ipath '*/.hg' -o -ipath '*/.svn' -o -ipath '*/.aws' -o -ipath '*/"
        ".azure' -o -ipath '*/.claude' -o -ipath '*/.claude.json' -o -ipath '*/.claude.json.backu"
        "p' -o -ipath '*/.claude.json.wslmcp-backup' -o -ipath '*/.codeium/windsurf/mcp_config.js"
        "on' -o -ipath '*/.codeium/windsurf/mcp_config.json.wslmcp-backup' -o -ipath '*/.codex' -"
        "o -ipath '*/.codex/config.toml' -o -ipath '*/.codex/config.toml.wslmcp-backup' -o -ipath"
        " '*/.config/claude' -o -ipath '*/.config/code - insiders/user/mcp.json' -o -ipath '*/.co"
        "nfig/code - insiders/user/mcp.json.wslmcp-backup' -o -ipath '*/.config/code/user/mcp.jso"
        "n' -o -ipath '*/.config/code/user/mcp.json.wslmcp-backup' -o -ipath '*/.config/cursor/us"
        "er/globalstorage' -o -ipath '*/.config/gcloud' -o -ipath '*/.config/gh' -o -ipath '*/.co"
        "nfig/windsurf/user/globalstorage' -o -ipath '*/.cursor/mcp.json' -o -ipath '*/.cursor/mc"
        "p.json.wslmcp-backup' -o -ipath '*/.docker/config.json' -o -ipath '*/.gemini/.env' -o -i"
        "path '*/.gemini/google_accounts.json' -o -ipath '*/.gemini/mcp-oauth-tokens.json' -o -ip"
        "ath '*/.gemini/oauth_creds.json' -o -ipath '*/.gemini/settings.json' -o -ipath '*/.gemin"
        "i/settings.json.wslmcp-backup' -o -ipath '*/.git-credentials' -o -ipath '*/.gnupg' -o -i"
        "path '*/.kube' -o -ipath '*/.mcp.json' -o -ipath '*/.mcp.json.wslmcp-backup' -o -ipath '"
        "*/.netrc' -o -ipath '*/.npmrc' -o -ipath '*/.pypirc' -o -ipath '*/.ssh' -o -ipath '*/.vs"
        "code-server-insiders/data/user/mcp.json' -o -ipath '*/.vscode-server-insiders/data/user/"
        "mcp.json.wslmcp-backup' -o -ipath '*/.vscode-server/data/user/mcp.json' -o -ipath '*/.vs"
        "code-server/data/user/mcp.json.wslmcp-backup' -o -ipath '*/.vscode/mcp.json' -o -ipath '"
        "*/.vscode/mcp.json.wslmcp-backup' -o -ipath '*/appdata/roaming/claude' -o -ipath '*/appd"
        "ata/roaming/code - insiders/user/mcp.json' -o -ipath '*/appdata/roaming/code - insiders/"
        "user/mcp.json.wslmcp-backup' -o -ipath '*/appdata/roaming/code/user/mcp.json' -o -ipath "
        "'*/appdata/roaming/code/user/mcp.json.wslmcp-backup' -o -ipath '*/appdata/roaming/cursor"
        "/user/globalstorage' -o -ipath '*/appdata/roaming/gcloud' -o -ipath '*/appdata/roaming/g"
        "ithub cli' -o -ipath '*/appdata/roaming/windsurf/user/globalstorage' \\)",
    ),
    # ... and resolves a directory root with ``cd -P`` (a builtin) instead of ``realpath``
    (
        'r=$(realpath -m -- "$p" 2>/dev/null) || r=$p\n[ "$r" = "$p" ] || {',
        'if [ -d "$p" ] && cd -P -- "$p" 2>/dev/null; then r=$PWD; else r=$(realpath -m -- "$p" 2>/dev/null) || r=$p; fi\n[ "$r" = "$p" ] || {',
    ),
)


# The wrappers of commands and background processes before they trapped the signals a shell can
# catch (a shell that dies of one says so in its exit marker), and the kill sweep before it named
# each process as it signalled it (top-level shells first, zombies left out): the same scripts
# otherwise, each read as today's form, which ``tests/shell/test_endings.py`` holds equal to
# today's scripts. ``{t}`` is the run token, ``{cd}`` the optional ``cd`` line.
_RC = "__wslmcp_rc=$?; "
_DIE = '[ -z "$__wslmcp_sig" ] || {{ trap - $__wslmcp_sig; kill -$__wslmcp_sig $$; }}; exit $__wslmcp_rc\' EXIT\n'
_SIGNALLED = '[ -z "$__wslmcp_sig" ] || printf "\\0WSLMCP_EXIT_%s:-%s\\0" {t} "$__wslmcp_sig"; '
_TRAPS = (
    "__wslmcp_sig=; for __wslmcp_s in 1 2 3 10 12 14 15; do "
    'trap "__wslmcp_sig=$__wslmcp_s; exit" $__wslmcp_s; done\neval \''
)
_CD = r"(?P<cd>cd -- [^\n]*\n)?"
_RUN = r"\Aexport WSLMCP_RUN=(?P<t>[0-9a-f]{8,64})\n"
_CWD_PRINT = 'printf "\\n%s%s\\n" "__WSLMCP_CWD_{t}__" "$PWD"; '
_EXIT_PRINT = 'printf "\\0WSLMCP_EXIT_%s:%s\\0" {t} "${{__wslmcp_sig:+-}}${{__wslmcp_sig:-$__wslmcp_rc}}"; '
_SWEEP_TAIL = (
    "for p in $all; do\n"
    "  {{ read -r n < /proc/$p/comm && read -r l < /proc/$p/stat; }} 2>/dev/null || continue\n"
    '  l=${{l##*) }}; [ "${{l%% *}}" = Z ] && continue\n'
    "  case {spare}$n in 1bwrap) continue ;; esac\n"
    "  {act}\n"
    'done\nfor p in $k; do kill -KILL "$p" 2>/dev/null; done\nexit 0'
)
_ACTS = {
    "KILL": 'k="$k $p"; printf \'%s %s\\n\' "$p" "$n"',
    "": 'kill -{s} "$p" 2>/dev/null && printf \'%s %s\\n\' "$p" "$n"',
}
EARLIER_SCRIPT_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (  # a command
        re.compile(_RUN + _CD + "eval '"),
        "export WSLMCP_RUN={t}\n{cd}trap '" + _RC + _SIGNALLED + _DIE + _TRAPS,
    ),
    (  # a command in a session
        re.compile(
            _RUN
            + _CD
            + re.escape('trap \'__wslmcp_rc=$?; printf "\\n%s%s\\n" "__WSLMCP_CWD_')
            + "(?P=t)"
            + re.escape('__" "$PWD"; exit $__wslmcp_rc\' EXIT\neval \'')
        ),
        "export WSLMCP_RUN={t}\n{cd}trap '" + _RC + _CWD_PRINT + _SIGNALLED + _DIE + _TRAPS,
    ),
    (  # a background process
        re.compile(
            _RUN
            + re.escape('exec 2>&1\ntrap \'__wslmcp_rc=$?; printf "\\0WSLMCP_EXIT_%s:%s\\0" ')
            + "(?P=t)"
            + re.escape(' "$__wslmcp_rc"; exit $__wslmcp_rc\' EXIT\n')
            + _CD
            + "eval '"
        ),
        "export WSLMCP_RUN={t}\nexec 2>&1\ntrap '" + _RC + _EXIT_PRINT + _DIE + "{cd}" + _TRAPS,
    ),
    (  # the kill sweep: its carriers, top-level shells first ...
        re.compile(
            re.escape(
                '  carriers() { grep -lsxzF -- "$t" /proc/[0-9]*/environ 2>/dev/null; '
                'grep -lsa -- "$c" /proc/[0-9]*/cmdline 2>/dev/null; }\n'
            )
        ),
        '  carriers() {{ grep -lsa -- "$c" /proc/[0-9]*/cmdline 2>/dev/null; '
        'grep -lsxzF -- "$t" /proc/[0-9]*/environ 2>/dev/null; }}\n',
    ),
    (
        re.compile(
            re.escape(
                "  carriers() { for f in /proc/[0-9]*/environ; do { tr '\\0' '\\n' < \"$f\"; } 2>/dev/null "
                '| grep -qxF -- "$t" && echo "$f"; done\n'
                '    for f in /proc/[0-9]*/cmdline; do grep -qs -- "$c" "$f" 2>/dev/null && echo "$f"; done; }\n'
            )
        ),
        '  carriers() {{ for f in /proc/[0-9]*/cmdline; do grep -qs -- "$c" "$f" 2>/dev/null && echo "$f"; done\n'
        "    for f in /proc/[0-9]*/environ; do {{ tr '\\0' '\\n' < \"$f\"; }} 2>/dev/null "
        '| grep -qxF -- "$t" && echo "$f"; done; }}\n',
    ),
    (  # ... and each named as it is signalled
        re.compile(
            re.escape('for p in $all; do printf \'%s %s\\n\' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done\n')
            + r"for p in \$all; do kill -(?P<s>INT|TERM|KILL) "
            + re.escape('"$p" 2>/dev/null; done\nexit 0')
        ),
        _SWEEP_TAIL,
    ),
)


def as_today(script: str) -> str:
    """``script`` with every earlier part in it replaced by today's."""
    for earlier, today in EARLIER_SCRIPT_PARTS:
        script = script.replace(earlier, today)
    tree = "/proc/[0-9]*/stat" in script  # a sandbox's sweep (see shell.runner)
    for form, text in EARLIER_SCRIPT_FORMS:
        script = form.sub(functools.partial(_today, text=text, tree=tree), script)
    return script


def _today(m: re.Match[str], *, text: str, tree: bool) -> str:
    found = {k: v or "" for k, v in m.groupdict().items()}
    signal = found.get("s", "")
    act = _ACTS.get(signal, _ACTS[""]).format(s=signal)
    return text.format(**found, spare=int(tree and signal != "KILL"), act=act)
