#include "platform/shared_library.hpp"

#include <dlfcn.h>

namespace shootout::platform {

void* open_library(const std::string& file, std::string& error) {
    void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) error = dlerror();
    return library;
}

void* library_symbol(void* library, const char* symbol) { return dlsym(library, symbol); }

}  // namespace shootout::platform
