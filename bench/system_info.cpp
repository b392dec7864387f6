#include "system_info.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <limits>

#include "backend.hpp"

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

namespace {
// "model name\t: Intel(R) Xeon(R)" -> "Intel(R) Xeon(R)"
std::string value_after_colon(const std::string& line) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) return "";
    const auto begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? "" : line.substr(begin);
}
}  // namespace

std::string cpu_model(std::istream& cpuinfo) {
    std::string implementer, part;
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.starts_with("model name") && !value_after_colon(line).empty()) return value_after_colon(line);
        if (line.starts_with("CPU implementer") && implementer.empty()) implementer = value_after_colon(line);
        if (line.starts_with("CPU part") && part.empty()) part = value_after_colon(line);
    }
    // Arm kernels give no model name, only the implementer's and the part's numbers.
    if (implementer.empty() || part.empty()) return "unknown";
    return (implementer == "0x41" ? "ARM" : "implementer " + implementer) + " " + part;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    return cpu_model(in);
}

std::string machine_identity(const std::string& host, const std::string& cpu, const std::string& machine_id,
                             const std::set<std::string>& gpus) {
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a 64: offset basis, then xor and multiply per byte
    auto add = [&](const std::string& fact) {
        for (const char c : fact + '\0') hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    };
    add(host);
    add(cpu);
    add(machine_id);
    for (const std::string& gpu : gpus) add(gpu);
    char digits[9];
    std::snprintf(digits, sizeof digits, "%08x", static_cast<unsigned>((hash >> 32) ^ (hash & 0xffffffffu)));
    return host + "-" + digits;
}

std::string machine_identity() {
    std::string machine_id;
    std::ifstream("/etc/machine-id") >> machine_id;
    std::set<std::string> gpus;  // a set: many backends see the same GPU
    for (const Backend& backend : registered_backends())
        if (backend.device == Device::cuda && backend.device_info && !backend.why_unavailable())
            gpus.insert(backend.device_info().name);
    return machine_identity(host_name(), cpu_model(), machine_id, gpus);
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
