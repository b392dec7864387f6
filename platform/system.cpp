#include "platform/system.hpp"

#include <algorithm>
#include <fstream>
#include <limits>

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__APPLE__)
#include <mach/mach.h>
#include <uuid/uuid.h>
#endif

namespace shootout::platform {

const char* os_name() {
#if defined(_WIN32)
    return "windows";
#elif defined(__APPLE__)
    return "macos";
#elif defined(__linux__)
    return "linux";
#else
    return "unknown";
#endif
}

bool is_terminal(int fd) {
#if defined(_WIN32)
    return _isatty(fd) != 0;
#else
    return isatty(fd) != 0;
#endif
}

std::uint64_t kernel_thread_id() {
#if defined(__linux__)
    return static_cast<std::uint64_t>(::syscall(SYS_gettid));
#else
    return 0;
#endif
}

bool kernel_holds_thread(std::uint64_t id) {
#if defined(__linux__)
    return id != 0 && ::access(("/proc/self/task/" + std::to_string(id)).c_str(), F_OK) == 0;
#else
    (void)id;
    return false;
#endif
}

std::string host_name() {
#if defined(_WIN32)
    char name[256] = {};
    DWORD size = sizeof name;
    if (!::GetComputerNameExA(ComputerNameDnsHostname, name, &size) || size == 0) return "unknown";
    return name;
#else
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
#endif
}

std::string machine_id() {
#if defined(_WIN32)
    char guid[64] = {};
    DWORD size = sizeof guid;
    if (::RegGetValueA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Cryptography", "MachineGuid",
                       RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, nullptr, guid, &size) != ERROR_SUCCESS)
        return "";
    return guid;
#elif defined(__APPLE__)
    uuid_t id{};
    const timespec wait{5, 0};
    if (::gethostuuid(id, &wait) != 0) return "";
    uuid_string_t text{};
    ::uuid_unparse_lower(id, text);
    return text;
#else
    std::string id;
    std::ifstream("/etc/machine-id") >> id;
    return id;
#endif
}

#if defined(__linux__)
namespace {
std::uint64_t read_number(const char* path) {
    std::ifstream in(path);
    std::uint64_t value = 0;
    if (in >> value) return value;
    return std::numeric_limits<std::uint64_t>::max();  // missing, or "max"
}
}  // namespace
#endif

std::uint64_t available_memory_bytes() {
    std::uint64_t available = std::numeric_limits<std::uint64_t>::max();
#if defined(_WIN32)
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (::GlobalMemoryStatusEx(&status)) available = status.ullAvailPhys;
#elif defined(__APPLE__)
    vm_statistics64_data_t pages{};
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    if (::host_statistics64(::mach_host_self(), HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&pages), &count) == KERN_SUCCESS)
        available = (static_cast<std::uint64_t>(pages.free_count) + pages.inactive_count) * vm_page_size;
#elif defined(__linux__)
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        std::uint64_t kib = 0;
        meminfo >> kib;
        if (key == "MemAvailable:") { available = kib * 1024; break; }
        meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    const std::uint64_t limit = read_number("/sys/fs/cgroup/memory.max");
    const std::uint64_t used = read_number("/sys/fs/cgroup/memory.current");
    if (limit != std::numeric_limits<std::uint64_t>::max() && used <= limit) available = std::min(available, limit - used);
#endif
    return available;
}

std::tm utc_time(std::time_t when) {
    std::tm utc{};
#if defined(_WIN32)
    ::gmtime_s(&utc, &when);
#else
    ::gmtime_r(&when, &utc);
#endif
    return utc;
}

}  // namespace shootout::platform
