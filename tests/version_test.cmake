# cmake/version.cmake on scratch trees: "unknown" outside git (VERSION where given), the commit's hash in a clean work
# tree, "-dirty" once a tracked file changes, a new hash after a commit; and the file is not written
# again while its text stays the same (a read-only copy survives a second run).
#   cmake -DSCRIPT=cmake/version.cmake -DWORK=DIR -P version_test.cmake
find_package(Git REQUIRED)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/plain" "${WORK}/repo")
set(out "${WORK}/version.cpp")

function(version_of dir expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${dir} -DOUTPUT=${out} ${ARGN} -P ${SCRIPT} RESULT_VARIABLE failed ERROR_VARIABLE error)
  if(failed)
    message(FATAL_ERROR "version.cmake failed on ${dir}: ${error}")
  endif()
  file(READ "${out}" text)
  if(NOT text MATCHES "return \"${expected}\";")
    message(FATAL_ERROR "version.cmake on ${dir}: expected \"${expected}\", wrote:\n${text}")
  endif()
endfunction()

function(git)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${WORK}/repo" -c user.name=test -c user.email=test@example.com ${ARGN}
                  OUTPUT_VARIABLE output OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_VARIABLE error)
  if(failed)
    message(FATAL_ERROR "git ${ARGN}: ${error}")
  endif()
  set(git_output "${output}" PARENT_SCOPE)
endfunction()

version_of("${WORK}/plain" "unknown")
version_of("${WORK}/plain" "v1.2-3-gabcdef0-dirty" -DVERSION=v1.2-3-gabcdef0-dirty)  # a copy, built elsewhere

git(init -q)
file(WRITE "${WORK}/repo/a.txt" "one\n")
git(add a.txt)
git(commit -q -m one)
git(rev-parse --short HEAD)
set(first "${git_output}")
version_of("${WORK}/repo" "${first}")
file(CHMOD "${out}" PERMISSIONS OWNER_READ)  # the same text again: not rewritten, so no write fails
version_of("${WORK}/repo" "${first}")
file(CHMOD "${out}" PERMISSIONS OWNER_READ OWNER_WRITE)

file(WRITE "${WORK}/repo/a.txt" "two\n")
version_of("${WORK}/repo" "${first}-dirty")
git(commit -q -a -m two)
git(rev-parse --short HEAD)
if(git_output STREQUAL first)
  message(FATAL_ERROR "a second commit kept the hash ${first}")
endif()
version_of("${WORK}/repo" "${git_output}")
file(REMOVE_RECURSE "${WORK}")
