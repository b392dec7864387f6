// Shared libraries opened at run time, for the optional ones a build must run without (NVIDIA's
// management library): dlopen on Linux and macOS, LoadLibrary on Windows.
#pragma once

#include <string>

namespace shootout::platform {

// The library `file` (a name the system's search finds, or a path), opened for the rest of the
// process's life; nullptr when it cannot be, with the system's reason in `error`.
void* open_library(const std::string& file, std::string& error);

// The address of `symbol` in a library open_library() opened; nullptr when it has none.
void* library_symbol(void* library, const char* symbol);

}  // namespace shootout::platform
