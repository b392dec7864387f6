# shellcheck shell=bash
# Sourced by gpu_check.sh and scale_check.sh on the GPU machine: the libraries a bundle leaves to the
# machine (MPI, NCCL: scripts/bundle.sh) are put on the loader's path when they are not on it already.
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
    nccl=$(find /usr/local /usr/lib /opt -name 'libnccl.so.2' 2>/dev/null | head -1)
    [[ -n $nccl ]] && export LD_LIBRARY_PATH="$(dirname "$nccl")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if command -v mpicc >/dev/null 2>&1; then
    export LD_LIBRARY_PATH="$(mpicc --showme:libdirs 2>/dev/null | tr ' ' ':')${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
