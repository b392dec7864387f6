# Writes OUTPUT, a C++ file defining shootout::opencl::kernel_source(name): each of SOURCES (a
# comma-separated list of .cl files) as a raw string literal, under its file name without the extension.
# An include of a part, written from the repository root as every include is (a file of
# opencl/kernels/), is replaced by the part's text (one level: a part includes nothing), so a kernel
# is written in layers and built from one string.
set(text "// Generated from opencl/kernels/*.cl by opencl/embed_kernels.cmake: do not edit.\n")
string(APPEND text "#include \"opencl/runtime/kernel_sources.hpp\"\n\n#include <stdexcept>\n#include <string>\n\n")
string(APPEND text "namespace shootout::opencl {\n\nstd::string_view kernel_source(std::string_view name) {\n")
string(REPLACE "," ";" SOURCES "${SOURCES}")
foreach(source IN LISTS SOURCES)
  get_filename_component(name ${source} NAME_WE)
  file(READ ${source} body)
  get_filename_component(folder ${source} DIRECTORY)
  string(REGEX MATCHALL "#include \"opencl/kernels/[a-z_]+\\.cl\"" includes "${body}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"opencl/kernels/([a-z_]+\\.cl)\"" "\\1" part "${line}")
    file(READ ${folder}/${part} part_body)
    string(REPLACE "${line}" "${part_body}" body "${body}")
  endforeach()
  if(body MATCHES "\\)shootout_cl\"")
    message(FATAL_ERROR "${source} holds the raw string's delimiter")
  endif()
  string(APPEND text "    if (name == \"${name}\") return R\"shootout_cl(${body})shootout_cl\";\n")
endforeach()
string(APPEND text "    throw std::logic_error(\"no OpenCL kernel source named \" + std::string(name));\n}\n\n}  // namespace shootout::opencl\n")
file(WRITE ${OUTPUT} "${text}")
