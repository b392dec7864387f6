#!/usr/bin/env bash
# Gathers accumulate_bench and every GoogleTest program of a build, with the shared libraries they
# need beyond the C library, the dynamic loader and the NVIDIA driver, into one folder that runs on
# any x86-64 Linux with a glibc at least as new as the build machine's (and an NVIDIA driver for the
# CUDA backends). The programs' RUNPATH is $ORIGIN (top-level CMakeLists.txt), so they load the
# copies beside them; a library's own dependencies resolve to the copies the program loaded first.
#
#   scripts/bundle.sh [BUILD_DIR] [OUT_DIR]     defaults: build/release bundle
set -euo pipefail

build=${1:-build/release}
out=${2:-bundle}

# glibc's own libraries, the loader and the driver: the target machine's must be used.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libcuda|libnvidia-)[.-]'

programs=("$build/accumulate_bench")
while IFS= read -r test; do programs+=("$test"); done < <(
    find "$build/tests" -maxdepth 1 -type f -perm -u+x \( -name '*_test' -o -name '*_tests' \) | sort)
# The single-pass policy sweep, where the build has CUDA.
[[ -x $build/tools/single_pass_sweep ]] && programs+=("$build/tools/single_pass_sweep")
for p in "${programs[@]}"; do
    [[ -x $p ]] || { echo "bundle.sh: $p is missing: build first (cmake --build $build)" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
cp "${programs[@]}" "$out/"
ldd "${programs[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | while read -r soname path; do
    [[ $soname =~ $system_lib ]] && continue
    cp -L "$path" "$out/$soname"
done

# Check: every program resolves every library, outside this machine's library path too.
missing=$(cd "$out" && env -i PATH=/usr/bin:/bin ldd ./* 2>&1 | grep 'not found' || true)
if [[ -n $missing ]]; then
    echo "bundle.sh: unresolved libraries:" >&2
    echo "$missing" >&2
    exit 1
fi
for p in "$out"/accumulate_bench "$out"/*_test*; do
    readelf -d "$p" | grep -q 'R.*PATH.*\$ORIGIN' || { echo "bundle.sh: $p lacks RUNPATH \$ORIGIN" >&2; exit 1; }
done
echo "bundle.sh: $(ls "$out" | wc -l) files, $(du -sh "$out" | cut -f1) in $out:"
ls "$out"
