#include "platform/shared_library.hpp"

#include <dlfcn.h>

namespace shootout::platform {

std::string versioned_library_file(const std::string& name, int version) {
#if defined(__APPLE__)
    return "lib" + name + "." + std::to_string(version) + ".dylib";
#else
    return "lib" + name + ".so." + std::to_string(version);
#endif
}

void* open_library(const std::string& file, std::string& error) {
    void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) error = dlerror();
    return library;
}

void* library_symbol(void* library, const char* symbol) { return dlsym(library, symbol); }

}  // namespace shootout::platform
