"""The guard's command vocabulary: what it knows about each program, written once.

Every layer (wrappers, effects, rules, the engine, static expansion) reads this module; none keeps
its own name list or option spec. Per program it holds:

- ``short``/``long``: the options that take a value (``-p VALUE``, ``--property VALUE``), so every
  layer finds the same operands (``systemctl -P Id poweroff`` and ``-p Id poweroff`` read alike);
- ``families``: what kind of program it is (shell, interpreter, wrapper, deleter, formatter,
  power, package manager, service manager…);
- ``info``: its help, version and dry-run forms, which run nothing dangerous (``reboot --help``,
  ``mkfs.ext4 -n DEV``);
- ``code``: for interpreters, the option letters whose value is program text (``python -c``).

Read-only verb sets (``READS``) are per program too. The tables are data: one program per line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


def words(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (data reads as data)."""
    return frozenset(text.split())


# --------------------------------------------------------------------- value-taking options
# name[,alias…]   short letters taking a value ("-" for none)   long options taking a value
# ("tool+verb" is the verb's own options: "tmux+new", "conda+run")
_OPTIONS = """
sudo              ugpChDRrtTU     user group prompt close-from host chdir chroot role type command-timeout other-user
doas              uC              -
pkexec            -               user
su,runuser        cgGsuw          command group supp-group shell user whitelist-environment session-command
chroot            -               userspec groups
nsenter           tSGw            target setuid setgid wd root wdns
systemd-run,run0  pEMHuS          property setenv machine host unit uid gid nice working-directory description slice on-active on-boot on-calendar on-unit-active on-startup timer-property path-property socket-property service-type expand-environment
setpriv           -               reuid regid ruid euid rgid egid groups inh-caps ambient-caps bounding-set securebits selinux-label apparmor-profile
unshare           -               mount-proc map-user map-group setuid setgid wd root propagation setgroups
systemd-inhibit   -               what who why mode
ssh-agent         aEPt            -
env               uCS             unset chdir split-string
nice              n               adjustment
ionice            cnpPu           class classdata pid pgid uid
chrt              TPD             sched-runtime sched-period sched-deadline
timeout           sk              signal kill-after
stdbuf            ioe             input output error
time              fo              format output
strace,ltrace     oeEpsuSPIXabOU  output
numactl           CmNpiP          cpunodebind membind physcpubind interleave preferred
proxychains       f               -
cgexec            g               -
flock             wEc             timeout conflict-exit-code command
watch             nq              interval equexit
xargs             aEdILnPsR       arg-file delimiter max-lines max-args max-procs max-chars process-slot-var replace eof
parallel          jSdIaEX         jobs sshlogin delimiter arg-file joblog results timeout
sg                c               -
script            cEIOBT          command echo log-in log-out log-io log-timing
exec              a               -
expect            cfbiD           -
at,batch          qfmMt           -
shred             ns              iterations size random-source
touch             dtr             date reference time
mkdir             m               mode context
mknod,mkfifo      m               -
truncate          sr              size reference
fallocate         lonx            length offset
chattr            vpR             -
patch             pdoiDFBVrYz     strip directory output input reject-file
chmod,chgrp       -               reference
chown             -               reference from
setfacl           mMxX            modify modify-file remove remove-file set set-file
cp,ln             tS              target-directory suffix mode owner group
mv                tS              target-directory suffix
install           tSmgoB          target-directory suffix mode owner group
rsync             eBfT            rsh filter exclude include exclude-from include-from files-from rsync-path temp-dir partial-dir log-file password-file chmod chown backup-dir suffix max-size min-size bwlimit timeout port out-format compare-dest link-dest copy-dest
scp               cFiJloPS        -
tar,bsdtar        fCTXbgKLNVIH    file directory files-from exclude-from exclude transform owner group mode mtime newer label use-compress-program blocking-factor format xform listed-incremental checkpoint-action to-command info-script new-volume-script
unzip             dxP             -
gzip,gunzip,bzip2,bunzip2,xz,unxz,zip  S  suffix
zstd,unzstd,lz4   oS              output suffix
sed               efl             expression file line-length
perl,ruby         eEIlMmx0        -
uniq              fsw             skip-fields skip-chars check-chars
sort              kotST           key output field-separator temporary-directory buffer-size compress-program
zip               bnOt            unzip-command temp-path suffixes output-file
curl              odDeEhHKmuUxXyYzCPrTwAbcFQ  output dump-header cookie-jar output-dir upload-file data header user request proxy referer user-agent cookie form config max-time connect-timeout retry range write-out cacert cert key data-binary data-raw data-urlencode url resolve
wget              OoaPtTwQeUYiBlADRIXbd  output-document output-file append-output directory-prefix tries timeout wait quota execute user-agent input-file base level accept domains reject include-directories exclude-directories header post-data post-file user password
awk,gawk,mawk,nawk  fvFi          file assign field-separator include
git               Cc              git-dir work-tree namespace exec-path config-env super-prefix
systemctl,loginctl  HMtpnosP      host machine type property lines output signal state root kill-whom job-mode
docker,podman,nerdctl  Hcl        host context config log-level tlscacert tlscert tlskey
kubectl,oc        ns              namespace context kubeconfig server cluster user token as
crontab           u               -
vi,vim,nvim,nano,emacs,ex,ed,pico,micro,sudoedit  cSuiTw  cmd
apt,apt-get,aptitude  ocCpt       option config-file target-release
pip,pip3          tcr             target prefix root config-settings requirement constraint index-url extra-index-url
npm,pnpm,yarn     C               prefix dir cwd
make              CfjIloE         directory file makefile jobs include-dir eval
cmake             CDGSBTAP        -
ninja             Cfjlk           -
grep,egrep,fgrep,rg,ag,ack,jq,yq  efmABCdDFtIx  regexp file max-count context after-context before-context
ssh               bcDEeFIiJLlmOoPpQRSWw  -
split             ablnt           suffix-length bytes lines line-bytes number additional-suffix filter separator
venv,virtualenv   p               prompt python
mkfs,mke2fs,mkfs.ext2,mkfs.ext3,mkfs.ext4  bCEgGiIJLMmNOortTUdez  -
dbus-send         -               dest type reply-timeout
xvfb-run          sfnpe           server-args server-num auth-file error-file
valgrind          -               -
cpulimit          lpe             limit pid exe
chpst             ugUenlmdofpcr   -
screen            SsctpTeh        -
hyperfine         wrmMpscnNu      warmup runs min-runs max-runs prepare setup cleanup conclude command-name shell export-json export-csv export-markdown parameter-scan parameter-list
tmux+new          sntcxyFeE       -
tmux+send-keys    tN              -
nix-shell         pIAE            packages include attr expr arg argstr run command
conda+run,mamba+run,micromamba+run  np  name prefix cwd
poetry+run,pipenv+run,uv+run  -   directory python with project env-file
npm+exec,pnpm+exec,yarn+exec  -   package call workspace
nix+develop       c               command
gdb               x               -
busctl            -               address machine host
rtcwake           mdstA           mode device seconds time adjfile
"""  # fmt: skip

