# shellcheck shell=bash
# Sourced by scripts/plot.sh and scripts/test_plot.sh: makes sure build/venv exists and holds
# the pinned packages of plot/requirements.txt, then sets VENV_PYTHON. Another venv and pin file
# when SHOOTOUT_VENV and SHOOTOUT_VENV_REQUIREMENTS are set (scripts/nvbench_venv.sh).
#
# The venv is (re)built when it is missing or broken, and the packages are (re)installed when
# the pin file differs from the copy stored in the venv at the last install.
# On a fresh Debian/Ubuntu, python3 lacks the venv module (package python3-venv); as root the
# script installs it with apt-get, otherwise it says what to install.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV_DIR="${SHOOTOUT_VENV:-$REPO_ROOT/build/venv}"
VENV_REQUIREMENTS="${SHOOTOUT_VENV_REQUIREMENTS:-$REPO_ROOT/plot/requirements.txt}"
VENV_PYTHON="$VENV_DIR/bin/python"

venv_log() { echo "[venv ${VENV_DIR#"$REPO_ROOT"/}] $*" >&2; }

venv_apt_install() {
    if [[ $(id -u) -ne 0 ]]; then
        venv_log "python3 has no working venv module; install it with:"
        venv_log "  sudo apt-get update && sudo apt-get install -y python3-venv python3-pip"
        return 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        venv_log "python3 has no working venv module and apt-get is not available; install python3's venv module"
        return 1
    fi
    venv_log "python3 has no working venv module: installing python3-venv and python3-pip with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv python3-pip >/dev/null
}

venv_create() {
    local err
    command -v python3 >/dev/null 2>&1 || { venv_log "python3 not found"; return 1; }
    rm -rf "$VENV_DIR"
    mkdir -p "$(dirname "$VENV_DIR")"
    venv_log "creating $VENV_DIR with $(python3 --version 2>&1)"
    if err=$(python3 -m venv "$VENV_DIR" 2>&1); then
        return 0
    fi
    # Debian/Ubuntu split venv/ensurepip into python3-venv; its absence is the expected failure.
    if grep -qiE 'ensurepip|No module named' <<<"$err"; then
        rm -rf "$VENV_DIR"
        venv_apt_install || return 1
        venv_log "retrying: python3 -m venv $VENV_DIR"
        python3 -m venv "$VENV_DIR" && return 0
    fi
    echo "$err" >&2
    venv_log "could not create the virtual environment"
    return 1
}

venv_ensure() {
    local stamp="$VENV_DIR/.installed-requirements.txt"
    mkdir -p "$REPO_ROOT/build"
    # Two scripts started at once must not build the same venv together.
    if command -v flock >/dev/null 2>&1; then
        exec {VENV_LOCK_FD}>"$REPO_ROOT/build/.venv.lock"
        flock "$VENV_LOCK_FD"
    fi
    if [[ ! -x $VENV_PYTHON ]] || ! "$VENV_PYTHON" -c 'import sys' >/dev/null 2>&1; then
        venv_create || return 1
    fi
    if cmp -s "$VENV_REQUIREMENTS" "$stamp"; then
        venv_log "up to date: $VENV_DIR"
    else
        venv_log "installing pinned packages from ${VENV_REQUIREMENTS#"$REPO_ROOT"/}"
        "$VENV_PYTHON" -m pip install --disable-pip-version-check --quiet -r "$VENV_REQUIREMENTS" || {
            venv_log "pip install failed"
            return 1
        }
        cp "$VENV_REQUIREMENTS" "$stamp"
    fi
    if [[ -n ${VENV_LOCK_FD:-} ]]; then
        exec {VENV_LOCK_FD}>&-
    fi
}
