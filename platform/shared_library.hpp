// Libraries opened at run time, so that the program runs, and says what it lacks, on a machine
// without them: dlopen on Linux and macOS, LoadLibrary on Windows.
#pragma once

#include <string>

namespace shootout::platform {

// The file a library NAME of major version VERSION goes by here, looked up on the system's library
// search path: libNAME.so.VERSION on Linux, libNAME.VERSION.dylib on macOS, NAME-VERSION.dll on
// Windows (the Vulkan loader's three names).
std::string versioned_library_file(const std::string& name, int version);

// Opens the library at file (a path, or a name to look up) for the rest of the process: it is never
// closed. nullptr, with why in error, when it cannot be opened.
void* open_library(const std::string& file, std::string& error);

// The address of symbol in a library open_library gave; nullptr when it has none.
void* library_symbol(void* library, const char* symbol);

}  // namespace shootout::platform
