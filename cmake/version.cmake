# Writes OUTPUT, a C++ source defining shootout::build_version(): VERSION when given (a copy of the
# sources without .git, built elsewhere: the git describe of what was copied), else
# `git describe --always --dirty` of SOURCE_DIR, else "unknown" (no git work tree, or no git).
# Run at configure time and again before every build (the shootout_version target); the file is
# rewritten only when the text changes, so a build recompiles it only when HEAD or the tree's dirty
# state did.
#   cmake -DSOURCE_DIR=DIR -DOUTPUT=FILE [-DVERSION=TEXT] -P version.cmake
set(version "unknown")
find_package(Git QUIET)
if(VERSION)
  set(version "${VERSION}")
elseif(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE not_git OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  # Only the tree the sources are in: a source archive unpacked inside some other repository is not it.
  if(NOT not_git)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
  endif()
  if(NOT not_git AND top STREQUAL source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty
                    OUTPUT_VARIABLE described RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed AND described)
      set(version "${described}")
    endif()
  endif()
endif()
set(text "// Written by cmake/version.cmake: the version every CSV row carries.\n#include \"bench/system_info.hpp\"\n\nstd::string shootout::build_version() { return \"${version}\"; }\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
