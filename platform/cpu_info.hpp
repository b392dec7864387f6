// What the CPU is and which vector instructions it has, asked of the operating system or of the
// CPU itself: /proc/cpuinfo and getauxval() on Linux, cpuid on x86 everywhere, sysctl on macOS
// (written for it, not tested there), IsProcessorFeaturePresent() on Windows.
#pragma once

#include <optional>
#include <string>

namespace shootout::platform {

// The text of /proc/cpuinfo on Linux; nullopt on systems without it.
std::optional<std::string> proc_cpuinfo();

// The CPU's name as the CPU or the system gives it: cpuid's brand string on x86
// ("AMD EPYC 7B13 64-Core Processor"), machdep.cpu.brand_string on macOS ("Apple M2"); "unknown"
// when neither says.
std::string cpu_brand();

// What the CPU's clock and the machine's load were when asked, as Linux's files under `root` say
// (root: "/", or a copy of those files for a test); empty where a file is missing (other systems,
// virtual machines without cpufreq).
struct CpuContext {
    std::string governor;           // /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
    std::string turbo;              // "on" or "off": intel_pstate/no_turbo inverted, else cpufreq/boost
    std::optional<double> load1;    // the first field of /proc/loadavg
};
CpuContext cpu_context(const std::string& root = "/");

// Whether the CPU and the operating system let this process run Advanced SIMD (NEON) and SVE
// instructions. False on other architectures. Apple's cores have NEON and no SVE.
bool cpu_has_neon();
bool cpu_has_sve();

}  // namespace shootout::platform
