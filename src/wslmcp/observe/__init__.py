"""The observability server: snapshots of host, WSL, containers and processes."""
