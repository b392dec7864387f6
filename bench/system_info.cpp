#include "bench/system_info.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "api/device_api.hpp"
#include "platform/cpu_info.hpp"

#ifndef SHOOTOUT_COMPILER
#define SHOOTOUT_COMPILER "unknown"
#endif
#ifndef SHOOTOUT_BUILD_TYPE
#define SHOOTOUT_BUILD_TYPE "unknown"
#endif

namespace shootout {

namespace {
// "model name\t: Intel(R) Xeon(R)" -> "Intel(R) Xeon(R)"
std::string value_after_colon(const std::string& line) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) return "";
    const auto begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? "" : line.substr(begin);
}

// The core an Arm MIDR's implementer and part numbers name (Linux, arch/arm64/include/asm/cputype.h),
// for the cores in common servers, boards and laptops; nullptr for the others.
const char* arm_core_name(unsigned long implementer, unsigned long part) {
    struct Core {
        unsigned long implementer, part;
        const char* name;
    };
    static constexpr Core kCores[] = {
        {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd05, "Cortex-A55"},    {0x41, 0xd07, "Cortex-A57"},
        {0x41, 0xd08, "Cortex-A72"},  {0x41, 0xd0b, "Cortex-A76"},    {0x41, 0xd0c, "Neoverse N1"},
        {0x41, 0xd40, "Neoverse V1"}, {0x41, 0xd41, "Cortex-A78"},    {0x41, 0xd49, "Neoverse N2"},
        {0x41, 0xd4f, "Neoverse V2"}, {0x41, 0xd84, "Neoverse V3"},   {0x41, 0xd8e, "Neoverse N3"},
        {0x46, 0x001, "Fujitsu A64FX"}, {0x48, 0xd01, "HiSilicon TaiShan v110"},
        {0x61, 0x022, "Apple M1 Icestorm"}, {0x61, 0x023, "Apple M1 Firestorm"},
        {0x61, 0x032, "Apple M2 Blizzard"}, {0x61, 0x033, "Apple M2 Avalanche"},
    };
    for (const Core& core : kCores)
        if (core.implementer == implementer && core.part == part) return core.name;
    return nullptr;
}
}  // namespace

std::string cpu_model(std::istream& cpuinfo) {
    std::string implementer, part;
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.starts_with("model name") && !value_after_colon(line).empty()) return value_after_colon(line);
        if (line.starts_with("CPU implementer") && implementer.empty()) implementer = value_after_colon(line);
        if (line.starts_with("CPU part") && part.empty()) part = value_after_colon(line);
    }
    // Arm kernels give no model name, only the implementer's and the part's numbers (of the first
    // core listed: on big.LITTLE machines, usually a little one).
    if (implementer.empty() || part.empty()) return "unknown";
    if (const char* name = arm_core_name(std::strtoul(implementer.c_str(), nullptr, 0), std::strtoul(part.c_str(), nullptr, 0)))
        return name;
    return "ARM implementer " + implementer + " part " + part;
}

std::string cpu_model() {
    const std::optional<std::string> proc_cpuinfo = platform::proc_cpuinfo();
    if (!proc_cpuinfo) return platform::cpu_brand();
    const std::string& text = *proc_cpuinfo;
    std::istringstream cpuinfo(text);
    std::string model = cpu_model(cpuinfo);
#if defined(__aarch64__)
    // An arm64 kernel always lists CPU implementer; qemu-user (7.2) shows an emulated program the x86
    // host's /proc/cpuinfo instead. Say so: the machine identity hashes this, so emulated rows never
    // pass for the host's.
    if (text.find("CPU implementer") == std::string::npos) model += " (emulated aarch64)";
#endif
    return model;
}

std::string file_safe_host(std::string_view host) {
    std::string safe(host.empty() ? "unknown" : host);
    for (std::size_t i = 0; i < safe.size(); ++i) {
        const char c = safe[i];
        const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                          ((c == '-' || c == '.') && i > 0);
        if (!kept) safe[i] = '_';
    }
    return safe;
}

std::string host_name() { return file_safe_host(platform::host_name()); }

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
    return file_safe_host(host) + "-" + digits;
}

std::string machine_identity() {
    const std::string machine_id = platform::machine_id();
    // Every device API's devices by name and count ("cuda: NVIDIA H200 x4"; a GPU that CUDA and
    // OpenCL both see counts once for each), and the logical CPUs: cloud VMs of one image share host
    // name, CPU model and machine-id, and may differ only in how many of each they have.
    std::set<std::string> gpus;
    for (const DeviceApi& api : device_apis()) {
        if (!api.visible_devices) continue;
        std::map<std::string, int> count;
        for (const std::string& name : api.visible_devices()) ++count[name];
        for (const auto& [name, k] : count) gpus.insert(std::string(api.device.name()) + ": " + name + " x" + std::to_string(k));
    }
    gpus.insert(std::to_string(std::thread::hardware_concurrency()) + " logical CPUs");
    return machine_identity(platform::host_name(), cpu_model(), machine_id, gpus);
}

std::string compiler_version() { return SHOOTOUT_COMPILER; }
std::string build_type() { return SHOOTOUT_BUILD_TYPE; }

std::vector<std::string> context_warnings(const platform::CpuContext& cpu, const std::string& build, unsigned logical_cpus) {
    std::vector<std::string> warnings;
    if (!cpu.governor.empty() && cpu.governor != "performance")
        warnings.push_back("***WARNING*** CPU scaling is enabled (governor " + cpu.governor +
                           "): the CPU rows' times may be noisy and include the clock's ramp");
    if (build == "Debug") warnings.push_back("***WARNING*** this is a debug build: its times are not the code's");
    if (cpu.load1 && *cpu.load1 > logical_cpus) {
        char load[32];
        std::snprintf(load, sizeof load, "%.2f", *cpu.load1);
        warnings.push_back(std::string("***WARNING*** the 1-minute load average (") + load + ") is above the " +
                           std::to_string(logical_cpus) + " logical CPUs: other work shares the machine, times may be noisy");
    }
    return warnings;
}

std::string utc_timestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    const std::tm utc = platform::utc_time(now);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);  // not %F and %T: Windows' C library lacks them
    return text;
}

}  // namespace shootout
