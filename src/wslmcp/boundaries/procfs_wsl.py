"""A WSL distribution's /proc read through ``wsl.exe``: one call per sample, never one per file.

Contract (the same as ``procfs.ProcSource``, but asynchronous because it runs a process, so it
has the async name ``read`` of ``observe.sources.SampleReader``; ``read_sample`` is always sync)
--------
``await WslProcSource(wsl_exe, distro).read() -> ProcSample``
    Runs ``wsl.exe [-d DISTRO] --exec sh -s`` once with ``SAMPLE_SCRIPT`` on stdin. The script
    prints a random per-call marker, ``getconf CLK_TCK``/``PAGESIZE``, then every global file,
    every ``/proc/<pid>/{stat,cmdline,io}`` and the target of every ``/proc/<pid>/cwd``, each framed by ``\\n<marker> F <path>\\n`` and ending
    with ``\\n<marker> END\\n``. The marker is drawn inside the distro for each call, so no
    process name or command line can forge a frame; file bytes pass through untouched (NULs,
    newlines, invalid UTF-8, a cmdline without its final NUL). A file that vanished mid-read is
    absent (the fallback reader marks it ``<marker> X``), as with ``LocalProcSource``.
    ``distro=None`` reads the default distribution. (``sh -s ROOT`` reads a directory laid out
    like /proc instead; tests and the benchmark use that.)
Cost inside the distro
    One sample starts a fixed set of processes however many processes the distro has: ``sh``,
    ``getconf`` twice and one reader — ``perl`` when present (Essential on Debian/Ubuntu), else
    ``bash`` builtins. Only a distro with neither (e.g. a bare Alpine) falls back to one ``cat``
    per file, the slow but always-available path.
Errors
    ``ProcUnavailable`` when wsl.exe fails, times out, or its output is truncated or unframed (the
    message carries wsl.exe's own text, decoded from UTF-16LE or UTF-8).

``await WslDistroLister(wsl_exe).running() -> list[str]``
    ``wsl.exe --list --running --quiet``: one name per line (UTF-16LE or UTF-8). It fails as a
    sample does: ``ProcUnavailable`` with wsl.exe's message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection

from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.procfs import GLOBAL_FILES, ProcSample, ProcUnavailable
from wslmcp.boundaries.wsl_exe import WslCall, WslExe, decode_wsl_output

SAMPLE_TIMEOUT_S = 10.0
LIST_TIMEOUT_S = 10.0
MAX_SAMPLE_BYTES = 64 * 1024 * 1024

_GLOBALS = " ".join(GLOBAL_FILES)

# Perl (Essential on Debian/Ubuntu, so nearly every distro): reads whole files with sysread, exactly
# like LocalProcSource (an open or read error = the file vanished), buffers the whole sample and
# prints it once. No single quotes: the program is one sh-quoted argument.
_PERL_READER = (
    r"""my ($n, $r) = @ARGV; my $o = "";
sub rd { open(my $h, "<:raw", $_[0]) or return undef; my $c = "";
  while (1) { my $k = sysread($h, $c, 65536, length $c); return undef unless defined $k; last unless $k }
  return $c }
for my $f (qw("""
    + _GLOBALS
    + r""")) { my $c = rd("$r/$f"); $o .= "\n$n F $f\n$c" if defined $c }
opendir(my $dh, $r) or exit 1;
for my $p (sort grep { /^[0-9]+\z/ } readdir $dh) {
  my $s = rd("$r/$p/stat"); next unless defined $s && length $s;
  $o .= "\n$n F $p/stat\n$s";
  for my $f (qw(cmdline io)) { my $c = rd("$r/$p/$f"); $o .= "\n$n F $p/$f\n$c" if defined $c }
  my $w = readlink("$r/$p/cwd"); $o .= "\n$n F $p/cwd\n$w" if defined $w }
binmode STDOUT; print($o, "\n$n END\n") or exit 1;"""
)

# Bash builtins only (no process per file). A variable cannot hold a NUL, so cmdline is read one
# NUL-terminated argument at a time and re-emitted with its NULs; a last piece without a NUL
# (setproctitle) is re-emitted without one. stat and the global files hold no NUL: one read each.
# An empty stat means the process vanished (skipped); an empty cmdline of a process that is gone
# by then is dropped, as LocalProcSource drops a cmdline whose read failed.
_BASH_READER = (
    r"""N=$1 R=$2
for f in """
    + _GLOBALS
    + r"""; do
  o= c=
  { o=1; IFS= read -r -d "" c; } 2>/dev/null <"$R/$f"
  [ -n "$o" ] && printf "\n%s F %s\n%s" "$N" "$f" "$c"
