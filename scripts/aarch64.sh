# shellcheck shell=bash
# Sourced by scripts/platforms.sh, whose CI step it is: the aarch64 (Arm) cross build of the release
# configuration (CMakePresets.json "aarch64", cmake/aarch64-linux-gnu.cmake) and its tests under
# qemu-user: NEON on an emulated Neoverse N1, SVE at 128 and 512 bits (tests/CMakeLists.txt). Installs, on Debian
# or Ubuntu, what it needs when missing: the cross compiler, qemu-user, and Google Benchmark,
# GoogleTest and oneTBB for arm64 from the distribution (multiarch). What cannot be installed is an
# error: the Arm build and tests are never skipped silently.

source "$(dirname "${BASH_SOURCE[0]}")/build_deps.sh"  # report_skipped
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AARCH64_PACKAGES=(g++-aarch64-linux-gnu qemu-user libbenchmark-dev:arm64 libgtest-dev:arm64 libtbb-dev:arm64)

aarch64_log() { echo "[aarch64] $*" >&2; }

aarch64_missing_packages() {
    local package
    for package in "${AARCH64_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' || echo "$package"
    done
}

install_aarch64_packages() {
    local missing
    mapfile -t missing < <(aarch64_missing_packages)
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        aarch64_log "missing packages: ${missing[*]}; install them with:"
        aarch64_log "  sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo apt-get install ${missing[*]}"
        return 1
    fi
    aarch64_log "installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
    if ! apt-get update -qq || ! apt-get install -y -qq "${missing[@]}" >/dev/null; then
        aarch64_log "could not install ${missing[*]}"
        if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
            aarch64_log "Ubuntu serves arm64 packages from http://ports.ubuntu.com/ubuntu-ports, not from its amd64"
            aarch64_log "mirrors: add a sources entry for it with 'Architectures: arm64', and 'Architectures: amd64'"
            aarch64_log "to the existing ones (docs/platforms.md, Arm)"
        fi
        return 1
    fi
}

aarch64_build_and_test() {
    local build="$REPO_ROOT/build/aarch64" start=$SECONDS
    case "$(uname -m)" in
        x86_64) ;;
        aarch64 | arm64)
            aarch64_log "this machine is aarch64: the native build and tests above ran the Arm kernels"
            return 0 ;;
        *)
            aarch64_log "no aarch64 cross build from a $(uname -m) machine (cmake/aarch64-linux-gnu.cmake is for x86-64 hosts)"
            return 1 ;;
    esac
    if ! install_aarch64_packages; then
        aarch64_log "FAILED: without the cross toolchain and the arm64 libraries the aarch64 build and tests cannot run"
        return 1
    fi
    cd "$REPO_ROOT" || return 1
    cmake --preset aarch64
    cmake --build --preset aarch64 --parallel "$(nproc)"
    local status=0
    ctest --preset aarch64 --parallel "$(nproc)" || status=$?
    report_skipped "$build" aarch64
    if [[ -s $build/tests/not_under_emulation.txt ]]; then
        sed 's/^/[aarch64] not run under qemu: /' "$build/tests/not_under_emulation.txt"
    fi
    aarch64_log "cross build and tests under qemu-aarch64: $((SECONDS - start)) s"
    return "$status"
}
