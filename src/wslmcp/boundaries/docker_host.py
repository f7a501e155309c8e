"""Where the Docker daemon is: the docker CLI's precedence, read from the environment and files.

Contract
--------
``resolve_endpoint(env, home, *, windows, pipe_exists=...) -> DockerEndpoint``
    1. ``DOCKER_HOST`` (``unix://…``; ``npipe://…`` on Windows), as given;
    2. the docker context named by ``DOCKER_CONTEXT``, else ``currentContext`` of
       ``$DOCKER_CONFIG/config.json`` (``DOCKER_CONFIG`` defaults to ``home/.docker``), whose endpoint is
       ``Endpoints.docker.Host`` in ``contexts/meta/<sha256(name)>/meta.json`` (the context
       ``default`` means "no context");
    3. the default: ``unix:///var/run/docker.sock`` on Linux and inside WSL; on Windows
       ``npipe:////./pipe/dockerDesktopLinuxEngine`` when that pipe exists, else
       ``npipe:////./pipe/docker_engine``.
    Unreadable or malformed config/meta files are skipped (the docker CLI would fail; a read-only
    observer falls through to the default and says so in ``source``).
Errors
    ``UnsupportedDockerHost`` for an endpoint this client cannot speak (``tcp://``, ``ssh://``,
    ``npipe://`` off Windows): the collector reports it instead of guessing another daemon.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from wslmcp.boundaries.docker_api import ApiAnswer, DockerEndpoint, DockerUnavailable

LINUX_DEFAULT: Final = "unix:///var/run/docker.sock"
WINDOWS_DEFAULTS: Final = ("npipe:////./pipe/dockerDesktopLinuxEngine", "npipe:////./pipe/docker_engine")


class UnsupportedDockerHost(ValueError):
    """An endpoint URL this client does not speak: ``endpoint`` as given, ``why`` it is refused."""

    def __init__(self, endpoint: DockerEndpoint, why: str) -> None:
        super().__init__(f"{endpoint.source}={endpoint.url}: {why}")
        self.endpoint = endpoint
        self.why = why


def _pipe_exists(url: str) -> bool:
    return os.path.exists(url.split("://", 1)[1].replace("/", "\\"))


def resolve_endpoint(
    env: Mapping[str, str],
    home: Path,
    *,
    windows: bool,
    pipe_exists: Callable[[str], bool] = _pipe_exists,
) -> DockerEndpoint:
    host = env.get("DOCKER_HOST", "").strip()
    if host:
        return _checked(DockerEndpoint(host, "DOCKER_HOST"), windows)
    config_dir = Path(env["DOCKER_CONFIG"]) if env.get("DOCKER_CONFIG") else home / ".docker"
    named = env.get("DOCKER_CONTEXT", "").strip()
    context, source = (named, f"DOCKER_CONTEXT {named}") if named else (_current_context(config_dir), "")
    if context and context != "default":
        url = _context_host(config_dir, context)
        if url:
            return _checked(DockerEndpoint(url, source or f"context {context}"), windows)
    if not windows:
        return DockerEndpoint(LINUX_DEFAULT, "default")
    for url in WINDOWS_DEFAULTS:
        if pipe_exists(url):
            return DockerEndpoint(url, "default")
    return DockerEndpoint(WINDOWS_DEFAULTS[-1], "default")


def _checked(endpoint: DockerEndpoint, windows: bool) -> DockerEndpoint:
    scheme = endpoint.scheme if "://" in endpoint.url else ""
    if scheme == "unix" or (scheme == "npipe" and windows):
        if not endpoint.address:
            raise UnsupportedDockerHost(endpoint, "no socket path")
        return endpoint
    speaks = f"wslmcp speaks unix:// sockets{' and npipe:// pipes' if windows else ''} only"
    if not scheme:
        example = "npipe:////./pipe/docker_engine" if windows else "unix:///path/to/docker.sock"
        raise UnsupportedDockerHost(endpoint, f"not an endpoint URL ({example}); {speaks}")
    where = "on Windows" if windows else "here"
    raise UnsupportedDockerHost(endpoint, f"{speaks}; {scheme} endpoints are not supported {where}")


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _current_context(config_dir: Path) -> str:
    config = _read_json(config_dir / "config.json")
    name = config.get("currentContext") if isinstance(config, dict) else None
    return name.strip() if isinstance(name, str) else ""


def _context_host(config_dir: Path, context: str) -> str:
    digest = hashlib.sha256(context.encode("utf-8")).hexdigest()
    meta = _read_json(config_dir / "contexts" / "meta" / digest / "meta.json")
    if not isinstance(meta, dict):
        return ""
    endpoints = meta.get("Endpoints")
    docker = endpoints.get("docker") if isinstance(endpoints, dict) else None
    host = docker.get("Host") if isinstance(docker, dict) else None
    return host.strip() if isinstance(host, str) else ""


class RefusedEndpoint:
    """A ``DockerApi`` for an endpoint this client cannot speak: every request raises
    ``DockerUnavailable`` with the reason, so the collector reports it instead of another daemon."""

    def __init__(self, refused: UnsupportedDockerHost) -> None:
        self.reason = refused.why
        self._endpoint = refused.endpoint  # as the user wrote it, so warnings name it

    @property
    def endpoint(self) -> DockerEndpoint:
        return self._endpoint

    async def get(self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float) -> ApiAnswer:
        raise DockerUnavailable(self.reason)
