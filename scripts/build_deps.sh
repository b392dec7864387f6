# shellcheck shell=bash
# Sourced by scripts/run.sh and scripts/test.sh: installs, on Debian or Ubuntu, the distribution
# packages the build needs when they are missing, then configures and builds the release preset;
# and report_skipped, for every script that runs ctest.
# nvcc (and NCCL with it) is optional and never installed here: without it the CUDA and nccl/*
# backends are listed as built without CUDA (or NCCL). A GPU's OpenCL driver comes with its vendor's
# driver, never from here.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian package -> what shows it is there
declare -A BUILD_PACKAGES=(
    [cmake]="command -v cmake"
    [g++]="command -v g++"
    [make]="command -v make"
    [libbenchmark-dev]="test -f /usr/include/benchmark/benchmark.h"
    [libgtest-dev]="test -f /usr/include/gtest/gtest.h"
    [libtbb-dev]="test -f /usr/include/oneapi/tbb.h"
    # Debian's OpenMPI, for the mpi/* backends and their mpirun test (README.md, "Running on a cluster")
    [libopenmpi-dev]="command -v mpicc"
    [openmpi-bin]="command -v mpirun"
    [python3]="command -v python3"
    # OpenCL: headers and the ICD loader for the opencl/* backends, and PoCL, an OpenCL driver for the
    # CPU, so that their tests run on any machine (opencl/README.md)
    [ocl-icd-opencl-dev]="test -f /usr/lib/$(gcc -dumpmachine 2>/dev/null)/libOpenCL.so"
    [opencl-c-headers]="test -f /usr/include/CL/cl.h"
    [pocl-opencl-icd]="test -f /etc/OpenCL/vendors/pocl.icd"
    # The vulkan/* backends: headers and glslc to build them, lavapipe (Vulkan on the CPU) and the
    # Khronos validation layer to test them without a GPU; the loader comes with libvulkan-dev
    [libvulkan-dev]="test -f /usr/include/vulkan/vulkan.h"
    [glslc]="command -v glslc"
    [mesa-vulkan-drivers]="compgen -G '/usr/share/vulkan/icd.d/lvp_icd.*.json'"
    [vulkan-validationlayers]="test -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"
)

install_missing_packages() {
    local missing=() package
    for package in "${!BUILD_PACKAGES[@]}"; do
        eval "${BUILD_PACKAGES[$package]}" >/dev/null 2>&1 || missing+=("$package")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        echo "[build] missing packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
        return 1
    fi
    echo "[build] installing missing packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
}

# build_release [TARGET...]: configure and build the release preset, every target or those named.
build_release() {
    install_missing_packages
    cd "$REPO_ROOT"
    cmake --preset release
    cmake --build --preset release --parallel "$(nproc)" ${1:+--target "$@"}
}

# Each reason ctest's log gives for skipped tests, once, with how many tests it skipped.
report_skipped() {
    local log="$1/Testing/Temporary/LastTest.log" prefix="$2"
    grep -A1 -E ': Skipped$' "$log" | grep -v -E ': Skipped$|^--$' | sort | uniq -c |
        sed -E "s/^ *([0-9]+) /[$prefix] \\1 tests skipped: /" || true
}
