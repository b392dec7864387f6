#include "platform/shared_library.hpp"

#include <windows.h>

namespace shootout::platform {

std::string versioned_library_file(const std::string& name, int version) { return name + "-" + std::to_string(version) + ".dll"; }

void* open_library(const std::string& file, std::string& error) {
    HMODULE library = LoadLibraryA(file.c_str());
    if (!library) error = file + ": LoadLibrary failed with error " + std::to_string(GetLastError());
    return reinterpret_cast<void*>(library);
}

void* library_symbol(void* library, const char* symbol) {
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(library), symbol));
}

}  // namespace shootout::platform