# --------------------------------------------------------------------- families
_FAMILIES = """
shell          sh bash dash zsh ksh ash mksh yash posh rbash busybox-sh fish csh tcsh
interpreter    python python2 python3 perl ruby node nodejs php deno lua luajit Rscript julia
deleter        rm shred srm wipe unlink
formatter      mkfs mke2fs mkswap mkdosfs mkntfs mkexfatfs
disk           fdisk sfdisk parted sgdisk wipefs blkdiscard
power          shutdown reboot poweroff halt pm-suspend pm-hibernate pm-suspend-hybrid s2ram s2disk s2both zzz ZZZ
power_cmdlet   restart-computer stop-computer
runlevel       init telinit
service        systemctl loginctl
privilege      sg newgrp sudo sudoedit su doas pkexec runuser chroot nsenter systemd-run run0 machinectl setpriv capsh
text           echo printf
pattern_first  grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq
awk            awk gawk mawk nawk
editor         vi vim nvim nano emacs ex ed pico micro sudoedit view gvim
vim            vi vim nvim ex view gvim
ownership      chmod chown chgrp
metadata       chmod chown chgrp setfacl chattr touch
overwrites_ok  mv sed perl ruby chmod chown chgrp setfacl touch vi vim nvim nano emacs ed ex sudoedit
firewall       iptables ip6tables nft ufw firewall-cmd
package        apt apt-get aptitude yum dnf zypper apk snap brew npm pnpm yarn pip pip3 pipx gem composer bundle cargo helm
cwd_package    npm pnpm yarn cargo composer bundle
account        useradd usermod userdel groupadd groupmod groupdel adduser deluser addgroup delgroup gpasswd chsh chfn
sourcer        source .
declarer       export declare local readonly typeset
container      docker podman nerdctl
interop        wslview
powershell     powershell pwsh
env_printer    ssh-agent pyenv rbenv nodenv goenv direnv dircolors brew conda mamba micromamba fnm zoxide starship mise rtx keychain opam thefuck
scheduler      at batch
evaluator      eval
shell_state    cd pushd popd export unset
line_reader    read
unlinker       rm shred srm wipe unlink mv
bracket        [ [[
implicit       cd pwd true false : exit export unset test [
stdin_commands sqlite3 mysql mariadb psql ed red
builtin        cd echo printf pwd true false : test [ export unset set read eval exec source . type command builtin local declare typeset readonly alias unalias exit return shift trap wait jobs fg bg kill ulimit umask hash history let mapfile readarray getopts
"""  # fmt: skip

