#include "platform/shared_library.hpp"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace shootout::platform {

#if defined(_WIN32)

std::string versioned_library_file(const std::string& name, int version) { return name + "-" + std::to_string(version) + ".dll"; }

void* open_library(const std::string& file, std::string& error) {
    HMODULE library = ::LoadLibraryA(file.c_str());
    if (!library) error = file + ": cannot be loaded (Windows error " + std::to_string(::GetLastError()) + ")";
    return reinterpret_cast<void*>(library);
}

void* library_symbol(void* library, const char* symbol) {
    return reinterpret_cast<void*>(::GetProcAddress(static_cast<HMODULE>(library), symbol));
}

#else

std::string versioned_library_file(const std::string& name, int version) {
#if defined(__APPLE__)
    return "lib" + name + "." + std::to_string(version) + ".dylib";
#else
    return "lib" + name + ".so." + std::to_string(version);
#endif
}

void* open_library(const std::string& file, std::string& error) {
    void* library = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) error = ::dlerror();  // names the file and says why
    return library;
}

void* library_symbol(void* library, const char* symbol) { return ::dlsym(library, symbol); }

#endif

}  // namespace shootout::platform
