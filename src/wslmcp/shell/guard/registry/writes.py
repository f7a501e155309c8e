"""What a command writes: the paths it writes to (and how), and changes it makes that have no path.

This is the one definition of "a write" shared by the read-only rule, the ``/mnt`` write rule, the
persistence rule and the catastrophe rules on devices and system files. Reads are never writes: ``cp /mnt/c/x /home/a``
writes ``/home/a`` only, and ``tar -czf /home/b.tgz /mnt/c/src`` writes the archive only.
``"."`` stands for the working directory (``wget URL``, ``tar -x`` without ``-C``, ``npm install``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from wslmcp.shell.guard.effects import Change, Effect, How, Write
from wslmcp.shell.guard.registry.listings import find_narrows, find_roots
from wslmcp.shell.guard.registry.options import Parsed, parse, parse_as
from wslmcp.shell.guard.registry.tables import (
    FIND_RUNNERS,
    GIT_CONFIG_WRITES,
    INSTALL_TARGETS,
    IP_CHANGES,
    PACKAGE_READS,
    READS,
    SED_WRITE,
    SUBVERB_WRITES,
    family,
    is_a,
    is_info_form,
    words,
)
from wslmcp.shell.guard.values import Arg, basename

CWD = Arg(".")


@dataclass
class Effects:
    """One analyzer's findings: paths written (all the same way, ``how``), a change without a path
    (``mutation``, for the read-only rule), and other effects (``extra``)."""

    writes: list[Arg] = field(default_factory=list)
    mutation: str | None = None
    how: How = "overwrite"
    recursive: bool = False
    extra: list[Effect] = field(default_factory=list)

    def as_effects(self) -> list[Effect]:
        found: list[Effect] = [Write(a, self.how, recursive=self.recursive) for a in self.writes]
        found.extend(self.extra)
        if self.mutation:
            found.append(Change("mutation", self.mutation))
        return found


Analyzer = Callable[[str, list[Arg]], Effects]


def _operands(how: How) -> Analyzer:
    def analyze(name: str, args: list[Arg]) -> Effects:
        p = parse_as(name, args)
        recursive = p.has("-r", "-R", "--recursive")
        return Effects(
            writes=list(p.operands),
            mutation=None if p.operands else f"'{name}' changes files",
            how=how,
            recursive=recursive,
        )

    return analyze


def _after_first() -> Analyzer:
    """chmod/chown/chgrp/setfacl: the first operand is a mode, an owner or an ACL unless --reference
    names the template instead; the rest are the files changed."""

    def analyze(name: str, args: list[Arg]) -> Effects:
        if name == "chmod":  # symbolic modes such as -x or +x look like options
            args = [a for a in args if not re.fullmatch(r"[-+=][rwxXstugo]+", a.text)]
        p = parse_as(name, args)
        operands = list(p.operands)
        if name == "chmod":
            if operands and re.fullmatch(
                r"[0-7]{1,4}|[ugoa]*[-+=][rwxXstugo]*([,][ugoa]*[-+=][rwxXstugo]*)*", operands[0].text
            ):
                operands = operands[1:]
        elif not p.has("--reference") and not (name == "setfacl" and p.opts):
            operands = operands[1:]
        recursive = p.has("-R", "--recursive") or any(
            re.fullmatch(r"-[A-Za-z]*R[A-Za-z]*", a.text) for a in args
        )
        return Effects(
            writes=operands,
            mutation=None if operands else f"'{name}' changes files",
            how="metadata",
            recursive=recursive,
        )

    return analyze


def _copy_like(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    targets = [Arg(v) for v in p.values("-t", "--target-directory")]
    if name == "install" and p.has("-d", "--directory"):
        return Effects(writes=list(p.operands), how="create")
    if not targets and p.operands:
        targets = [p.operands[-1]] if len(p.operands) > 1 or name == "ln" else [CWD]
    if name == "ln" and len(p.operands) == 1 and not p.values("-t", "--target-directory"):
        targets = [CWD]
    if name == "mv":
        moved = p.operands if p.values("-t", "--target-directory") else p.operands[:-1]
        dest = targets if p.values("-t", "--target-directory") else p.operands[-1:]
        return Effects(writes=list(dest), extra=[Write(a, "move") for a in moved])
    how: How = "link" if name == "ln" else "overwrite"
    return Effects(writes=targets, mutation=None if targets else f"'{name}' changes files", how=how)


def _rsync(name: str, args: list[Arg]) -> Effects:
    if is_info_form(name, [a.text for a in args]):
        return Effects()  # -n, --dry-run, --list-only: nothing is transferred
    p = parse_as(name, args)
    writes = [p.operands[-1]] if len(p.operands) > 1 else []
    extra: list[Effect] = []
    if p.has("--remove-source-files"):
        extra.extend(Write(a, "delete") for a in p.operands[:-1])
    if writes and any(n.startswith("--delete") for n, _ in p.opts):
        extra.extend(Write(a, "delete", recursive=True) for a in writes)
    return Effects(writes=writes, mutation=None if writes else "rsync transfers files", extra=extra)


def _scp(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    return Effects(writes=[p.operands[-1]] if len(p.operands) > 1 else [], mutation="scp transfers files")


def _tar(name: str, args: list[Arg]) -> Effects:
    args = list(args)
    if args and re.fullmatch(r"[A-Za-z]+", args[0].text) and not args[0].text.startswith("-"):
        letters = args[0].text
        rebuilt: list[Arg] = []
        rest = args[1:]
        for letter in letters:
            rebuilt.append(Arg("-" + letter))
            if letter in "fCTXbgKLNV" and rest:
                rebuilt.append(rest.pop(0))
        args = rebuilt + rest
    p = parse_as(name, args)
    archives = [Arg(v) for v in p.values("-f", "--file") if v != "-"]
    creating = p.short_cluster_has("cruA") or p.has(
        "--create", "--append", "--update", "--concatenate", "--catenate", "--delete"
    )
    extracting = p.short_cluster_has("x") or p.has("--extract", "--get")
    if creating:
        # --remove-files deletes what it archived
        removed = [Write(a, "delete", recursive=True) for a in p.operands] if p.has("--remove-files") else []
        return Effects(writes=archives, extra=list(removed))
    if extracting:
        if p.has("-O", "--to-stdout", "--to-command"):
            return Effects()
        dirs = [Arg(v) for v in p.values("-C", "--directory")]
        return Effects(writes=dirs or [CWD], how="extract")
    return Effects()


def _unzip(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    if p.has("-l", "-t", "-p", "-Z", "-v", "-z"):
        return Effects()
    dirs = [Arg(v) for v in p.values("-d")]
    return Effects(writes=dirs or [CWD], how="extract")


def _compressor(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    outputs = [Arg(v) for v in p.values("-o", "--output")]
    if outputs:
        return Effects(writes=outputs)  # zstd/lz4 -o FILE
    if p.has("-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") or name in (
        "zcat",
        "bzcat",
        "xzcat",
    ):
        return Effects()
    if name == "zip":
        return Effects(writes=p.operands[:1], mutation=None if p.operands else "zip writes an archive")
    return Effects(writes=list(p.operands))


def _dd(name: str, args: list[Arg]) -> Effects:
    writes = [Arg(a.text[3:], a.glob) for a in args if a.text.startswith("of=")]
    return Effects(writes=writes, how="raw")


def _tee(name: str, args: list[Arg]) -> Effects:
    p = parse(args)
    return Effects(writes=list(p.operands), how="append" if p.has("-a", "--append") else "overwrite")


def _sed(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    in_place = p.has("--in-place") or any(
        a.text.startswith("-") and not a.text.startswith("--") and "i" in a.text.split("e", 1)[0]
        for a in args
    )
    scripts = p.values("-e", "--expression") or [a.text for a in p.operands[:1]]
    named = [Arg((m.group(1) or m.group(3)).strip()) for t in scripts for m in SED_WRITE.finditer(t)]
    named = [a for a in named if a.text not in ("/dev/stdout", "/dev/stderr")]
    if not in_place:
        return Effects(writes=named)
    files = p.operands if p.has("-e", "--expression", "-f", "--file") else p.operands[1:]
    return Effects(
        writes=list(files),
        mutation=None if files or named else "sed edits files in place",
        how="edit",
        extra=[Write(a, "overwrite") for a in named],
    )


def _perl_like(name: str, args: list[Arg]) -> Effects:
    in_place = any(re.fullmatch(r"-[a-zA-Z]*i\S*", a.text) and not a.text.startswith("-e") for a in args[:4])
    if not in_place:
        return Effects()
    p = parse_as(name, args)
    return Effects(
        writes=list(p.operands),
        mutation=None if p.operands else f"{name} -i edits files in place",
        how="edit",
    )


def _sort(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    return Effects(writes=[Arg(v) for v in p.values("-o", "--output")])


def _curl(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    writes = [
        Arg(v)
        for v in p.values("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar")
        if v not in ("-", "/dev/null")
    ]
    out_dir = p.values("--output-dir")
    if p.has("-O", "--remote-name", "--remote-name-all", "-J"):
        writes.append(Arg(out_dir[-1]) if out_dir else CWD)
    upload = p.values("-T", "--upload-file")
    return Effects(writes=writes, mutation="curl uploads a file" if upload else None)


def _wget(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    if p.has("--spider"):
        return Effects()
    writes = [Arg(v) for v in p.values("-o", "--output-file", "-a", "--append-output") if v != "/dev/null"]
    docs = p.values("-O", "--output-document")
    if docs:
        writes.extend(Arg(v) for v in docs if v not in ("-", "/dev/null"))
        return Effects(writes=writes)
    prefix = p.values("-P", "--directory-prefix")
    return Effects(writes=writes, extra=[Write(Arg(prefix[-1]) if prefix else CWD, "extract")])


def _find(name: str, args: list[Arg]) -> Effects:
    """find writes what ``-fprint`` names; ``-delete`` (or ``-exec rm``) deletes what it finds under
    its roots: everything, unless the expression before the action narrows it (``listings``)."""
    roots, k = find_roots(args)
    texts = [a.text for a in args]
    writes = [
        args[j + 1] for j, t in enumerate(texts[:-1]) if t in ("-fprint", "-fprint0", "-fprintf", "-fls")
    ]
    actions = [
        j
        for j, t in enumerate(texts)
        if t == "-delete"
        or (t in FIND_RUNNERS and j + 1 < len(texts) and is_a(basename(texts[j + 1]), "deleter"))
    ]
    if not actions:
        return Effects(writes=writes)
    selective = find_narrows(texts[k : actions[0]])
    deletes: list[Effect] = [
        Write(root, "delete", recursive=True, partial=selective) for root in roots or [CWD]
    ]
    return Effects(writes=writes, extra=deletes)


def _awk(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    if {"inplace", "inplace.awk"} & set(p.values("-i", "--include")):
        files = p.operands if p.has("-f", "--file") else p.operands[1:]
        return Effects(writes=files or [CWD], how="edit")
    if p.has("-f", "--file") or not p.operands:
        return Effects()
    program = p.operands[0].text
    extra: list[Effect] = []
    mutation = None
    for m in re.finditer(r"\b(?:print|printf)\b[^;{}]*?(>>?|\|)\s*(\"([^\"]*)\"|[A-Za-z_]\w*)?", program):
        target = m.group(3)
        if m.group(1) == "|":
            if target is None:
                mutation = "the awk program pipes into a command built at run time"
        elif target is not None:
            if target not in ("/dev/stdout", "/dev/stderr"):
                extra.append(Write(Arg(target), "append" if m.group(1) == ">>" else "overwrite"))
        else:
            mutation = "the awk program writes to a file named at run time"
    if re.search(r"\bsystem\s*\(\s*[^\"\s]", program):
        mutation = mutation or "the awk program runs a command built at run time"
    return Effects(mutation=mutation, extra=extra)


def _subcommand(parsed: Parsed) -> tuple[str, list[Arg]]:
    if not parsed.operands:
        return "", []
    return parsed.operands[0].text, parsed.operands[1:]


def _git(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args, stop_first=True)
    where = [Arg(v) for v in p.values("-C")] or [CWD]
    if not p.rest:
        return Effects()
    verb, rest = p.rest[0].text, p.rest[1:]
    sub = parse(rest, "mFcCbBeoSu")
    flags = {n for n, _ in sub.opts}
    mutating = words(
        "push reset checkout switch restore clean rebase merge commit add rm mv apply revert cherry-pick pull gc prune init clone fetch am filter-branch update-ref update-index replace lfs sparse-checkout bisect repack maintenance"
    )
    read_forms = {
        "stash": ({"list", "show"}, set()),
        "remote": ({"show", "get-url", ""}, {"-v", "--verbose"}),
        "tag": (
            {""},
            words("-l --list -n --contains --points-at --merged --no-merged --sort -v --verify"),
        ),
        "branch": (
            {""},
            words(
                "-a --all -r --remotes -l --list -v -vv --contains --merged --no-merged --show-current --sort --format"
            ),
        ),
        "config": (
            set(),
            words(
                "--get --get-all --get-regexp -l --list --show-origin --show-scope --get-urlmatch --name-only"
            ),
        ),
        "worktree": ({"list"}, set()),
        "submodule": ({"status", "summary", "foreach", ""}, set()),
        "notes": ({"list", "show", ""}, set()),
    }
    outputs = [Arg(v) for n, v in sub.opts if n in ("--output", "-o", "--output-directory") and v]
    if verb in ("diff", "log", "show", "format-patch", "range-diff") and outputs:
        return Effects(writes=outputs, mutation=f"git {verb} writes its output to a file")
    if verb == "format-patch":
        return Effects(writes=where, how="extract", mutation="git format-patch writes patch files")
    if verb == "config" and (
        flags & GIT_CONFIG_WRITES
        or (
            sub.operands
            and sub.operands[0].text in ("set", "unset", "edit", "rename-section", "remove-section")
        )
    ):
        return Effects(writes=where, how="extract", mutation="git config changes the configuration")
    if verb == "clone":
        operands = sub.operands
        return Effects(
            writes=[operands[1]] if len(operands) > 1 else where,
            how="extract",
            mutation="git clone writes a repository",
        )
    if verb in mutating:
        return Effects(
            writes=where,
            how="extract",
            mutation=f"git {verb} changes the repository, its working tree or a remote",
        )
    if verb in read_forms:
        subs, read_flags = read_forms[verb]
        first = sub.operands[0].text if sub.operands else ""
        if verb == "config":
            reading = bool(flags & read_flags) or len(sub.operands) <= 1
        elif verb in ("tag", "branch"):
            reading = not sub.operands or bool(flags & read_flags)
        else:
            reading = first in subs
        if not reading:
            return Effects(writes=where, how="extract", mutation=f"git {verb} changes the repository")
    return Effects()


def _split(name: str, args: list[Arg]) -> Effects:
    """split writes its pieces next to the prefix (the second operand), else in the working directory."""
    p = parse_as(name, args)
    if p.has("--help", "--version"):
        return Effects()
    prefix = p.operands[1] if len(p.operands) > 1 else CWD
    return Effects(writes=[prefix], mutation="split writes files")


def _ar(name: str, args: list[Arg]) -> Effects:
    if not args:
        return Effects()
    key = args[0].text.lstrip("-")
    if re.fullmatch(r"[tpv]*[tp][A-Za-z]*", key) and not re.search(r"[xdrqms]", key):
        return Effects()
    if "x" in key:
        return Effects(writes=[CWD], how="extract", mutation="ar extracts members")
    return Effects(writes=args[1:2], mutation="ar changes an archive")


def _seven_zip(name: str, args: list[Arg]) -> Effects:
    verb = args[0].text if args else ""
    if verb in ("l", "t", "i", "h", "b", "--help"):
        return Effects()
    outputs = [Arg(a.text[2:], a.glob) for a in args if a.text.startswith("-o") and len(a.text) > 2]
    if verb in ("x", "e"):
        return Effects(writes=outputs or [CWD], how="extract", mutation=f"'{name} {verb}' extracts files")
    archive = [a for a in args[1:] if not a.text.startswith("-")][:1]
    return Effects(writes=archive + outputs, mutation=f"'{name}' writes archives")


def _ip(name: str, args: list[Arg]) -> Effects:
    words = [a.text for a in args if not a.text.startswith("-")]
    if any(w in IP_CHANGES for w in words[1:3]) or (words[:1] == ["netns"] and words[1:2] != ["list"]):
        return Effects(mutation="'ip' changes network configuration")
    return Effects()


def _interpreter(name: str, args: list[Arg]) -> Effects:
    """``python -m pip …`` is pip; ``python -m venv DIR`` writes DIR; ``-i`` edits for perl/ruby."""
    texts = [a.text for a in args]
    if "-m" in texts:
        k = texts.index("-m")
        module, rest = (texts[k + 1], args[k + 2 :]) if k + 1 < len(texts) else ("", [])
        if module in ("pip", "pip3"):
            return _package("pip", rest)
        if module in ("venv", "virtualenv"):
            p = parse_as(module, rest)
            return Effects(
                writes=list(p.operands) or [CWD], how="create", mutation="creates a virtual environment"
            )
        if module == "ensurepip":
            return Effects(mutation="installs pip")
    if name in ("perl", "ruby"):
        return _perl_like(name, args)
    return Effects()


def _cwd_builder(reads: set[str]) -> Analyzer:
    def analyze(name: str, args: list[Arg]) -> Effects:
        p = parse_as(name, args)
        verb, _ = _subcommand(p)
        if verb in reads or (p.has("--version", "-v", "--help", "-h") and not verb):
            return Effects()
        if name == "make" and p.has("-n", "--dry-run", "--just-print", "-q", "--question"):
            return Effects()
        where = [Arg(v) for v in p.values("-C", "--directory", "--prefix")] or [CWD]
        return Effects(
            writes=where,
            how="extract",
            mutation=f"'{name} {verb}'".replace(" '", "'") + " builds or installs into the working directory",
        )

    return analyze


def _listing_flags(read_flags: set[str], label: str = "") -> Analyzer:
    def analyze(name: str, args: list[Arg]) -> Effects:
        p = parse_as(name, args)
        if any(n in read_flags for n, _ in p.opts) or (not args and "" in read_flags):
            return Effects()
        return Effects(mutation=label or f"'{name}' changes the system")

    return analyze


def _service(name: str, args: list[Arg]) -> Effects:
    verbs = [a.text for a in args]
    if (
        not verbs
        or "--status-all" in verbs
        or verbs[0] in ("--help", "-h", "--version")
        or verbs[1:2] == ["status"]
    ):
        return Effects()
    return Effects(mutation="'service' changes service state")


def _systemctl(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    verb, _ = _subcommand(p)
    if verb in READS[name] or is_info_form(name, [a.text for a in args]):
        return Effects()
    return Effects(mutation=f"'{name} {verb}' changes service or session state")


def _sysctl(name: str, args: list[Arg]) -> Effects:
    """sysctl reads unless it writes (``-w``, ``name=value``) or loads settings (``-p``, ``--system``)."""
    texts = [a.text for a in args]
    if any(t in ("-w", "--write", "-p", "--load", "--system") or t.startswith("--load=") for t in texts):
        return Effects(mutation="'sysctl' changes kernel settings")
    if any("=" in t and not t.startswith("-") for t in texts):
        return Effects(mutation="'sysctl' changes kernel settings")
    return Effects()


def _docker(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args, stop_first=True)
    if not p.rest:
        return Effects()
    verb = p.rest[0].text
    sub = p.rest[1:]
    reads = words(
        "ps logs inspect images version info stats top port diff history events search help ls config context login logout"
    )
    groups = words(
        "compose container image volume network system buildx builder node service stack secret plugin trust manifest context"
    )
    if verb in groups:
        inner = parse(
            sub,
            "fp",
            ("file", "project-name", "profile", "env-file", "project-directory", "format", "filter"),
            stop_first=True,
        )
        subverb = inner.rest[0].text if inner.rest else ""
        if subverb in reads | {
            "df",
            "show",
            "list",
            "config",
            "convert",
            "images",
            "ps",
            "logs",
            "ls",
            "top",
            "port",
            "events",
            "version",
            "inspect",
            "",
        }:
            return Effects()
        return Effects(mutation=f"'{name} {verb} {subverb}' changes containers, images or volumes")
    if verb in reads:
        return Effects()
    if verb == "cp" and len(sub) >= 2 and ":" not in sub[-1].text:
        return Effects(writes=[sub[-1]], mutation="docker cp copies files")
    if verb == "save":
        out = parse(sub, "o", ("output",)).values("-o", "--output")
        return Effects(writes=[Arg(v) for v in out])
    return Effects(mutation=f"'{name} {verb}' changes containers, images or volumes")


def _kubectl(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    verb, _ = _subcommand(p)
    mutating = words(
        "apply delete create edit scale patch replace rollout drain cordon uncordon exec cp set annotate label taint run expose autoscale attach debug port-forward proxy"
    )
    if verb in mutating:
        return Effects(mutation=f"'{name} {verb}' changes cluster state")
    return Effects()


def _crontab(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    if p.has("-l", "-V") and not p.has("-r", "-e"):
        return Effects()
    return Effects(mutation="crontab replaces the user's scheduled jobs")


def _mutation(label: str) -> Analyzer:
    def analyze(name: str, args: list[Arg]) -> Effects:
        return Effects(mutation=label.format(name=name))

    return analyze


def _editor(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    files = [a for a in p.operands if not a.text.startswith("+")]
    return Effects(writes=files, mutation=f"'{name}' edits files", how="edit")


def _package(name: str, args: list[Arg]) -> Effects:
    reads, default_read = PACKAGE_READS[name]
    p = parse_as(name, args)
    if p.has("-s", "--simulate", "--dry-run", "--just-print", "--recon", "--no-act"):
        return Effects()
    verb, rest = _subcommand(p)
    targets = [Arg(v) for v in p.values(*INSTALL_TARGETS)]
    subverb = rest[0].text if rest else ""
    if verb in reads and subverb in SUBVERB_WRITES:
        return Effects(
            writes=targets, mutation=f"'{name} {verb} {subverb}' changes its configuration or cache"
        )
    if (not verb and (default_read or p.has("--version", "-v", "-V", "--help", "-h"))) or verb in reads:
        return Effects()
    if is_a(name, "cwd_package") and verb not in ("publish", "login", "adduser", "logout"):
        if p.has("-g", "--global", "--location"):
            return Effects(
                writes=targets, how="extract", mutation=f"'{name} {verb}' installs packages system-wide"
            )
        return Effects(
            writes=targets or [CWD],
            how="extract",
            mutation=f"'{name} {verb}' changes packages in the working directory".replace(" '", "'").replace(
                "''", "'"
            ),
        )
    return Effects(
        writes=targets,
        how="extract",
        mutation=f"'{name} {verb}'".strip() + " installs, removes or updates packages",
    )


def _dpkg(name: str, args: list[Arg]) -> Effects:
    reads = words(
        "-l -L -s -S -p -c -I -W --list --listfiles --status --search --print-avail --print-architecture --print-foreign-architectures --get-selections --contents --info --compare-versions --audit -C --verify -V --version --help --show -f --field --showformat"
    )
    first = next((a.text for a in args if a.text.startswith("-")), "")
    if (
        not args
        or first.split("=")[0] in reads
        or (
            name in ("dpkg-query", "dpkg-deb")
            and first not in ("-b", "--build", "-x", "-X", "-R", "--extract", "--vextract", "--raw-extract")
        )
    ):
        return Effects()
    return Effects(mutation=f"'{name}' installs or removes packages")


# package managers whose flags say what they do: the flags that only query
_QUERY_FLAGS = {
    "rpm": r"-q\w*|--query|-V\w*|--verify|--version|--help|--eval|-E|--showrc",
    "pacman": r"-Q\w*|--query|-Ss\w*|-Si\w*|-F\w*|--files|-V|--version|-h|--help|-T|--deptest",
}


def _flagged_package(name: str, args: list[Arg]) -> Effects:
    if any(re.fullmatch(_QUERY_FLAGS[name], a.text) for a in args):
        return Effects()
    return Effects(mutation=f"'{name}' installs or removes packages")


def _firewall(name: str, args: list[Arg]) -> Effects:
    texts = [a.text for a in args]
    listing = {
        "iptables": r"-[A-Za-z]*[LS][A-Za-z]*|--list|--list-rules|-V|--version|-h|--help|--check|-C",
        "ip6tables": r"-[A-Za-z]*[LS][A-Za-z]*|--list|--list-rules|-V|--version|-h|--help|--check|-C",
        "nft": r"list|-v|--version|-h|--help|-c|--check|describe|monitor",
        "ufw": r"status|version|--version|help|--help|show|app",
        "firewall-cmd": r"--list-\S*|--state|--get-\S*|--query-\S*|--info-\S*|--version|-h|--help",
    }[name]
    if any(re.fullmatch(listing, t) for t in texts) or not texts:
        return Effects()
    return Effects(mutation=f"'{name}' changes firewall rules")


def _disk_tool(name: str, args: list[Arg]) -> Effects:
    texts = [a.text for a in args]
    if name == "parted":
        verbs = [t for t in texts if not t.startswith("/") and not t.startswith("-")]
        mutating = words(
            "mklabel mktable mkpart mkpartfs rm resizepart resize rescue set toggle name move cp mkfs disk_set"
        )
        if any(w in mutating for w in verbs):
            return _disk("'parted' repartitions a disk")
        return Effects()
    if name == "wipefs":
        if any(
            t in ("-a", "--all", "-o", "--offset", "-b", "--backup", "-f", "--force")
            or re.fullmatch(r"-[a-z]*a[a-z]*", t)
            for t in texts
        ):
            return _disk("'wipefs' erases filesystem signatures")
        return Effects()
    reads = {  # options that only read (parted and wipefs are judged above)
        "fdisk": r"-l|--list|-V|--version|-h|--help|-s|--getsz|-x|--list-details",
        "sfdisk": r"-l|--list|-d|--dump|-J|--json|-s|--show-size|-V|--verify|-h|--help|-v|--version|-g|--show-geometry|--list-free|-F|-r|--list-types|-T",
        "sgdisk": r"-p|--print|-i\S*|--info\S*|-v|--verify|-V|--version|-h|--help|-\?|-O|--print-mbr|-L|--list-types|-D|--display-alignment|-E|--end-of-largest|-F|--first-in-largest|-f|--first-aligned-in-largest|-P|--pretend",
        "blkdiscard": r"-h|--help|-V|--version",
    }[name]
    if any(re.fullmatch(reads, t) for t in texts if t.startswith("-")):
        return Effects()
    return _disk(f"'{name}' repartitions or erases a disk")


def _disk(why: str) -> Effects:
    return Effects(extra=[Change("disk", why)])


def _mount(name: str, args: list[Arg]) -> Effects:
    """mount puts a filesystem (or a bind) over its target, the last operand or ``--target``;
    ``umount`` takes one away. Listing and help forms change nothing."""
    p = parse(
        args,
        "tOoLUTN",
        ("types", "options", "label", "uuid", "fstab", "namespace", "target", "source"),
    )
    if not args or (p.has("-l", "--show-labels", "-V", "--version", "-h", "--help") and not p.operands):
        return Effects()
    targets = [Arg(v) for v in p.values("--target")] or list(
        p.operands[-1:] if name == "mount" else p.operands
    )
    if (
        name == "mount"
        and len(p.operands) == 1
        and re.match(r"/dev/|UUID=|LABEL=|PARTUUID=", p.operands[0].text)
    ):
        targets = []  # a device alone: its mount point comes from /etc/fstab
    if name == "mount" and p.has("--move", "-M"):
        targets = list(p.operands)  # the mount point it moves from is left empty
    return Effects(writes=targets, how="mount", mutation=f"'{name}' changes mounts")


def _uniq(name: str, args: list[Arg]) -> Effects:
    """``uniq INPUT OUTPUT`` writes its second operand."""
    return Effects(writes=parse_as(name, args).operands[1:2])


def _journalctl(name: str, args: list[Arg]) -> Effects:
    p = parse_as(name, args)
    changing = (
        "--vacuum-size",
        "--vacuum-time",
        "--vacuum-files",
        "--rotate",
        "--flush",
        "--sync",
        "--relinquish-var",
        "--setup-keys",
    )
    if any(n in changing for n, _ in p.opts):
        return Effects(mutation="'journalctl' removes or rewrites journal files")
    return Effects()


def _ssh_keygen(name: str, args: list[Arg]) -> Effects:
    if any(re.fullmatch(r"-[lFyLQ]\w*|-B", a.text) for a in args):
        return Effects()
    return Effects(mutation="ssh-keygen writes keys")


_BY_NAMES: tuple[tuple[str, Analyzer], ...] = (
    ("rm unlink shred srm wipe", _operands("delete")), ("rmdir", _operands("remove_empty")), ("touch chattr", _operands("metadata")),
    ("mkdir mknod mkfifo", _operands("create")), ("truncate fallocate", _operands("overwrite")),
    ("rename", _operands("move")), ("patch", _operands("edit")),
    ("chmod chown chgrp setfacl", _after_first()),
    ("cp mv install ln", _copy_like),
    ("rsync", _rsync), ("scp", _scp), ("tar bsdtar", _tar), ("unzip", _unzip),
    ("7z 7za 7zr", _seven_zip), ("split", _split), ("ar", _ar), ("ip", _ip),
    ("python python2 python3 perl ruby", _interpreter),
    ("gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 zip", _compressor),
    ("cpio", _listing_flags({"-t", "--list", "-o", "--create", "--version", "--help"}, "'cpio' extracts files")),
    ("dd", _dd), ("tee sponge", _tee), ("sed", _sed), ("sort", _sort),
    ("curl", _curl), ("wget", _wget), ("find", _find), ("awk gawk mawk nawk", _awk), ("git", _git),
    ("systemctl loginctl", _systemctl), ("service", _service), ("docker podman nerdctl", _docker),
    ("kubectl oc", _kubectl), ("crontab", _crontab), ("dpkg dpkg-query", _dpkg), ("rpm pacman", _flagged_package), ("ssh-keygen", _ssh_keygen),
    ("make cmake ninja", _cwd_builder(set())),
    ("vi vim nvim nano emacs ex ed pico micro sudoedit", _editor),
    ("fdisk sfdisk parted sgdisk wipefs blkdiscard", _disk_tool),
    ("mount umount", _mount),
    ("swapon", _listing_flags({"--show", "-s", "--summary", "-V", "--version", "-h", "--help", ""}, "'swapon' changes swap")),
    ("swapoff", _mutation("'{name}' changes swap")),
    ("iptables ip6tables nft ufw firewall-cmd", _firewall),
    ("ssh", _mutation("'{name}' runs commands on another host")),
    ("sftp ftp", _mutation("'{name}' transfers files")),
    ("ssh-copy-id", _mutation("'{name}' installs keys on another host")),
    ("npx pnpx", _mutation("'{name}' downloads and runs a package")),
    ("passwd chpasswd", _mutation("'{name}' changes accounts")),
    ("visudo", _mutation("'{name}' changes sudo rules")),
    ("at", _listing_flags({"-l", "-V", "-c"}, "'at' schedules a job")),
    ("batch", _mutation("'{name}' schedules a job")),
    ("atrm", _mutation("'{name}' removes scheduled jobs")),
    ("reboot", _mutation("'{name}' restarts the host")),
    ("shutdown poweroff", _mutation("'{name}' powers off the host")),
    ("halt", _mutation("'{name}' halts the host")),
    ("init telinit", _mutation("'{name}' changes the runlevel")),
    ("hostnamectl", _listing_flags({"", "status", "--help", "--version"}, "'hostnamectl' changes the hostname")),
    ("timedatectl", _listing_flags({"", "status", "show", "list-timezones", "timesync-status", "--help", "--version"}, "'timedatectl' changes the clock")),
    ("ldconfig", _listing_flags({"-p", "--print-cache", "-V", "--version"}, "'ldconfig' rewrites the linker cache")),
    ("update-alternatives", _listing_flags({"--display", "--query", "--list", "--get-selections"}, "'update-alternatives' changes system links")),
    ("modprobe", _listing_flags({"-n", "--dry-run", "-c", "--showconfig", "-V", "--version"}, "'modprobe' loads or unloads kernel modules")),
    ("insmod", _mutation("'{name}' loads a kernel module")),
    ("rmmod", _mutation("'{name}' unloads a kernel module")),
    ("sysctl", _sysctl), ("uniq", _uniq), ("journalctl", _journalctl),
    ("mktemp tempfile", _listing_flags({"-u", "--dry-run", "--help", "--version"}, "'mktemp' creates a file or directory")),
    ("locale-gen update-locale", _mutation("'{name}' changes the system's locales")),
    (" ".join(family("package")), _package),
    (" ".join(family("account")), _mutation("'{name}' changes accounts")),
    (" ".join(family("formatter")), _mutation("'{name}' formats a filesystem")),
)  # fmt: skip
ANALYZERS: dict[str, Analyzer] = {name: analyzer for names, analyzer in _BY_NAMES for name in names.split()}


def file_effects(name: str, args: list[Arg]) -> list[Effect]:
    """What running ``name`` with ``args`` writes, and the changes it makes for the read-only rule
    (redirections are the caller's)."""
    analyzer = ANALYZERS.get(name)
    if analyzer is None and is_a(name, "formatter"):
        analyzer = ANALYZERS["mkfs"]
    if analyzer is None and is_a(name, "interpreter"):
        analyzer = _interpreter
    if analyzer is None:
        return []
    return analyzer(name, args).as_effects()
