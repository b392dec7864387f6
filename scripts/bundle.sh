#!/usr/bin/env bash
# Gathers accumulate_bench and every GoogleTest program of a build, with the shared libraries they
# need beyond the C library, the dynamic loader, the NVIDIA driver and MPI, into one folder that runs
# on any x86-64 Linux with a glibc at least as new as the build machine's (and an NVIDIA driver for
# the CUDA backends, an OpenMPI 4.x, soname libmpi.so.40, for the mpi/* ones). The programs' RUNPATH
# is $ORIGIN (top-level CMakeLists.txt), so they load the copies beside them; a library's own
# dependencies resolve to the copies the program loaded first.
#
# MPI is never bundled, like the C library: the machine's own libmpi goes with its own mpirun, its
# network and its launcher, and a copy of ours would not speak to them. The libraries only MPI loads
# (hwloc, libevent, ...) stay behind with it. Where the machine's MPI is another ABI (MPICH, OpenMPI
# 5), rebuild there (README.md, "Running on a cluster").
#
#   scripts/bundle.sh [BUILD_DIR] [OUT_DIR]     defaults: build/release bundle
set -euo pipefail

build=${1:-build/release}
out=${2:-bundle}

# glibc's own libraries, the loader and the driver: the target machine's must be used.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libcuda|libnvidia-[a-z0-9-]+)[.-]'
# MPI's libraries (OpenMPI's, MPICH's), and NCCL (200 MB, shipped with the CUDA toolkit and tied to
# the machine's driver and interconnect): the target machine's must be used. Run the programs there
# with NCCL's folder on LD_LIBRARY_PATH when it is not on the loader's path (scale_check.sh does).
mpi_lib='^(libmpi|libmpi_cxx|libmpich|libmpicxx|libopen-rte|libopen-pal|libpmix|libprrte|libpmi|libnccl)[.-]'

programs=("$build/accumulate_bench")
while IFS= read -r test; do programs+=("$test"); done < <(
    find "$build/tests" -maxdepth 1 -type f -perm -u+x \( -name '*_test' -o -name '*_tests' \) | sort)
# The single-pass policy sweep, where the build has CUDA, and the nvbench front end, where it has
# nvbench (its libnvbench.so comes along).
[[ -x $build/tools/single_pass_sweep ]] && programs+=("$build/tools/single_pass_sweep")
[[ -x $build/tools/accumulate_nvbench ]] && programs+=("$build/tools/accumulate_nvbench")
# The CPU yardstick, where it was built, for scripts/cpu_speed_check.sh on the GPU machines' hosts.
[[ -x $build/tools/cpu_yardstick ]] && programs+=("$build/tools/cpu_yardstick")
for p in "${programs[@]}"; do
    [[ -x $p ]] || { echo "bundle.sh: $p is missing: build first (cmake --build $build)" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
cp "${programs[@]}" "$out/"
needed=$(ldd "${programs[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)
# The libraries the programs load themselves (their NEEDED entries, MPI's left out) and what those
# load in turn: what only MPI loads (hwloc, libevent, ...) stays with the machine's MPI.
direct=$(for p in "${programs[@]}"; do readelf -d "$p" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u | grep -vE "$mpi_lib")
direct_paths=$(awk 'NR == FNR {want[$1]; next} $1 in want {print $2}' <(echo "$direct") <(echo "$needed"))
keep=$( (echo "$direct"; xargs -r ldd <<<"$direct_paths" | awk '$2 == "=>" {print $1}') | sort -u)
while read -r soname path; do
    [[ -z $soname || $soname =~ $system_lib || $soname =~ $mpi_lib ]] && continue
    grep -qxF "$soname" <<<"$keep" || continue
    cp -L "$path" "$out/$soname"
done <<<"$needed"
# The Vulkan loader, which vulkan/* open at run time (dlopen finds it through the same $ORIGIN run
# path), where the build has them: the GPU machines' images have NVIDIA's Vulkan driver but no
# loader. The driver stays the machine's; VK_DRIVER_FILES names its JSON file when the loader does
# not find it.
if grep -qa 'libvulkan.so.1' "$build/accumulate_bench"; then
    vulkan_loader=$(ldconfig -p | awk '$1 == "libvulkan.so.1" && /x86-64/ {print $NF; exit}')
    [[ -n $vulkan_loader ]] && cp -L "$vulkan_loader" "$out/libvulkan.so.1"
fi
# The mpirun check of the mpi/* backends, which scripts/scale_check.sh runs from the bundle.
cp "$(dirname "${BASH_SOURCE[0]}")/../tests/mpi_ranks_test.py" "$out/"

# Check: every program resolves every library, outside this machine's library path too; the
# driver's own (NVML, which accumulate_nvbench links) and MPI's are the target machine's.
missing=$(cd "$out" && env -i PATH=/usr/bin:/bin ldd ./* 2>&1 | grep 'not found' | grep -vE "^\s*(${mpi_lib#^}|${system_lib#^})" || true)
if [[ -n $missing ]]; then
    echo "bundle.sh: unresolved libraries:" >&2
    echo "$missing" >&2
    exit 1
fi
for p in "${programs[@]}"; do
    p=$out/$(basename "$p")
    readelf -d "$p" | grep -q 'R.*PATH.*\$ORIGIN' || { echo "bundle.sh: $p lacks RUNPATH \$ORIGIN" >&2; exit 1; }
done
echo "bundle.sh: $(ls "$out" | wc -l) files, $(du -sh "$out" | cut -f1) in $out:"
ls "$out"