# Option letters whose value is program text, per interpreter.
CODE_OPTIONS: dict[str, str] = {
    "python": "c", "python2": "c", "python3": "c", "perl": "eE", "ruby": "e",
    "node": "ep", "nodejs": "ep", "php": "r", "deno": "", "lua": "e", "luajit": "e", "Rscript": "e", "julia": "e",
}  # fmt: skip

LAUNCH_VERBS: dict[str, tuple[str, ...]] = {
    "poetry": ("run",), "pipenv": ("run",), "uv": ("run",), "conda": ("run",), "mamba": ("run",),
    "micromamba": ("run",), "bundle": ("exec",), "npm": ("exec",), "pnpm": ("exec", "dlx"),
    "yarn": ("exec", "dlx"), "direnv": ("exec",), "asdf": ("exec",), "mise": ("exec", "x"),
    "rtx": ("exec", "x"), "pyenv": ("exec",), "rbenv": ("exec",), "nodenv": ("exec",), "nix": ("develop",),
}  # fmt: skip
"""Tools whose verb runs the command that follows (``poetry run CMD``, ``bundle exec CMD``)."""

FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
"""find actions that run a command on each file found."""

WINDOWS_EXTENSIONS = (".exe", ".bat", ".cmd", ".com", ".ps1", ".msi", ".vbs", ".scr")

# --------------------------------------------------------------------- help, version, dry run
# Forms that print and exit (or only simulate). ``*`` applies to every program of the families
# named on the right; a per-program line adds its own.
INFO_EVERYWHERE = frozenset({"--help", "--version", "--usage"})
_INFO = """
shutdown,reboot,poweroff,halt        --help --version
mkfs,mke2fs,mkfs.ext2,mkfs.ext3,mkfs.ext4  -V -n --help --version
mkfs.xfs                             -V -N --help
mkfs.btrfs,mkfs.vfat,mkfs.fat,mkfs.exfat,mkfs.ntfs,mkswap,mkdosfs,mkntfs,mkexfatfs  -V --help --version
fdisk,sfdisk,parted,sgdisk,wipefs,blkdiscard  -V --version -h --help
rsync                                -n --dry-run --list-only
make                                 -n --dry-run --just-print --recon -q --question
modprobe                             -n --dry-run
apt,apt-get,aptitude,yum,dnf,zypper  -s --simulate --dry-run --just-print --recon --no-act --assumeno
"""  # fmt: skip


