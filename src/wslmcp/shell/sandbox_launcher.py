"""The launcher: the fixed bash script that confines one command with bubblewrap, and checks after it
that nothing was left to run later outside the sandbox.

``launcher(profile)`` writes the profile (``shell.sandbox.Profile``) as bash data in front of
``_LAUNCHER``. The transports run it in front of every script (``bash -p -c LAUNCHER wslmcp-sandbox
MODE FLAG SCRIPT CWD TAG``, ``boundaries.shell_transport.distro_argv``); nothing here runs anything.

Modes: ``own`` (a command or a file-tool script, in a PID namespace of its own), ``distro-pids``
(the fixed scripts that must see the distro's processes: the kill sweep, the facts probe),
``probe`` (whether the sandbox can be set up) and ``check`` (the after-command check of the runs
named in SCRIPT, or of every run whose check never ran: ``*``).

The after-command check (``own`` mode). Inside the writable roots the command may write anything but
what is hidden, so ordinary work (a repository's ``.git/config``, new files at the top of the home,
caches) runs. What would run later, outside the sandbox, is compared with what was there before the
command, and put back: a shell startup file (and the other files of ``guard.paths.RUNS_LATER``)
made, changed or replaced; a git hook made or changed; a project's agent settings and MCP
configuration changed; in any git configuration the command can reach, a setting that runs a
command (``guard.registry.git.COMMAND_SETTINGS``) added or changed, the rest of the file kept.
What runs later and is a directory that exists (``~/.config/systemd``, ``~/.vim``, ...) stays
read-only instead. "Can reach": the global and system git configuration, the files they include, and
the repository (its configuration, worktree configuration, submodules' configuration and hooks, and
the hooks directory ``core.hooksPath`` names) of each writable root, of each directory directly in
one, and of the call's working directory and each directory above it within its root; what is there
after the command is discovered again, so a repository the command made (``git init``, ``git
clone``) is checked too.

How: before ``exec``-ing bubblewrap the launcher looks those paths up (bash builtins: their type, a
link's target, their content), writes that state to a directory of its own outside the sandbox
(``/tmp/wslmcp-sandbox-<uid>``: the sandbox's ``/tmp`` is private), and forks a watcher in a process
group of its own. Bubblewrap reports its status to the watcher on a pipe (``--json-status-fd``);
when that pipe ends, the sandbox and every process in it are gone. The watcher then compares, undoes
what must not stay (in a bubblewrap sandbox of its own with the same writable roots, so the undo
cannot reach further than the command could), and reports on stderr, inside a block marked with the
call's tag (``\\0TAG\\n...\\0``, see ``shell.sandbox.split_report``), and in a report file the
``check`` mode hands over. The watcher holds the call's stdout and stderr until it is done, so the
call's reply carries the report. A watcher killed with its call (the kill sweep finds it by its
command line) leaves its state behind: the runner follows every sweep with a ``check`` of the runs it
swept, which finds the state of a run whose watcher is gone and does the check then.
"""

from __future__ import annotations

from wslmcp.shell.guard.paths import WINDOWS_PROFILES
from wslmcp.shell.guard.registry.git import COMMAND_SETTINGS, COMMAND_WHEN_BANG
from wslmcp.shell.sandbox import Profile


def _quote(text: str) -> str:
    from wslmcp.shell.runner import quote  # (not at import: the configuration reads this module)

    return quote(text)


def _array(name: str, items: tuple[str, ...]) -> str:
    return f"{name}=(" + " ".join(_quote(item) for item in items) + ")"


def _windows_names(hidden: tuple[str, ...]) -> str:
    """``WIN``: each path under a Windows user profile, lowercased, as 1, and each directory on the way
    to one as 0 (the launcher reads those directories and compares names in lower case)."""
    want: dict[str, int] = {}
    for path in hidden:
        if path.startswith(WINDOWS_PROFILES + "/"):
            parts = path[len(WINDOWS_PROFILES) + 1 :].lower().split("/")
            for n in range(1, len(parts)):
                want.setdefault("/".join(parts[:n]), 0)
            want["/".join(parts)] = 1
    return "declare -A WIN=(" + " ".join(f"[{_quote(k)}]={v}" for k, v in want.items()) + ")"


def _pattern(globs: tuple[str, ...]) -> str:
    """An extglob pattern matching any of ``globs`` (lowercased git keys; ``*`` matches dots too)."""
    return "@(" + "|".join(g.replace(".", "\\.") for g in globs) + ")"


def _glob_word(name: str) -> str:
    """``name`` as a literal inside an extglob pattern."""
    return "".join("\\" + ch if ch in "*?[]()|@!+\\" else ch for ch in name)