done
for d in "$R"/[0-9]*; do
  p=${d##*/} s=
  { IFS= read -r -d "" s; } 2>/dev/null <"$d/stat"
  [ -n "$s" ] || continue
  printf "\n%s F %s/stat\n%s" "$N" "$p" "$s"
  o= a=() x=
  { o=1; while IFS= read -r -d "" x; do a+=("$x"); x=; done; } 2>/dev/null <"$d/cmdline"
  if [ -n "$o" ] && { [ ${#a[@]} -gt 0 ] || [ -n "$x" ] || [ -e "$d/stat" ]; }; then
    printf "\n%s F %s/cmdline\n" "$N" "$p"
    [ ${#a[@]} -eq 0 ] || printf "%s\0" "${a[@]}"
    printf "%s" "$x"
  fi
  o= c=
  { o=1; IFS= read -r -d "" c; } 2>/dev/null <"$d/io"
  [ -n "$o" ] && printf "\n%s F %s/io\n%s" "$N" "$p" "$c"
  if cd -P "$d/cwd" 2>/dev/null; then printf "\n%s F %s/cwd\n%s" "$N" "$p" "$PWD"; cd /; fi
done
printf "\n%s END\n" "$N"
"""
)

# Runs under any POSIX sh (`sh -s [ROOT]`, ROOT defaulting to /proc). The marker comes from the
# kernel's random UUID through the read builtin (od | tr only if that is unreadable). Then the
# fastest reader the distro has: perl, else bash builtins, else one cat per file (slow, but right).
# With perl or bash one sample starts a fixed set of processes (sh, getconf twice, the reader).
SAMPLE_SCRIPT = (
    r"""export LC_ALL=C
R=${1:-/proc}
case $R in /*) ;; *) R=$PWD/$R ;; esac
N=
IFS=- read -r u1 u2 u3 u4 u5 2>/dev/null </proc/sys/kernel/random/uuid && N=$u1$u2$u3$u4$u5
case $N in *[!0-9a-f]*) N= ;; esac
[ ${#N} -ge 16 ] || N=$(od -An -N16 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n')
[ -n "$N" ] || N="m$$$(date +%s%N)"
printf 'WSLMCP1 %s\nCLK_TCK %s\nPAGESIZE %s\n' "$N" "$(getconf CLK_TCK 2>/dev/null)" "$(getconf PAGESIZE 2>/dev/null)"
if command -v perl >/dev/null 2>&1 && perl -e '"""
    + _PERL_READER
    + r"""' "$N" "$R" </dev/null; then exit 0; fi
if command -v bash >/dev/null 2>&1; then exec bash -c '"""
    + _BASH_READER
    + r"""' wslmcp-sample "$N" "$R" </dev/null; fi
for f in """
    + _GLOBALS
    + r"""; do
  [ -r "$R/$f" ] || continue
  printf '\n%s F %s\n' "$N" "$f"
  cat "$R/$f" 2>/dev/null || printf '\n%s X\n' "$N"
done
for d in "$R"/[0-9]*; do
  p=${d##*/}
  printf '\n%s F %s/stat\n' "$N" "$p"
  cat "$d/stat" 2>/dev/null || { printf '\n%s X\n' "$N"; continue; }
  for f in cmdline io; do
    printf '\n%s F %s/%s\n' "$N" "$p" "$f"
    cat "$d/$f" 2>/dev/null || printf '\n%s X\n' "$N"
  done
  w=$(readlink "$d/cwd" 2>/dev/null) && printf '\n%s F %s/cwd\n%s' "$N" "$p" "$w"
done
printf '\n%s END\n' "$N"
"""
).encode()
assert b"'" not in (_PERL_READER + _BASH_READER).encode()  # each is one single-quoted sh word

#: SHA-256 of the earlier versions of ``SAMPLE_SCRIPT`` (before it read the pressure files, ``io``
#: and ``cwd``). A recorded exchange holds the digest of the script it answered; the twin
#: (``wslmcp.fakes.wsl_exe``) answers today's script with an exchange recorded for one of these, whose
#: frames simply hold fewer files (the figures they would give are null, with a warning).
EARLIER_SAMPLE_SCRIPTS = frozenset({"e8a9b708b2e04df1e9ef822627fd2200b136ead0f7729b46b4975825cead0f69"})
SAMPLE_SCRIPT_SHA256 = hashlib.sha256(SAMPLE_SCRIPT).hexdigest()

_MARKER = re.compile(rb"WSLMCP1 ([0-9A-Za-z]{8,64})\n")


def sample_args(distro: str | None) -> list[str]:
    return [*(["-d", distro] if distro else []), "--exec", "sh", "-s"]


LIST_ARGS = ["--list", "--running", "--quiet"]


def parse_framed_sample(data: bytes) -> ProcSample:
    """Turn the sample script's output back into a ``ProcSample``; raises ``ProcUnavailable``."""
    head = _MARKER.match(data)
    if head is None:
        raise ProcUnavailable("wsl.exe /proc sample: output does not start with the sample marker")
    sep = b"\n" + head.group(1) + b" "
    parts = data[head.end() :].split(sep)
    if parts[-1] != b"END\n":
        raise ProcUnavailable("wsl.exe /proc sample: output is truncated (no end marker)")
    settings = dict(line.split(b" ", 1) for line in parts[0].splitlines() if b" " in line)
    files: dict[str, bytes] = {}
    last: str | None = None
    for part in parts[1:-1]:
        if part.startswith(b"F "):
            header, _, content = part.partition(b"\n")
            last = header[2:].decode("ascii", errors="replace")
            files[last] = content
        elif part.startswith(b"X") and last is not None:
            files.pop(last, None)
            last = None
        else:
            raise ProcUnavailable("wsl.exe /proc sample: unexpected frame in the output")
    return ProcSample.build(
        files,
        clk_tck=_positive(settings.get(b"CLK_TCK"), 100),
        page_size=_positive(settings.get(b"PAGESIZE"), 4096),
    )


def _positive(raw: bytes | None, default: int) -> int:
    try:
        value = int((raw or b"").strip())
    except ValueError:
        return default
    return value if value > 0 else default


async def _call(
    wsl_exe: WslExe,
    what: str,
    args: list[str],
    *,
    stdin: bytes | None = None,
    timeout_s: float = LIST_TIMEOUT_S,
    max_output: int,
) -> Exchange:
    """Run wsl.exe once; every way it can fail (not found, deadline, non-zero exit, output past
    ``max_output``) becomes ``ProcUnavailable`` saying what failed, in wsl.exe's own words when it
    has any."""
    try:
        ex = await wsl_exe.run(WslCall(args, stdin=stdin, timeout_s=timeout_s, max_output=max_output))
    except FileNotFoundError as exc:
        raise ProcUnavailable(f"{what}: wsl.exe not found") from exc
    if ex.timed_out:
        raise ProcUnavailable(f"{what}: wsl.exe timed out")
    if ex.exit_code != 0:
        message = decode_wsl_output(ex.stderr).strip() or decode_wsl_output(ex.stdout).strip()
        raise ProcUnavailable(f"{what}: wsl.exe exited with {ex.exit_code}: {message[:500] or 'no message'}")
    if ex.truncated:
        raise ProcUnavailable(f"{what}: output larger than {max_output} bytes")
    return ex


class WslProcSource:
    """One distribution's /proc, sampled through wsl.exe."""

    def __init__(self, wsl_exe: WslExe, distro: str | None) -> None:
        self._wsl, self.distro = wsl_exe, distro

    async def read(self, light_for: Collection[int] = ()) -> ProcSample:
        """The whole sample, always: one wsl.exe call reads every file (``light_for`` saves nothing)."""
        what = f"/proc of WSL distribution {self.distro or '(default)'}"
        ex = await _call(
            self._wsl,
            what,
            sample_args(self.distro),
            stdin=SAMPLE_SCRIPT,
            timeout_s=SAMPLE_TIMEOUT_S,
            max_output=MAX_SAMPLE_BYTES,
        )
        try:
            return parse_framed_sample(ex.stdout)
        except ProcUnavailable as exc:
            raise ProcUnavailable(f"{what}: {exc}") from exc


class WslDistroLister:
    def __init__(self, wsl_exe: WslExe) -> None:
        self._wsl = wsl_exe

    async def running(self) -> list[str]:
        ex = await _call(self._wsl, "listing running WSL distributions", LIST_ARGS, max_output=1024 * 1024)
        names = (line.strip() for line in decode_wsl_output(ex.stdout).split("\n"))
        return [n for n in names if n]


DEFAULT_NAME_ARGS = ["--exec", "sh", "-c", 'printf "%s" "$WSL_DISTRO_NAME"']


async def default_distro(wsl_exe: WslExe) -> str | None:
    """The name of WSL's default distribution (``$WSL_DISTRO_NAME`` inside it), None when wsl.exe
    answers but names none; raises ``ProcUnavailable`` when wsl.exe fails."""
    ex = await _call(wsl_exe, "finding the default WSL distribution", DEFAULT_NAME_ARGS, max_output=64 * 1024)
    name = ex.stdout.decode("utf-8", errors="replace").strip()
    return name or None
