# Sourced by .ci/run: what the OS sandbox's dynamic tests (tests/shell/test_sandbox_dynamic.py) need.
# ensure_sandbox_tools installs bubblewrap (and curl, which talks to the socket stand-ins) with
# apt-get where missing, and adds the ordinary user `tester` the tests also run as; it needs root and
# apt-get, and any failure only prints why (the tests then skip, naming the reason).

ensure_sandbox_tools() {
    local missing=()
    command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        [ ${#missing[@]} = 0 ] || echo "sandbox: ${missing[*]} missing and cannot be installed (needs root and apt-get); the sandbox tests will skip"
        return 0
    fi
    if [ ${#missing[@]} != 0 ]; then
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            "${missing[@]}"; } >/tmp/wslmcp-sandbox-install.log 2>&1 \
            || echo "sandbox: apt-get install ${missing[*]} failed (see /tmp/wslmcp-sandbox-install.log); the sandbox tests will skip"
    fi
    id tester >/dev/null 2>&1 || useradd --create-home tester \
        || echo "sandbox: could not add the user tester; the ordinary-user sandbox test will skip"
}
