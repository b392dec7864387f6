#!/usr/bin/env bash
# Installs nvbench's C++ library and CMake package, the pinned cuda-bench wheel of
# tools/nvbench-requirements.txt, into build/nvbench-venv, where CMake looks for it to build
# accumulate_nvbench (configure again afterwards). Reinstalls when the pin changes.
#
#   scripts/nvbench_venv.sh
#   offline (a GPU machine), from a folder holding the wheel:
#   PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR scripts/nvbench_venv.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC2034  # read by venv.sh
SHOOTOUT_VENV="$repo/build/nvbench-venv" SHOOTOUT_VENV_REQUIREMENTS="$repo/tools/nvbench-requirements.txt"
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_ensure
shopt -s nullglob
packages=("$VENV_DIR"/lib/python*/site-packages/cuda/bench/cu*/nvbench/lib/cmake/nvbench)
if ((${#packages[@]} == 0)); then
    venv_log "the cuda-bench wheel holds no nvbench CMake package"
    exit 1
fi
printf '[nvbench] CMake package: %s\n' "${packages[@]}"
