# shellcheck shell=bash
# Sourced by scripts/ci_platforms.sh: the builds for other compilers and systems, each with
# warnings as errors, and their CPU suites (clang's are the others': see clang_build).
#   clang:        Clang 16 with libstdc++ (CMakePresets.json "clang"), CUDA host code included: the
#                 programs and the suites with CUDA or NCCL code built only (clang_build)
#   clang-libcxx: Clang 16 with libc++ ("clang-libcxx"), GoogleTest and Google Benchmark built for libc++
#   windows:      Windows x86-64 cross build with MinGW-w64 ("windows", cmake/x86_64-w64-mingw32.cmake),
#                 a short sweep and its CPU suites under Wine; GoogleTest, Google Benchmark and oneTBB built for it
# Installs, on Debian or Ubuntu, the packages it needs when missing. Libraries the distribution
# packages only for Linux and libstdc++ are built from its source packages (apt-get source, through
# a sources list of its own: the system's apt configuration is left as it is), once, under build/.
# What cannot be installed is an error: no build is skipped silently.

source "$(dirname "${BASH_SOURCE[0]}")/aarch64.sh"  # its CI step, and build_deps.sh's report_skipped
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLATFORM_PACKAGES=(clang-16 libc++-16-dev libc++abi-16-dev libomp-16-dev g++-mingw-w64-x86-64-posix wine wine64 googletest)
SOURCES="$REPO_ROOT/build/sources"
# The CPU suites, by ctest label (tests/CMakeLists.txt): the GPU, NCCL and MPI suites need hardware
# or a build the other configurations do not have, and the release build runs them.
CPU_SUITES='^(harness_tests|cpu_backends_test|cpu_accuracy_test|exact_backends_test|cli)$'

platforms_log() { echo "[platforms] $*" >&2; }

install_platform_packages() {
    local missing=() package
    for package in "${PLATFORM_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$package")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        platforms_log "missing packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
        return 1
    fi
    platforms_log "installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The distribution's source packages of Google Benchmark and oneTBB, unpacked under $SOURCES.
fetch_sources() {
    [[ -d $SOURCES/benchmark && -d $SOURCES/onetbb ]] && return 0
    local id codename mirror components
    id=$(. /etc/os-release && echo "${ID:-}")
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    case "$id" in
        debian) mirror="http://deb.debian.org/debian" components="main" ;;
        ubuntu) mirror="http://archive.ubuntu.com/ubuntu" components="main universe" ;;
        *) platforms_log "no source packages for '$id': put Google Benchmark's and oneTBB's sources in $SOURCES/{benchmark,onetbb}"
           return 1 ;;
    esac
    mkdir -p "$SOURCES/apt/lists/partial"
    echo "deb-src $mirror $codename $components" > "$SOURCES/apt/sources.list"
    local apt_options=(-o "Dir::Etc::SourceList=$SOURCES/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                       -o "Dir::State::Lists=$SOURCES/apt/lists" -o APT::Sandbox::User=root)
    apt-get "${apt_options[@]}" update -qq || return 1
    (cd "$SOURCES" && apt-get "${apt_options[@]}" source --download-only benchmark onetbb >/dev/null) || return 1
    local name
    for name in benchmark onetbb; do
        mkdir -p "$SOURCES/$name"
        tar -xf "$(ls "$SOURCES/${name}"_*.orig.tar.*)" -C "$SOURCES/$name" --strip-components=1
    done
}

# build_dep PREFIX NAME SOURCE [CMAKE ARGS...]: one CMake project built and installed into PREFIX, once.
build_dep() {
    local prefix="$1" name="$2" source="$3"; shift 3
    [[ -f $prefix/.built-$name ]] && return 0
    platforms_log "building $name into $prefix"
    cmake -S "$source" -B "$prefix/build/$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" "$@" >/dev/null &&
        cmake --build "$prefix/build/$name" --parallel "$(nproc)" >/dev/null &&
        cmake --install "$prefix/build/$name" >/dev/null &&
        touch "$prefix/.built-$name"
}

# GoogleTest and Google Benchmark into PREFIX, built with the CMake arguments given.
build_test_deps() {
    local prefix="$1"; shift
    build_dep "$prefix" googletest /usr/src/googletest -DBUILD_GMOCK=OFF "$@" &&
        build_dep "$prefix" benchmark "$SOURCES/benchmark" -DBENCHMARK_ENABLE_TESTING=OFF -DBENCHMARK_ENABLE_WERROR=OFF "$@"
}

