# Cross build for 64-bit Windows with the distribution's MinGW-w64 (g++-mingw-w64-x86-64-posix: the
# "posix" thread model, which std::thread needs), its programs and tests run under Wine.
# scripts/platforms.sh installs both and builds GoogleTest, Google Benchmark and oneTBB for Windows
# from the distribution's sources into build/windows-deps, found through CMAKE_FIND_ROOT_PATH.
#
#   source scripts/platforms.sh && windows_build_and_test
#   (then: cmake --preset windows && cmake --build --preset windows && ctest --preset windows)
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

# Only the target's libraries and headers; programs (wine, python) come from the host.
set(SHOOTOUT_WINDOWS_DEPS "${CMAKE_CURRENT_LIST_DIR}/../build/windows-deps" CACHE PATH "GoogleTest, Google Benchmark and oneTBB built for Windows")
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 "${SHOOTOUT_WINDOWS_DEPS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The GCC runtime (libstdc++, libgcc, winpthreads, libgomp) linked in: the .exe runs without the
# toolchain's DLLs beside it. oneTBB stays a DLL (it supports no static build), built with the runtime
# linked in too; the build copies it beside the programs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
# FindOpenMP names libgomp by its full path, which -static does not redirect: name the static one.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE libgomp OUTPUT_STRIP_TRAILING_WHITESPACE)
set(OpenMP_gomp_LIBRARY "${libgomp}" CACHE FILEPATH "libgomp, linked statically")

# Every program built here (the tests, gtest_discover_tests' listing, the CLI checks) runs under
# Wine, in a prefix of its own under the build directory, its diagnostics off.
find_program(SHOOTOUT_WINE wine REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_COMMAND};-E;env;WINEPREFIX=${CMAKE_CURRENT_LIST_DIR}/../build/wineprefix;WINEDEBUG=-all;${SHOOTOUT_WINE}")
