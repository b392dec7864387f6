# report/columns.json, the column table plot/ reads, is what this build's PROGRAM --columns prints,
# and results/README.md documents every column, in order.
# EMULATOR (a ;-list, empty in a native build) runs a cross-built PROGRAM.
execute_process(COMMAND ${EMULATOR} ${PROGRAM} --columns RESULT_VARIABLE status OUTPUT_VARIABLE printed ERROR_VARIABLE err TIMEOUT 120)
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} --columns: exit status ${status}\n${err}")
endif()
file(READ ${COMMITTED} committed)
# Windows's text streams and checkouts end lines with \r\n: the lines are what must agree.
string(REPLACE "\r\n" "\n" printed "${printed}")
string(REPLACE "\r\n" "\n" committed "${committed}")
if(NOT printed STREQUAL committed)
  message(FATAL_ERROR "${COMMITTED} is not this build's column table. Columns are only appended, and each is "
                      "documented in results/README.md; once the table is as intended, regenerate the file:\n"
                      "  ${PROGRAM} --columns > ${COMMITTED}\n"
                      "The program prints:\n${printed}")
endif()
file(READ ${README} rest)
string(JSON count LENGTH "${printed}" columns)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${printed}" columns ${i} name)
  string(FIND "${rest}" "| `${name}` |" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README}: no row \"| `${name}` | ... |\" in the column table after the previous column's")
  endif()
  string(SUBSTRING "${rest}" ${at} -1 rest)
endforeach()
message(STATUS "${COMMITTED} is this build's column table of ${count} columns, each documented in ${README}")