# cpu_suites PRESET WHERE: runs the built preset's CPU suites, each test a process of its own that
# ctest stops at its timeout; prints the failures, then how many tests ran, passed, were skipped
# (each reason once, with its count) and failed. ctest's output stays in build/PRESET/ctest.txt.
cpu_suites() {
    local preset="$1" where="$2" log="$REPO_ROOT/build/$1/ctest.txt" status=0
    cd "$REPO_ROOT" || return 1
    ctest --preset "$preset" --parallel "$(nproc)" --timeout 300 -L "$CPU_SUITES" >"$log" 2>&1 || status=1
    grep -E '\*\*\*(Failed|Timeout|Exception)|Not Run|Errors while running|No tests were found' "$log" || true
    local total failed skipped
    total=$(grep -Eo 'tests failed out of [0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
    failed=$(grep -Eo '[0-9]+ tests failed out of' "$log" | grep -Eo '^[0-9]+' || echo 0)
    skipped=$(grep -c '\*\*\*Skipped' "$log" || true)
    [[ $total -gt 0 && $failed -eq 0 ]] || status=1
    report_skipped "$REPO_ROOT/build/$preset" "$preset"
    platforms_log "$preset: $total tests run $where: $((total - failed - skipped)) passed, $skipped skipped, $failed failed"
    return "$status"
}

# preset_build PRESET: configure and build.
preset_build() {
    local preset="$1" start=$SECONDS
    cd "$REPO_ROOT" || return 1
    cmake --preset "$preset" >/dev/null && cmake --build --preset "$preset" --parallel "$(nproc)" || return 1
    platforms_log "$preset: built in $((SECONDS - start)) s"
}

# Clang with libstdc++ is built, not run: Clang's code runs in the libc++ build's suites, libstdc++'s
# in the release build's, and this build adds only what neither compiles: CUDA host code, oneTBB and
# MPI, in every backend (the programs link them all) and in the suites and tools that have code of
# their own for them. The other suites' sources compile in both of those builds.
CLANG_TARGETS=(accumulate_bench cpu_yardstick scale_out_test single_pass_sweep accumulate_nvbench)
clang_build() {
    local start=$SECONDS available targets=() target
    cd "$REPO_ROOT" && cmake --preset clang >/dev/null || return 1
    available=$(cmake --build --preset clang --target help) || return 1
    for target in "${CLANG_TARGETS[@]}"; do
        grep -qE "^(\.\.\. )?$target(:| |\$)" <<<"$available" && targets+=("$target")
    done
    cmake --build --preset clang --parallel "$(nproc)" --target "${targets[@]}" || return 1
    platforms_log "clang: ${targets[*]} built warning-free in $((SECONDS - start)) s; the suites are the clang-libcxx and release builds'"
}

# preset_build_and_test PRESET: configure, build, and run the CPU suites.
preset_build_and_test() {
    local preset="$1" start=$SECONDS status=0
    preset_build "$preset" || return 1
    cpu_suites "$preset" natively || status=1
    platforms_log "$preset: $((SECONDS - start)) s in all"
    return "$status"
}

clang_libcxx_build_and_test() {
    fetch_sources && build_test_deps "$REPO_ROOT/build/libcxx-deps" -DCMAKE_CXX_COMPILER=clang++-16 \
        -DCMAKE_CXX_FLAGS=-stdlib=libc++ || { platforms_log "FAILED: building GoogleTest and Google Benchmark for libc++"; return 1; }
    preset_build_and_test clang-libcxx
}

windows_build_and_test() {
    local deps="$REPO_ROOT/build/windows-deps" toolchain=(-DCMAKE_TOOLCHAIN_FILE="$REPO_ROOT/cmake/x86_64-w64-mingw32.cmake")
    fetch_sources && build_test_deps "$deps" "${toolchain[@]}" -DBENCHMARK_ENABLE_GTEST_TESTS=OFF &&
        build_dep "$deps" onetbb "$SOURCES/onetbb" "${toolchain[@]}" -DTBB_TEST=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF ||
        { platforms_log "FAILED: building GoogleTest, Google Benchmark and oneTBB for Windows"; return 1; }
    local start=$SECONDS status=0
    cd "$REPO_ROOT" || return 1
    cmake --preset windows >/dev/null && cmake --build --preset windows --parallel "$(nproc)" || return 1
    platforms_log "windows: built in $((SECONDS - start)) s"
    # The program itself, as a user runs it: a short sweep to a CSV, which must end, exit 0 and write
    # rows that say windows.
    local csv="$REPO_ROOT/build/windows/smoke.csv"
    rm -f "$csv"
    export WINEPREFIX="$REPO_ROOT/build/wineprefix" WINEDEBUG=-all
    # One wineserver for the whole step: every test starts a wine process of its own, and one that
    # connects while the last one's server is shutting down is refused ("wine client error:0:
    # recvmsg: Connection reset by peer") before the test runs.
    wineserver -p
    if timeout 300 wine "$REPO_ROOT/build/windows/accumulate_bench.exe" \
        --backend='cpu/serial/*,cpu/pool/simd,cpu/exact/simd' --sizes=2^10,1001 --dtype=f32,f64 --threads=2 \
        --benchmark_repetitions=1 --benchmark_min_time=0.001 --csv="$(winepath -w "$csv" 2>/dev/null || echo "$csv")" >/dev/null; then
        local rows
        rows=$(python3 -c 'import csv, sys; print(sum(r["os"] == "windows" for r in csv.DictReader(open(sys.argv[1]))))' "$csv")
        platforms_log "windows: accumulate_bench.exe under Wine wrote $rows rows"
        [[ $rows -gt 0 ]] || status=1
    else
        platforms_log "FAILED: accumulate_bench.exe under Wine"
        status=1
    fi
    cpu_suites windows "under Wine" || status=1
    wineserver -k || true
    platforms_log "windows: $((SECONDS - start)) s in all"
    return "$status"
}
