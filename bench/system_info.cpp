#include "system_info.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <limits>

#ifndef SHOOTOUT_COMPILER
#define SHOOTOUT_COMPILER "unknown"
#endif
#ifndef SHOOTOUT_BUILD_TYPE
#define SHOOTOUT_BUILD_TYPE "unknown"
#endif

namespace shootout {

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("model name")) continue;
        const auto colon = line.find(':');
        if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
    return "unknown";
}

std::string machine_identity() {
    // Placeholder until the fingerprint lands: host name and CPU model, FNV-1a.
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (char c : host_name() + '\n' + cpu_model()) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-%08x", static_cast<unsigned>(hash >> 32));
    return host_name() + suffix;
}

std::string compiler_version() { return SHOOTOUT_COMPILER; }
std::string build_type() { return SHOOTOUT_BUILD_TYPE; }

std::string utc_timestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%FT%TZ", &utc);
    return text;
}

namespace {
std::uint64_t read_number(const char* path) {
    std::ifstream in(path);
    std::uint64_t value = 0;
    if (in >> value) return value;
    return std::numeric_limits<std::uint64_t>::max();  // missing, or "max"
}
}  // namespace

std::uint64_t available_memory_bytes() {
    std::uint64_t available = std::numeric_limits<std::uint64_t>::max();
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
    return available;
}

}  // namespace shootout