# --------------------------------------------------------------------- power
POWER_VERBS = words(
    "poweroff reboot halt kexec suspend hibernate hybrid-sleep suspend-then-hibernate "
    "emergency rescue soft-reboot exit"
)
POWER_TARGETS = words(
    "poweroff.target reboot.target halt.target kexec.target rescue.target emergency.target "
    "runlevel0.target runlevel6.target runlevel1.target suspend.target hibernate.target "
    "sleep.target soft-reboot.target ctrl-alt-del.target hybrid-sleep.target "
    "suspend-then-hibernate.target exit.target"
)
UNIT_STARTERS = words("isolate start restart reload-or-restart try-restart enable --now")
# D-Bus methods of logind and systemd that power off, reboot or suspend (dbus-send, busctl, gdbus).
POWER_METHODS = re.compile(
    r"\b(PowerOff|Reboot|Halt|Suspend|Hibernate|HybridSleep|SuspendThenHibernate|KExec|SoftReboot)"
    r"(WithFlags)?\b"
)

# --------------------------------------------------------------------- read-only verbs
_READS = """
systemctl   - status show cat list-units list-unit-files list-sockets list-timers list-jobs list-dependencies list-machines is-active is-enabled is-failed is-system-running help get-default show-environment --version
loginctl    - list-sessions session-status show-session list-users user-status show-user list-seats seat-status show-seat --version --help
"""  # fmt: skip


# Package managers: whether running with no verb only reads, then the verbs that only read.
_PACKAGE_READS = """
apt        no   changelog depends help list moo policy rdepends search show showsrc
apt-get    no   changelog check help indextargets
aptitude   no   changelog help search show versions why why-not
yum        no   check-update deplist help history info list provides repolist search whatprovides
dnf        no   check-update deplist help history info list provides repolist repoquery search
zypper     no   help if info list-updates lr lu pa packages patches repos se search
apk        no   dot help info list policy search stats
snap       yes  changes connections find help info interfaces list logs search services version
brew       yes  --cellar --prefix --version config deps desc doctor help home info leaves list ls outdated search uses
npm        yes  bin bugs config docs doctor explain fund get help info la list ll ls outdated ping prefix query repo root s search show v version view whoami why
pnpm       no   audit bin config help info la licenses list ll ls outdated root search view why
yarn       no   audit bin config help info licenses list outdated owner versions why workspaces
pip        yes  cache check completion config debug freeze hash help index inspect list search show
pip3       yes  cache check completion config debug freeze hash help index inspect list search show
pipx       yes  environment help list
gem        yes  contents dependency env environment help info list outdated query search spec specification which
composer   yes  about check-platform-reqs config depends diagnose fund help info licenses list outdated prohibits search show status suggests validate why why-not
bundle     no   check config doctor help info list outdated platform show version
cargo      yes  --list --version -V help locate-project metadata pkgid read-manifest search tree verify-project version
helm       yes  env get help history lint list ls search show status template verify version
"""  # fmt: skip

# Verbs of a reading subcommand (``npm config``, ``pip cache``) that write after all.
SUBVERB_WRITES = words("set delete del rm remove edit unset add purge clean fix prune")

# Options naming where a package manager installs (written, so /mnt and read-only rules see them).
INSTALL_TARGETS = (
    "--prefix",
    "--target",
    "-t",
    "--root",
    "--dir",
    "--cwd",
    "--global-dir",
    "--modules-folder",
)


GIT_CONFIG_WRITES = words(
    "--unset --unset-all --add --replace-all --rename-section --remove-section -e --edit"
)
IP_CHANGES = words("add del delete set change replace flush append prepend")
SED_WRITE = re.compile(r"(?:^|[;\n}]|\d|\$|/)\s*w\s+([^;\n}]+)|s(.).*?\2.*?\2[gpIiMme\d]*w\s+([^;\n]+)")


WINDOWS_FEATURE_TOOLS = words(
    "disable-windowsoptionalfeature dism uninstall-windowsfeature remove-windowsfeature optionalfeatures "
    "disable-windowsfeature"
)
WINDOWS_REMOVERS = words("remove-item ri rm del erase rd rmdir rmdir.exe")