def _runs_later(entries: tuple[tuple[str, str], ...]) -> list[str]:
    """``RD``/``RN``/``WHY``: what runs later grouped by its directory, each directory's names as one
    extglob (the launcher reads each directory once), and why each runs later (``index/name``)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for why, path in entries:
        directory, _, name = path.rpartition("/")
        groups.setdefault(directory or "/", []).append((name, why))
    names = ["@(" + "|".join(_glob_word(n) for n, _ in group) + ")" for group in groups.values()]
    whys = [
        f"[{_quote(f'{i}/{n}')}]={_quote(why)}" for i, group in enumerate(groups.values()) for n, why in group
    ]
    return [
        _array("RD", tuple(groups)),
        _array("RN", tuple(names)),
        "declare -A WHY=(" + " ".join(whys) + ")",
    ]


def launcher(profile: Profile) -> str:
    """The fixed bash script that confines one command (``$1`` own | distro-pids | probe | check,
    ``$2`` the shell's flag, ``$3`` the script, ``$4`` the directory it starts in, ``$5`` the tag of
    the check's report): the profile as bash data, then ``_LAUNCHER``."""
    secrets = "|".join(profile.secret_variables + (() if profile.interop else ("WSL_INTEROP",)))
    hidden = profile.hidden + profile.sockets
    block = "\n".join(
        [
            _array("W", profile.writable),
            *_runs_later(profile.runs_later),
            _array("GC", profile.git_configs),
            _array("RP", tuple(path for _, path in profile.in_project)),
            _array("RPL", tuple(label for label, _ in profile.in_project)),
            _array("HH", tuple(p[2:] for p in hidden if p.startswith("~/"))),
            _windows_names(hidden),
            f"PROFILES={WINDOWS_PROFILES}",
            _array(
                "HA",
                tuple(p for p in hidden if p.startswith("/") and not p.startswith(WINDOWS_PROFILES + "/")),
            ),
            _array("RO", profile.read_only),
            _array("VIS", profile.visible),
            f"NET={int(profile.network)} NPROC={profile.max_processes} "
            f"FSIZE={profile.max_file_bytes // 1024} CHECK={int(profile.check)}",
            f"GK={_quote(_pattern(COMMAND_SETTINGS))} GB={_quote(_pattern(COMMAND_WHEN_BANG))}",
            # the variables kept from the launcher's environment (a case pattern written out once)
            f"passed() {{ case ${{1^^}} in {secrets}) return 1 ;; esac; }}",
        ]
    )
    return block + "\n" + _LAUNCHER + _CHECK + _MODES


_LAUNCHER = r"""# wslmcp's sandbox launcher: confines one command with bubblewrap as the profile above says, and
# checks after it that nothing was left to run later outside the sandbox.
# $1 own | distro-pids | probe | check; $2 the shell's flag (-lc or -c); $3 the script (check: the
# run tokens, or *); $4 the directory it starts in (or empty); $5 the tag of the check's report.
# Paths are looked up at every call (builtins, no new process), so a file made after the server
# started is hidden too, and nothing is ever created outside the sandbox.
m=$1 f=$2 s=$3 c=$4 tag=$5 H=${HOME:-/nonexistent} here=$PWD
# bubblewrap from a system directory on the caller's PATH (never one of the user's, such as a
# ~/.local/bin/bwrap an earlier command wrote); then a fixed PATH: no program of the user's runs here
bw=; for x in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
  [[ :$PATH: == *:$x:* ]] && [ -f "$x/bwrap" ] && [ -x "$x/bwrap" ] && { bw=$x/bwrap; break; }
done
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
[ -n "$bw" ] || [ "$m" = probe ] || {
  printf 'wslmcp-sandbox: bubblewrap (bwrap) is not installed in the distro; nothing ran\n' >&2; exit 125; }
shopt -s nullglob dotglob extglob globstar
IFS=$'\n'
D=/tmp/wslmcp-sandbox-$UID  # the check's state, outside the sandbox (whose /tmp is private)
declare -A seen did rd ro hh wi LT LR LI mode=([/]=ro [/tmp]=rw)
wr=() hid=() used=() SR=() WP=() WK=() WL=() WF=() WR=() S=() LQ=() a=() cur=0
res() {  # r = $1 with every symbolic link resolved (its missing tail kept; with $2, its last component
  # kept as it is); fails when its top is gone
  local d=${1%/*} b=${1##*/} t=
  while [ -n "$d" ] && [ ! -d "$d" ]; do t=/${d##*/}$t; d=${d%/*}; done
  d=${d:-/}
  if [ -z "${rd[$d]}" ]; then cd -P -- "$d" 2>/dev/null || return 1; rd[$d]=${PWD%/}; fi
  r=${rd[$d]}$t/$b
  if [ -z "$2$t" ] && [ -L "$r" ]; then
    if [ -d "$r" ]; then cd -P -- "$r" && r=$PWD; else r=$(realpath -m -- "$r"); fi
  fi
}
# Mounts, made by depth, then by kind: 0 a writable root, 2 a directory between a root and a
# directory kept read-only or hidden (a mount point, so it cannot be renamed away), 4 a directory kept
# read-only, 5 hidden.
add() {
  local c=w; case $1 in 4) c=r; ro[$2]=1 ;; 5) c=h; hh[$2]=1 ;; esac
  [ -n "${seen[$c$2]}" ] && return; seen[$c$2]=1
  local d=${2%/}; d=${d//[^\/]/}; local i=$(( ${#d} * 8 + $1 ))
  used[$i]=1; local -n b=B$i; b+=("$2")
}
root_of() {  # root = the deepest writable root holding $1; fails when none does
  root=; local w
  for w in "${wr[@]}"; do
    if [[ $1 == "$w" || $1 == "${w%/}"/* ]] && [ ${#w} -ge ${#root} ]; then root=$w; fi
  done
  [ -n "$root" ]
}
between() {
  local a=${1%/*}
  while [[ $a == "${root%/}"/* ]] && [ "$a" != "$root" ]; do add 2 "$a"; a=${a%/*}; done
}
watch() {  # $2 (a physical path in a writable root, of kind $1: f a file, g a git configuration, h a
  # hooks directory, r a directory whose names $3 run later) is compared after the command; $3 says why
  [ -n "${wi[$2]}" ] || { wi[$2]=${#WP[@]}; WP+=("$2"); WK+=("$1"); WL+=("$3"); }
}
later() {  # what runs later, by directory ($1 the index in RD): a directory that exists stays
  # read-only, the rest is watched (a whole directory's names at once)
  local d p
  for d in ${RD[$1]/#\~/$H}; do
    res "$d/." k || continue; d=${r%/.}
    if root_of "$d/."; then
      watch r "$d" "$1"
      for p in "$d"/${RN[$1]}; do
        if [ -L "$p" ]; then res "$p" && [ -d "$r" ] && root_of "$r" && { add 4 "$r"; between "$r"; }
        elif [ -d "$p" ]; then add 4 "$p"; between "$p"; fi
      done
    else  # outside the writable roots only a link can lead into one
      for p in "$d"/${RN[$1]}; do [ -L "$p" ] && res "$p" && root_of "$r" && watch f "$p" "${WHY[$1/${p##*/}]}"; done
    fi
  done
}
hide() {  # (nothing under /run/user: every runtime directory there is private, see below); every
  # directory between a writable root and it is a mount point, so it cannot be renamed out of reach
  { [ -e "$1" ] || [ -L "$1" ]; } && res "$1" && case $r in /|/run/user/*) ;; *) add 5 "$r"; root_of "$r" && between "$r" ;; esac
}
walk() {  # hide what WIN names under a Windows user profile, spelled in any case
  local e n; for e in "$1"/*; do
    n=${e##*/}; n=$2${n,,}
    case ${WIN[$n]} in 1) hide "$e" ;; 0) [ -d "$e" ] && walk "$e" "$n/" ;; esac
  done
}
open_at() {  # whether $1 lies in a writable part of the sandbox, as mounted so far
  local a=$1
  while :; do
    case ${mode[$a]} in rw) return 0 ;; ro|h) return 1 ;; esac
    [ -z "$a" ] || [ "$a" = / ] && return 1
    a=${a%/*}; a=${a:-/}
  done
}
gitdir() {  # watch the configuration and hooks of the repository whose work tree is $1 (physical)
  local g=$1/.git x cd
  if [ -f "$g" ]; then { read -r x < "$g"; } 2>/dev/null; x=${x#gitdir: }; [[ $x == /* ]] || x=$1/$x; g=$x; fi
  [ -d "$g" ] || return 0
  if [ -L "$g" ] || [ "$g" != "$1/.git" ]; then res "$g/config" k && g=${r%/config} || return 0; fi
  root_of "$g" || return 0
  cd=$g
  if [ -f "$g/commondir" ]; then
    { read -r x < "$g/commondir"; } 2>/dev/null; [[ $x == /* ]] || x=$g/$x
    res "$x/config" k && root_of "$r" && cd=${r%/config}
    watch g "$g/config.worktree" 'git configuration'
  fi
  watch g "$cd/config" 'git configuration'; watch h "$cd/hooks" 'git hooks'
  [ -e "$cd/config.worktree" ] && watch g "$cd/config.worktree" 'git configuration'
  for x in "$cd"/modules/*/config; do watch g "$x" 'git configuration'; watch h "${x%/config}/hooks" 'git hooks'; done
}
project() {  # the repository of the directory $1 and its files that run later, even where they are missing
  local i; gitdir "$1"
  for i in "${!RP[@]}"; do watch f "$1/${RP[$i]}" "${RPL[$i]}"; done
}
projects() {  # every project the command can reach (see the module docstring)
  local w x top i
  for w in "${wr[@]}"; do
    project "$w"
    # (what the globs find lies in a physical root: only a link among its directories needs resolving)
    for x in "$w"/*/.git; do
      x=${x%/.git}; [ -L "$x" ] && { res "$x" || continue; x=$r; }; gitdir "$x"
    done
    for i in "${!RP[@]}"; do for x in "$w"/*/${RP[$i]}; do
      top=${x#"$w"/}; top=$w/${top%%/*}
      if [ -L "$top" ] || [ -L "${x%/*}" ]; then res "$x" k || continue; x=$r; fi
      watch f "$x" "${RPL[$i]}"
    done; done
  done
  if [ -n "$c" ] && res "$c" && root_of "$r"; then  # the working directory and each above it in its root
    x=$r top=$root
    until [ "$x" = "$top" ] || [ -z "$x" ]; do project "$x"; x=${x%/*}; done  # (a root of / ends at "")
  fi
}
for p in "${W[@]}"; do p=${p/#\~/$H}; [ -d "$p" ] && res "$p" && { wr+=("$r"); add 0 "$r"; }; done
mounts() {  # what runs later, hidden paths, and bubblewrap's arguments (a)
  local i p g x k h
  for i in "${!RD[@]}"; do later "$i"; done
  for p in "${GC[@]}" ${XDG_CONFIG_HOME:+"$XDG_CONFIG_HOME/git/config"}; do
    res "${p/#\~/$H}" k && root_of "$r" && watch g "$r" 'git configuration'
  done
  for p in "${HH[@]}"; do hide "$H/$p"; done
  for u in $PROFILES/; do walk "${u%/}" ""; done
  for g in "${HA[@]}"; do for p in $g; do hide "$p"; done; done
  for g in "${RO[@]}"; do for p in $g; do [ -d "$p" ] && res "$p" && root_of "$r" && add 4 "$r"; done; done
  for p in "${VIS[@]}"; do p=${p/#\~/$H}; [ -d "$p" ] && res "$p" && ! root_of "$r" && add 4 "$r"; done
  # the check's state, when a root holds /tmp: hidden, made first if need be (later launchers read
  # its states as bash, outside the sandbox: nothing of the command's may be there)
  res "$D" && root_of "$r" && { state_dir; [ -e "$D" ] && res "$D" && add 5 "$r"; }
  cd -- "$here" 2>/dev/null || cd /
  a=(--unshare-user --cap-drop ALL --unshare-ipc --unshare-uts --die-with-parent --new-session
     --ro-bind / / --dev /dev --dev-bind-try /dev/dxg /dev/dxg --tmpfs /tmp)
  for x in /run/user/*; do  # private runtime directories: their sockets (D-Bus, systemd, gpg-agent, ...) stay out
    [ -d "$x" ] && [ ! -L "$x" ] && a+=(--perms 0700 --tmpfs "$x") && mode[$x]=rw
  done
  [ "$m" = distro-pids ] || a+=(--unshare-pid --proc /proc)
  [ "$NET" = 1 ] || a+=(--unshare-net)
  for i in "${!used[@]}"; do  # a mount is made only where it changes something
    unset -n b; declare -n b=B$i; k=$(( i % 8 ))
    for p in "${b[@]}"; do
      for h in "${hid[@]}"; do [[ $p == "$h" || $p == "$h"/* ]] && continue 2; done
      case $k in
        0) [ -n "${ro[$p]}${hh[$p]}" ] && continue; a+=(--bind "$p" "$p"); mode[$p]=rw ;;
        2) [ -z "${ro[$p]}${hh[$p]}" ] && open_at "$p" || continue; a+=(--bind "$p" "$p"); mode[$p]=rw ;;
        4) open_at "$p" && a+=(--ro-bind "$p" "$p"); mode[$p]=ro ;;
        5) hid+=("$p") mode[$p]=h
           if [ -d "$p" ]; then a+=(--perms 0000 --tmpfs "$p")  # (empty; a remount would cost a bind)
           else exec {fd}</dev/null; a+=(--perms 0000 --ro-bind-data "$fd" "$p"); fi ;;
      esac
    done
  done
  # the command gets the environment this launcher was started with (not its own variables), but for
  # what passed() keeps out; bubblewrap itself starts with none (exec -c), so its processes hold none
  mapfile -d '' -t env < /proc/$$/environ
  a+=(--clearenv)
  for x in "${env[@]}"; do passed "${x%%=*}" && a+=(--setenv "${x%%=*}" "${x#*=}"); done
}
"""

_CHECK = r"""# -- the after-command check ------------------------------------------------------------------------
one() {  # E = what the path $1 holds: its type, whether it is a link (its target: LT, after the
  # scan), its content
  E=
  if [ -L "$1" ]; then E=l$'\5'; LQ+=("$1"); LI[$1]=$cur; fi
  if [ -d "$1" ]; then E+=d
  elif [ -f "$1" ]; then A=(); mapfile -d '' A < "$1" 2>/dev/null; E+="f${#A[@]}"$'\3'"${A[*]}"
  elif [ -e "$1" ]; then E+=o
  elif [ -z "$E" ]; then E=n; fi
}
scan() {  # S = what each watched entry holds now (r: each of its names there; h: each hook but the
  # samples, and whether it may run); LT = the target of each link among them (one readlink for
  # all); with $1, what the git configurations include is watched (and scanned) too
  local i=0 p x y A t IFS=$'\4'
  S=() LQ=() LT=() LI=()
  while ((i < ${#WP[@]})); do
    p=${WP[$i]} cur=$i
    case ${WK[$i]} in
      r) F=; for x in "$p"/${RN[${WL[$i]}]}; do one "$x"; F+="${x##*/}"$'\6'"$E"$'\2'; done ;;
      h) F=; if [ -L "$p" ]; then F=$'\7'; LQ+=("$p"); LI[$p]=$i; fi
        for x in "$p"/!(*.sample); do for y in "$x" "$x"/**; do
          [ -f "$y" ] || continue
          one "$y"; F+="${y#"$p"/}"$'\6'; [ -x "$y" ] && F+=x; F+=$'\6'"$E"$'\2'
        done; done ;;
      *) if [ -e "$p" ] || [ -L "$p" ]; then one "$p"; F=$E; else F=n; fi
        [ -n "$1" ] && [ "${WK[$i]}" = g ] && [[ $F == f* ]] && follow "$p" "${F#*$'\3'}" ;;
    esac
    S[$i]=$F; ((++i))
  done
  ((${#LQ[@]})) || return 0
  mapfile -d '' -t t < <(readlink -z -- "${LQ[@]}" 2>/dev/null)
  for i in "${!LQ[@]}"; do LT[${LQ[$i]}]=${t[$i]}; done
}
follow() {  # $1 a git configuration, $2 its text: watch the files it includes, the hooks directory it names
  [[ ${2,,} == *path* ]] || return 0
  local l sec= k v base=${1%/*} wt=${1%/.git/*}
  [ "$wt" = "$1" ] && wt=  # (the work tree, for a repository's own configuration)
  while IFS= read -r l; do
    l=${l##+([[:space:]])}
    if [[ $l == '['* ]]; then sec=${l,,}; sec=${sec%%[[:space:]\"\]]*}; continue; fi
    [[ $l == *=* ]] || continue
    k=${l%%=*}; k=${k%%+([[:space:]])}; k=${k,,}
    v=${l#*=}; v=${v##+([[:space:]])}; v=${v%%+([[:space:]])}; v=${v#\"}; v=${v%\"}; v=${v/#\~\//$H/}
    case $sec:$k in
      '[include:path'|'[includeif:path') [[ $v == /* ]] || v=$base/$v
        res "$v" k && root_of "$r" && watch g "$r" 'git configuration' ;;
      '[core:hookspath') [[ $v == /* ]] || { [ -n "$wt" ] || continue; v=$wt/$v; }
        res "$v" k && root_of "$r" && watch h "$r" 'git hook' ;;
    esac
  done <<< "$2"
}
snapshot() {  # WF = what each watched entry holds now; WR (LR for link targets) = what it is put back
  # to: as another run still running would put it back (so a change that run made and undoes later
  # is never put back by this one), else as it is now
  local f i
  scan follow; WF=("${S[@]}") WR=("${S[@]}") LR=()
  for i in "${!LT[@]}"; do LR[$i]=${LT[$i]}; done
  ours || return 0  # (states are read as bash: only from the directory this user made)
  f=("$D"/*.state); ((${#f[@]})) || return 0
  declare -A IN=() IL=(); inherit "${f[@]}"
  for i in "${!WP[@]}"; do [ -n "${IN[${WP[$i]}]+1}" ] && WR[$i]=${IN[${WP[$i]}]}; done
  for i in "${!IL[@]}"; do LR[$i]=${IL[$i]}; done
}
inherit() {  # IN, IL: what the runs still running (their states $@) would put back
  local f i owner c SR WP WK WL WF WR; local -A LT LR
  for f; do
    owner=; . "$f" 2>/dev/null || continue
    started "${owner% *}" && [ "$T" = "${owner#* }" ] || continue
    for i in "${!WP[@]}"; do [ -n "${IN[${WP[$i]}]+1}" ] || IN[${WP[$i]}]=${WR[$i]-${WF[$i]}}; done
    for i in "${!LR[@]}"; do [ -n "${IL[$i]+1}" ] || IL[$i]=${LR[$i]}; done
  done
}
shown() { SH=${1/#"$H"\//\~/}; SH=${SH//$'\n'/\\n}; }  # (one line: a name may hold a line end)
said() { shown "$1"; rep+=("$SH: $2 ($3: it runs later, outside the sandbox)"); }
chunks() {  # C (N pieces, to be joined with NUL bytes) = the content in fingerprint $1; fails when none
  local x=$1 IFS=$'\4'; C=()
  [[ $x == l$'\5'* ]] && x=${x#l$'\5'}
  [[ $x == f* ]] || return 1
  x=${x#f}; N=${x%%$'\3'*}; x=${x#*$'\3'}
  read -r -d '' -a C <<< "$x"$'\4'; C=("${C[@]:0:N}")
  while ((${#C[@]} < N)); do C+=(""); done
}
undo_file() {  # $1 the path, $2 what it is put back to, $3 what it holds, $4 why (a deletion is kept)
  local p=$1 r=$2 t
  [ "$3" = n ] && return 0
  case $r in
    n) ops+=(rm "$p"); said "$p" "made by the command, removed" "$4" ;;
    l*) t=${LR[$p]-}
      [[ $3 == l* ]] && [ "${LT[$p]-}" = "$t" ] || ops+=(rm "$p" link "$t" "$p")
      chunks "$r" && [ "${r#l}" != "${3#l}" ] && ops+=(fill "$p" - "$N" "${C[@]}")
      said "$p" "changed by the command, put back as it was" "$4" ;;
    f*) [[ $3 == f* ]] || ops+=(rm "$p"); chunks "$r"; ops+=(fill "$p" - "$N" "${C[@]}")
      said "$p" "changed by the command, put back as it was" "$4" ;;
    *) said "$p" "changed by the command; it could not be put back" "$4" ;;
  esac
}
settings() {  # K, V = the key and value of each setting in git configuration text $1; fails when git cannot read it
  local e x; K=() V=()
  mapfile -d '' -t e < <(git config -f - -z --list 2>/dev/null <<< "$1"; printf %s $?)
  [ "${e[-1]}" = 0 ] || return 1
  unset 'e[-1]'
  for x in "${e[@]}"; do K+=("${x%%$'\n'*}"); if [[ $x == *$'\n'* ]]; then V+=("${x#*$'\n'}"); else V+=(""); fi; done
}
runs() { [[ $1 == $GK ]] || { [[ $1 == $GB ]] && [[ $2 == '!'* ]]; }; }
values() {  # X = the values in $1 (each after a \1)
  local rest=$1 v; X=()
  while [ -n "$rest" ]; do rest=${rest#$'\1'}; v=${rest%%$'\1'*}; rest=${rest:${#v}}; X+=("$v"); done
}
undo_git() {  # $1 the path, $2 before, $3 after, $4 what it is put back to: a setting that runs a
  # command and is new since before is put back as it was (removed, if it was not there); the rest kept
  local p=$1 b=$2 r=$4 i k v kb vb new=() back=() fresh
  local -A was now put
  [[ $3 == f* ]] || { undo_file "$p" "$r" "$3" 'git configuration'; return 0; }
  command -v git >/dev/null && settings "${3#*$'\3'}" || { undo_file "$p" "$r" "$3" 'git configuration'; return 0; }
  kb=("${K[@]}") vb=("${V[@]}")
  for k in b r; do
    K=() V=()
    [[ ${!k} != f* ]] || settings "${!k#*$'\3'}" || { undo_file "$p" "$r" "$3" 'git configuration'; return 0; }
    for i in "${!K[@]}"; do if [ $k = b ]; then was[${K[$i]}]+=$'\1'${V[$i]}; else put[${K[$i]}]+=$'\1'${V[$i]}; fi; done
    [ "$r" = "$b" ] && { for i in "${!was[@]}"; do put[$i]=${was[$i]}; done; break; }
  done
  for i in "${!kb[@]}"; do runs "${kb[$i]}" "${vb[$i]}" && now[${kb[$i]}]+=$'\1'${vb[$i]}; done
  if [ "$r" = n ] && ((${#now[@]})); then  # a new file made only for such settings: removed whole
    for i in "${!kb[@]}"; do [ -n "${now[${kb[$i]}]+1}" ] || break; done
    if [ -n "${now[${kb[$i]}]+1}" ]; then ops+=(rm "$p"); said "$p" "made by the command, removed" 'git configuration'; return 0; fi
  fi
  for k in "${!now[@]}"; do
    values "${now[$k]}"; fresh=
    for v in "${X[@]}"; do [[ ${was[$k]}$'\1' == *$'\1'"$v"$'\1'* ]] || fresh=1; done
    [ -n "$fresh" ] || continue
    values "${put[$k]}"; ops+=(git "$p" "$k" "${#X[@]}" "${X[@]}")
    if [ -n "${put[$k]+1}" ]; then back+=("$k"); else new+=("$k"); fi
  done
  local IFS=,
  ((${#new[@]})) && said "$p" "${new[*]//,/, } added by the command, removed; the rest of the file kept" 'a git setting that runs a command'
  ((${#back[@]})) && said "$p" "${back[*]//,/, } changed by the command, put back; the rest of the file kept" 'a git setting that runs a command'
  return 0
}
listed() {  # L = a group's or a hooks directory's fingerprint as name -> what it holds
  local e x IFS=$'\2'; L=()
  read -r -d '' -a x <<< "${1#$'\7'}"  # (split, never globbed: the content may hold * and [)
  for e in "${x[@]}"; do [[ $e == *$'\6'* ]] && L[${e%%$'\6'*}]=${e#*$'\6'}; done
}
undo_names() {  # $1 the directory, $2 before, $3 after, $4 r (its names) or h (its hooks), $5 its
  # index in RD, $6 what it is put back to: each name made removed, each changed put back (a deletion
  # is kept)
  local p=$1 n b a why
  if [ "$4" = h ] && [[ $3 == $'\7'* ]] && { [[ $2 != $'\7'* ]] || [ "${LB[$p]-}" != "${LT[$p]-}" ]; }; then
    ops+=(rm "$p"); said "$p" "linked elsewhere by the command, the link removed" 'git hooks'; return 0
  fi
  local -A L was put; listed "$2"; for n in "${!L[@]}"; do was[$n]=${L[$n]}; done
  listed "$6"; for n in "${!L[@]}"; do put[$n]=${L[$n]}; done
  listed "$3"
  for n in "${!L[@]}"; do
    [ "${was[$n]-}" = "${L[$n]}" ] && continue
    if [ "$4" = h ]; then why='a git hook'; else why=${WHY[$5/$n]:-what runs later}; fi
    if [ -z "${put[$n]+1}" ]; then ops+=(rm "$p/$n"); said "$p/$n" "made by the command, removed" "$why"; continue; fi
    b=${put[$n]} a=${L[$n]}
    [ "$4" = h ] && b=${b#*$'\6'} a=${a#*$'\6'}
    [ "$b" = "$a" ] || undo_file "$p/$n" "$b" "$a" "$why"
    [ "$4" = h ] && ops+=(mode "$p/$n" "${put[$n]%%$'\6'*}")
  done
}
moved() {  # whether a directory between a writable root and $1 (with $2, $1 too) is now a link
  # (put in place of a directory)
  local x=${1%/*}; [ -n "$2" ] && x=$1
  root_of "$1" || return 1
  while [[ $x == "${root%/}"/* ]]; do
    if [ -L "$x" ]; then
      ops+=(rm "$x"); shown "$x"
      rep+=("$SH: a link the command put in place of a directory, removed (what runs later must not lead elsewhere)")
      return 0
    fi
    x=${x%/*}
  done
  return 1
}
after() {  # compare with the state before; undo (confined) what would run later; rep = what was undone
  local i k n=${#WP[@]} b r out
  local -A changed LB
  ops=() rep=()
  for k in "${!LT[@]}"; do LB[$k]=${LT[$k]}; done
  projects; scan
  for i in "${!WP[@]}"; do
    if ((i < n)); then b=${WF[$i]-}; elif [[ ${WK[$i]} == [hr] ]]; then b=; else b=n; fi
    [ "${S[$i]}" = "$b" ] || changed[$i]=$b
  done
  for k in "${!LT[@]}"; do [ "${LT[$k]}" = "${LB[$k]-}" ] || changed[${LI[$k]}]=${WF[${LI[$k]}]-n}; done
  for i in "${!changed[@]}"; do
    b=${changed[$i]}
    moved "${WP[$i]}" "${WK[$i]/[fgh]/}" && continue
    r=$b; ((i < n)) && r=${WR[$i]-$b}  # (what a run before this one would put back, if one was running)
    case ${WK[$i]} in
      f) undo_file "${WP[$i]}" "$r" "${S[$i]}" "${WL[$i]}" ;;
      g) undo_git "${WP[$i]}" "$b" "${S[$i]}" "$r" ;;
      [hr]) undo_names "${WP[$i]}" "$b" "${S[$i]}" "${WK[$i]}" "${WL[$i]}" "$r" ;;
    esac
  done
  ((${#ops[@]})) || return 0
  ((${#a[@]})) || mounts
  out=$(exec -c "$bw" "${a[@]}" -- bash -c "$UNDO" wslmcp-undo "${ops[@]}" 2>&1)
  [ -n "$out" ] && rep+=("some of it could not be undone: ${out//$'\n'/; }")
  return 0
}
UNDO='while (($#)); do
  case $1 in
    rm) rm -rf -- "$2"; shift 2 ;;
    link) ln -s -- "$2" "$3"; shift 3 ;;
    fill) p=$2 x=$3 n=$4; shift 4
      { while ((n > 0)); do printf %s "$1"; shift; ((--n)) && printf "\0"; done; } > "$p" ;;
    mode) case $3 in x) chmod +x -- "$2" ;; *) chmod -x -- "$2" ;; esac; shift 3 ;;
    git) p=$2 k=$3 n=$4; shift 4; git config --file "$p" --unset-all "$k"
      while ((n-- > 0)); do git config --file "$p" --add "$k" "$1"; shift; done ;;
    *) shift ;;
  esac
done'
ours() { [ -d "$D" ] && [ -O "$D" ] && [ ! -L "$D" ]; }  # the state directory is this user's own
state_dir() { { [ -d "$D" ] || mkdir -m 700 -- "$D"; } 2>/dev/null && ours; }
started() {  # T = when process $1 started; fails when it is gone (or a zombie)
  local l; { read -r l < "/proc/$1/stat"; } 2>/dev/null || return 1
  l=${l##*) }; [[ $l != [ZX]* ]] || return 1
  local IFS=' '; set -- $l; T=${20}
}
watcher() {  # after bubblewrap: the check, reported on stderr (tagged) or in the report file
  trap '' INT TERM HUP PIPE
  local l pid= done= text sf=
  state_dir && started "$BASHPID" && sf=$D/$tok.state &&
    { SR=("${wr[@]}"); declare -p SR WP WK WL WF WR LT LR; printf 'c=%q\nowner=%q\n' "$c" "$BASHPID $T"; } > "$sf"
  while IFS= read -r l; do
    [[ $l =~ \"child-pid\":\ ([0-9]+) ]] && pid=${BASH_REMATCH[1]}
    [[ $l == *exit-code* ]] && done=1
  done
  if [ -z "$done" ] && [ -n "$pid" ]; then  # killed: wait for its PID namespace to be gone
    for l in {1..300}; do started "$pid" || break; sleep 0.01; done
  fi
  after
  if ((${#rep[@]})); then
    printf -v text '%s\n' "${rep[@]}"
    # (the report file, for a call whose output nobody reads any more, or that has no tag: a
    # background process's, handed over by the check of its next read)
    { [ -n "$tag" ] && printf '\0%s\n%s\0' "$tag" "$text" >&2 2>/dev/null; } ||
      { [ -n "$sf" ] && printf %s "$text" >> "$D/$tok.report"; }
  fi
  exec >&- 2>&-
  [ -n "$sf" ] && rm -f -- "$sf"
}
"""

_MODES = r"""# -- the modes ---------------------------------------------------------------------------------------
recover() {  # the check of the runs named in $1 (*: every run whose watcher is gone), now; $2 each line's head
  local tok sf every= live owner x
  ours || return 0
  [ "$1" = '*' ] && { every=1; set -- "$(for x in "$D"/*.state; do x=${x##*/}; echo "${x%.state}"; done)" "$2"; }
  for tok in $1; do
    [[ $tok == +([0-9a-f]) ]] || continue
    sf=$D/$tok.state owner=
    if [ -f "$sf" ]; then
      SR=() WP=() WK=() WL=() WF=() WR=() LT=() LR=(); . "$sf"
      [ "${SR[*]}" = "${wr[*]}" ] || continue  # (another server's, with other writable roots: its own)
      live=; started "${owner% *}" && [ "$T" = "${owner#* }" ] && live=1
      if [ -z "$live" ] || [ -z "$every" ]; then after; ((${#rep[@]})) && printf "$2%s\n" "${rep[@]}"; fi
      [ -n "$live" ] || rm -f -- "$sf"
    fi
    [ -f "$D/$tok.report" ] && { mapfile -t x < "$D/$tok.report"; printf "$2%s\n" "${x[@]}"; rm -f -- "$D/$tok.report"; }
  done
  [ -n "$every" ] && find "$D" -maxdepth 1 -name '*.report' -mmin +60 -delete 2>/dev/null
  return 0
}
[ "$m" = check ] && { recover "$s" ""; exit 0; }
mounts
ulimit -f "$FSIZE" 2>/dev/null
if [ "$m" = probe ]; then
  printf 'home=%s\nbwrap=%s\nkernel=%s\nuserns=%s\n' "$H" "$bw" \
    "$(cat /proc/sys/kernel/osrelease 2>/dev/null)" "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)"
  for x in apt-get dnf yum zypper pacman apk; do command -v $x >/dev/null && { printf 'installer=%s\n' $x; break; }; done
  [ -n "$bw" ] || exit 0
  printf 'version=%s\n' "$("$bw" --version 2>/dev/null)"
  e=$("$bw" "${a[@]}" -- true 2>&1); printf 'status=%s\nerror=%s\n' $? "${e//$'\n'/ }"
  [ "$CHECK" = 1 ] && recover '*' 'undone='  # (the checks that runs of servers since gone left undone)
  exit 0
fi
if [ "$m" = own ] || [ "$m" = kept ]; then
  # (kept: a person approved what the command changes that runs later; no writable root, as in
  # read-only mode: nothing to check)
  [ "$m" = own ] && [ "$CHECK" = 1 ] && ((${#wr[@]})) && {
    printf -v tok '%08x%08x' "$SRANDOM" "$SRANDOM"
    [[ $s =~ ^export\ WSLMCP_RUN=([0-9a-f]+) ]] && tok=${BASH_REMATCH[1]}
    projects; snapshot
    cd -- "$here" 2>/dev/null || cd /
    exec {st}> >(set -m; watcher <&0 &)
    a+=(--json-status-fd "$st")
  }
  s="ulimit -u $NPROC 2>/dev/null; $s"
fi
exec -c "$bw" "${a[@]}" -- bash "$f" "$s"
"""
