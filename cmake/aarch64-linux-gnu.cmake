# Cross build for 64-bit Arm Linux with Debian's or Ubuntu's cross compiler (g++-aarch64-linux-gnu),
# its programs and tests run under user-mode emulation (qemu-user). scripts/test.sh installs both,
# and the aarch64 libraries (Google Benchmark, GoogleTest, oneTBB) from the distribution's arm64
# packages (multiarch: they live in /usr/lib/aarch64-linux-gnu, found through
# CMAKE_LIBRARY_ARCHITECTURE, which CMake reads from the cross compiler).
#
#   cmake --preset aarch64 && cmake --build --preset aarch64 && ctest --preset aarch64
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Only the target's libraries and headers: never link an x86-64 library found on the host. The
# multiarch directories (/usr/lib/aarch64-linux-gnu) are under the root "/", so "/" stays a root;
# the cross C library and libstdc++ are in /usr/aarch64-linux-gnu. Programs (qemu, python) come
# from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Every program built here (the tests, gtest_discover_tests' listing, the CLI checks) runs under
# qemu-aarch64 with the cross toolchain's directory as its root (-L): the dynamic loader, the C
# library, libstdc++ and libgomp the programs were linked against; the other libraries (Google
# Benchmark, oneTBB) are found in the multiarch directories. LD_LIBRARY_PATH=/lib (the root's /lib,
# i.e. /usr/aarch64-linux-gnu/lib) makes the loader take the C library from there too: without it,
# it finds the arm64 package's libc.so.6 first, in /lib/aarch64-linux-gnu, and a loader and a C
# library from two glibc builds hang in the first pthread_create (seen with Debian 12's
# 2.36-8cross1 and 2.36-9+deb12u14).
#
# The emulated CPU is a Neoverse N1: Advanced SIMD (NEON) and no SVE, like the first cloud Arm
# servers; so by default the NEON kernels are tested, simd::best() picks them, and cpu/sve/* say
# "CPU lacks SVE". tests/CMakeLists.txt runs the SVE kernels' tests again under qemu's "max" CPU at
# two vector lengths (SHOOTOUT_QEMU_AARCH64_BASE below, with "-cpu max,sve128=on" and sve512).
find_program(SHOOTOUT_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(SHOOTOUT_QEMU_AARCH64_BASE "${SHOOTOUT_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/lib")
set(CMAKE_CROSSCOMPILING_EMULATOR "${SHOOTOUT_QEMU_AARCH64_BASE};-cpu;neoverse-n1")