@dataclass(frozen=True)
class Spec:
    """The value-taking options of one program."""

    short: str = ""
    long: frozenset[str] = frozenset()


def _table(text: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        names, *rest = line.split()
        for name in names.split(","):
            out[name] = tuple(rest)
    return out


def _build_specs() -> dict[str, Spec]:
    out: dict[str, Spec] = {}
    for name, (short, *long) in _table(_OPTIONS).items():
        longs = frozenset(w for w in long if w != "-")
        out[name] = Spec("" if short == "-" else short, longs)
    return out


def _build_families() -> dict[str, frozenset[str]]:
    return {fam: frozenset(names) for fam, names in _table(_FAMILIES).items()}


SPECS = _build_specs()
FAMILIES = _build_families()
_INFO_FORMS = {name: frozenset(words) for name, words in _table(_INFO).items()}
READS = {name: frozenset("" if w == "-" else w for w in words) for name, words in _table(_READS).items()}
PACKAGE_READS = {
    name: (frozenset(words[1:]), words[0] == "yes") for name, words in _table(_PACKAGE_READS).items()
}
NO_SPEC = Spec()


def spec(name: str) -> Spec:
    """The value-taking options of ``name`` (none when the guard does not know it)."""
    found = SPECS.get(name)
    if found is None and name.startswith("mkfs."):
        found = SPECS.get("mkfs")
    return found or NO_SPEC


def family(name: str) -> frozenset[str]:
    """Every program of family ``name``; a ``KeyError`` is a typo in the caller."""
    return FAMILIES[name]


@functools.lru_cache(maxsize=2048)
def families_of(name: str) -> frozenset[str]:
    """The families ``name`` belongs to (``mkfs.*`` is a formatter; ``python3.12`` an interpreter)."""
    found = {fam for fam, names in FAMILIES.items() if name in names}
    if name.startswith("mkfs."):
        found.add("formatter")
    bare = re.sub(r"[\d.]+$", "", name)
    if bare != name and bare in FAMILIES["interpreter"]:
        found.add("interpreter")
    return frozenset(found)


def is_a(name: str, fam: str) -> bool:
    return fam in families_of(name)


@functools.lru_cache(maxsize=2048)
def code_options(name: str) -> str | None:
    """The option letters whose value is program text, when ``name`` is an interpreter."""
    if name in CODE_OPTIONS:
        return CODE_OPTIONS[name]
    bare = re.sub(r"[\d.]+$", "", name)
    return CODE_OPTIONS.get(bare)


def info_forms(name: str) -> frozenset[str]:
    """The options that make ``name`` print help or a version, or only simulate."""
    return INFO_EVERYWHERE | _INFO_FORMS.get(name, frozenset())


def is_info_form(name: str, texts: list[str]) -> bool:
    """Does this argument list only ask ``name`` for help, a version or a dry run?"""
    forms = info_forms(name)
    values = spec(name)
    k = 0
    while k < len(texts):
        t = texts[k]
        k += 1
        if t == "--":
            return False
        if t.startswith("--"):
            long = t[2:].split("=", 1)[0]
            if "--" + long in forms:
                return True
            k += 1 if long in values.long and "=" not in t else 0
        elif re.fullmatch(r"-[A-Za-z]+", t):
            for j, ch in enumerate(t[1:]):
                if f"-{ch}" in forms:
                    return True
                if ch in values.short:
                    k += 1 if j == len(t) - 2 else 0
                    break
    return False


def is_windows_name(name: str) -> bool:
    """Is ``name`` a Windows program by its name (``cmd.exe``, ``x.ps1``, ``wslview``)?"""
    lowered = name.lower()
    return lowered.endswith(WINDOWS_EXTENSIONS) or is_a(lowered, "interop")


@functools.lru_cache(maxsize=2048)
def strip_windows_extension(name: str) -> str:
    lowered = name.lower()
    for ext in WINDOWS_EXTENSIONS:
        if lowered.endswith(ext):
            return lowered[: -len(ext)]
    return lowered
