"""Recorded scripts of earlier versions, read as today's.

A scenario records each wsl.exe call with its exact arguments, a fixed script among them. When such
a script changes in a way that cannot change what it prints, a recording of the earlier version
still answers today's request: the twin (``fakes.wsl_exe``) reads each recorded script through
``EARLIER_SCRIPT_PARTS``, each earlier part replaced with today's. Each today part is checked to be
in today's script (``tests/shell/test_search.py``).
"""

from __future__ import annotations

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
        "rage}'",
    ),
    # ... that skips every place of the client table (``wslmcp.clients``) ...
    (
        "'--iglob' '!**/{.git,.hg,.svn,.aws,.azure,.claude,.claude.json,.claude.json.backup,.codex,"
        ".config/gcloud,.config/gh,.cursor/mcp.json,.docker/config.json,.gemini/settings.json,"
        ".git-credentials,.gnupg,.kube,.mcp.json,.netrc,.npmrc,.pypirc,.ssh,.vscode/mcp.json,"
        "appdata/roaming/claude,appdata/roaming/gcloud,appdata/roaming/github cli,claude_desktop_config.json}'",
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
        "rage}'",
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


def as_today(script: str) -> str:
    """``script`` with every earlier part in it replaced by today's."""
    for earlier, today in EARLIER_SCRIPT_PARTS:
        script = script.replace(earlier, today)
    return script
