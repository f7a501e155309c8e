"""Every pattern the answer checks use, in one place (``wslmcp eval checks`` prints them).

Text preparation: ``*`` and backticks are removed; the answer is split at line breaks and after
``.``, ``!`` or ``?`` followed by whitespace. Patterns are case-insensitive except BYTES and names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_I = re.IGNORECASE

SOURCES: dict[str, str] = {
    "NEGATION": r"\b(?:no|not|cannot|can'?t|doesn'?t|does not|isn'?t|is not|wasn'?t|without|nothing|"
    r"wouldn'?t|would not|unable|never|neither|nor|none|aren'?t|are not|don'?t|do not|didn'?t|did not)\b",
    "ZERO": r"(?<![\d.])0(?:\.0+)?\s?%|\bzero\b|\bidle\b|\bnot (?:using|consuming|doing|running anything)\b"
    r"|\bno (?:cpu|load|usage|activity)\b|\bisn'?t (?:using|doing)\b|\bnothing\b",
    "UNKNOWN": r"\b(?:null|not observed|unobserved|unknown|unavailable|not collected|no data|can'?t tell|"
    r"cannot tell|inconclusive|not measured|was(?:n'?t| not) (?:observed|measured|collected|reported)|"
    r"not reported|no reading)\b",
    "ENV_WINDOWS": r"\bwindows\b",
    "ENV_DOCKER": r"\bdocker\b",
    "ENV_WSLC": r"\bwslc\b",
    "ENV_WSL": r"\bwsl\b(?!c)",
    "MEMORY": r"\b(?:pag(?:ing|ed)|swap(?:ping|ped|s)?|thrash\w*|memory pressure|disk i/?o|i/?o wait|"
    r"page faults?|memory leak|leak(?:s|ing)?|out of memory|oom)\b",
    "CHILD": r"\b(?:child|children|underneath|beneath|under it|spawned|sub-?process(?:es)?|parent of)\b",
    "CONTAINER": r"\b(?:containers?|docker|wslc)\b",
    "MEMBERSHIP": r"\b(?:in|inside|within|belongs? to|part of|running in|runs in)\b",
    "HEDGE": r"\b(?:likely|probably|suggests?|appears?|seems?|may|might|could|hypothes\w+|possibl[ey]|"
    r"presumably)\b",
    "PERCENT": r"(?<![\w.])(\d+(?:\.\d+)?)\s?%",
    "PER_CORE": r"(?<![\w.])(\d+(?:\.\d+)?)\s?%\s+(?:of\s+(?:a|one|1|each|a single|one full|a full)\s+"
    r"(?:cpu\s+|logical\s+cpu\s+)?(?:core|cpu|processor)\b|per\s+(?:core|cpu)\b)",
    "CLAUSE": r"\s*[;,]\s*|\s+(?:but|while|whereas|although|though|and|so)\s+",
    "BYTES": r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(bytes|B|KB|kB|KiB|MB|MiB|GB|GiB|TB|TiB)\b",
}
CASE_SENSITIVE = {"BYTES"}
PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(src, 0 if name in CASE_SENSITIVE else _I) for name, src in SOURCES.items()
}
ENVIRONMENTS = {"windows": "ENV_WINDOWS", "docker": "ENV_DOCKER", "wslc": "ENV_WSLC", "wsl": "ENV_WSL"}
DISTROS = (
    "Ubuntu", "Debian", "Alpine", "Kali", "openSUSE", "SUSE", "Fedora", "Arch", "AlmaLinux",
    "OracleLinux", "Rocky", "Pengwin",
)  # fmt: skip
UNITS = {
    "bytes": (1, 0), "B": (1, 0), "KB": (1000, 1), "kB": (1000, 1), "KiB": (1024, 1), "MB": (1000, 2),
    "MiB": (1024, 2), "GB": (1000, 3), "GiB": (1024, 3), "TB": (1000, 4), "TiB": (1024, 4),
}  # fmt: skip
TEXT_RULES = (
    "remove * and backticks; split at line breaks and after . ! ? followed by whitespace; names are "
    "usage.name values of the investigation's successful results (a follow-up's: those it carries on too), matched case-sensitively as whole "
    "words (?<![\\w-])NAME(?![\\w-]); a number shown with d decimals has tolerance 0.05 + 0.5*10^-d; "
    "claims about one thing (membership, children, memory, a zero) are judged per CLAUSE of a sentence"
)


def has(name: str, text: str) -> bool:
    return PATTERNS[name].search(text) is not None


def sentences(answer: str) -> list[str]:
    text = answer.replace("*", "").replace("`", "")
    out: list[str] = []
    for line in text.splitlines():
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip())
    return out


def clauses(sentence: str) -> list[str]:
    """A sentence cut at CLAUSE boundaries (``;`` ``,`` and, but, while, so, ...)."""
    return [c for c in PATTERNS["CLAUSE"].split(sentence) if c.strip()]


def tolerance(shown: str) -> float:
    decimals = len(shown.split(".", 1)[1]) if "." in shown else 0
    return 0.05 + 0.5 * 10.0**-decimals


def name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")


def name_positions(sentence: str, names: list[str]) -> Iterator[tuple[int, str]]:
    for name in names:
        for match in name_pattern(name).finditer(sentence):
            yield match.start(), name


def distro_words(extra: list[str]) -> list[str]:
    seen: list[str] = []
    for word in (*DISTROS, *extra):
        if word and word not in seen:
            seen.append(word)
    return seen
