# Sourced by .ci/run: a throwaway Docker Engine for the real-daemon integration test.
# start_test_dockerd installs docker.io (Debian) when missing, starts dockerd with its socket, data
# and pid file under one temporary directory, and exports WSLMCP_TEST_DOCKER_HOST; any failure only
# prints why (the test then skips, naming the reason). stop_test_dockerd stops it by its pid.

WSLMCP_DOCKERD_DIR=""

start_test_dockerd() {
    if ! command -v dockerd >/dev/null 2>&1; then
        if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "dockerd: not installed and cannot install it (needs root and apt-get); the real-daemon test will skip"
            return 0
        fi
        # policy-rc.d 101: installing must not start a system daemon
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            docker.io busybox-static; } >/tmp/wslmcp-docker-install.log 2>&1 \
            || echo "dockerd: apt-get install docker.io failed (see /tmp/wslmcp-docker-install.log); the real-daemon test will skip"
        rm -f /usr/sbin/policy-rc.d
        command -v dockerd >/dev/null 2>&1 || return 0
    fi
    WSLMCP_DOCKERD_DIR="$(mktemp -d /tmp/wslmcp-dockerd.XXXXXX)"
    local d="$WSLMCP_DOCKERD_DIR"
    dockerd --host "unix://$d/docker.sock" --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/dockerd.pid" \
        --iptables=false --ip-masq=false --bridge=none --storage-driver=vfs >"$d/dockerd.log" 2>&1 &
    echo $! >"$d/started.pid"
    for _ in $(seq 1 100); do
        if [ -S "$d/docker.sock" ] && grep -q "API listen on" "$d/dockerd.log"; then
            export WSLMCP_TEST_DOCKER_HOST="unix://$d/docker.sock"
            echo "dockerd: listening on $WSLMCP_TEST_DOCKER_HOST (pid $(cat "$d/started.pid"))"
            return 0
        fi
        kill -0 "$(cat "$d/started.pid")" 2>/dev/null || break
        sleep 0.2
    done
    echo "dockerd: did not start (last lines of $d/dockerd.log below); the real-daemon test will skip"
    tail -5 "$d/dockerd.log" || true
    stop_test_dockerd
}

stop_test_dockerd() {
    local d="$WSLMCP_DOCKERD_DIR"
    [ -n "$d" ] && [ -f "$d/started.pid" ] || return 0
    local pid
    pid="$(cat "$d/started.pid")"
    if kill -0 "$pid" 2>/dev/null; then
        DOCKER_HOST="unix://$d/docker.sock" docker rm -f $(DOCKER_HOST="unix://$d/docker.sock" docker ps -aq 2>/dev/null) >/dev/null 2>&1 || true
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -rf "$d" 2>/dev/null || true
    WSLMCP_DOCKERD_DIR=""
}
