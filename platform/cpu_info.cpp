#include "platform/cpu_info.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if defined(_WIN32)
#include <windows.h>
#endif

namespace shootout::platform {

std::optional<std::string> proc_cpuinfo() {
#if defined(__linux__)
    std::ifstream in("/proc/cpuinfo");
    if (in) return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
#endif
    return std::nullopt;
}

namespace {
// The first word of a small file, or "" when it cannot be read.
std::string first_word(const std::string& path) {
    std::ifstream in(path);
    std::string word;
    in >> word;
    return word;
}
}  // namespace

CpuContext cpu_context(const std::string& root) {
    const std::string cpu = root + "/sys/devices/system/cpu/";
    CpuContext context{.governor = first_word(cpu + "cpu0/cpufreq/scaling_governor"), .turbo = {}, .load1 = {}};
    if (const std::string no_turbo = first_word(cpu + "intel_pstate/no_turbo"); !no_turbo.empty())
        context.turbo = no_turbo == "0" ? "on" : "off";
    else if (const std::string boost = first_word(cpu + "cpufreq/boost"); !boost.empty())
        context.turbo = boost == "0" ? "off" : "on";
    const std::string load = first_word(root + "/proc/loadavg");
    char* end = nullptr;
    const double value = std::strtod(load.c_str(), &end);
    if (!load.empty() && *end == '\0') context.load1 = value;
    return context;
}

std::string cpu_brand() {
#if defined(__x86_64__) || defined(__i386__)
    // Leaves 0x80000002..4 hold the 48-character brand string, padded with spaces or NULs.
    unsigned regs[12] = {};
    if (__get_cpuid_max(0x80000000u, nullptr) >= 0x80000004u) {
        for (unsigned leaf = 0; leaf < 3; ++leaf)
            __get_cpuid(0x80000002u + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
        char text[sizeof regs + 1] = {};
        std::memcpy(text, regs, sizeof regs);
        std::string brand(text);
        const auto begin = brand.find_first_not_of(' ');
        const auto end = brand.find_last_not_of(' ');
        if (begin != std::string::npos) return brand.substr(begin, end - begin + 1);
    }
#elif defined(__APPLE__)
    char text[256] = {};
    std::size_t size = sizeof text - 1;
    if (::sysctlbyname("machdep.cpu.brand_string", text, &size, nullptr, 0) == 0 && text[0] != '\0') return text;
#endif
    return "unknown";
}

bool cpu_has_neon() {
#if defined(__aarch64__) && defined(__linux__)
    return (::getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#elif defined(__aarch64__) && defined(_WIN32)
    return ::IsProcessorFeaturePresent(PF_ARM_NEON_INSTRUCTIONS_AVAILABLE);
#elif defined(__aarch64__)
    return true;  // macOS: in every Apple core, and in the arm64 ABI
#else
    return false;
#endif
}

bool cpu_has_sve() {
#if defined(__aarch64__) && defined(__linux__)
    // HWCAP_SVE also says the kernel saves SVE state, so it is usable.
    return (::getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#else
    return false;  // Apple's cores lack it; Windows on Arm does not report it to this build
#endif
}

}  // namespace shootout::platform
