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

// Whether the CPU and the operating system let this process run Advanced SIMD (NEON) and SVE
// instructions. False on other architectures. Apple's cores have NEON and no SVE.
bool cpu_has_neon();
bool cpu_has_sve();

}  // namespace shootout::platform
