// Facts about this machine and build that every measurement carries.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpu_info.hpp"
#include "platform/system.hpp"

namespace shootout {

// The host name as the host column and --machine carry it, safe in a file name
// (--csv=results/$(accumulate_bench --machine).csv): each byte other than an ASCII letter, digit,
// '-', '.' or '_' becomes '_', and so does a leading '.' or '-' (no hidden file, no option); an
// empty name is "unknown". Host names as the DNS has them stay as they are.
std::string file_safe_host(std::string_view host);
std::string host_name();  // file_safe_host(platform::host_name())

// /proc/cpuinfo's "model name"; on Arm its implementer and part: "ARM 0xd0c". Where there is no
// /proc/cpuinfo, the name the CPU or the system gives (platform::cpu_brand()).
std::string cpu_model();
std::string cpu_model(std::istream& cpuinfo);  // the same, from that file's text

// Which machine a row came from, also the default results file name: the host name (file_safe_host()),
// '-' and 8 hex digits of a hash over the host name as the system gives it, CPU model, platform::machine_id() (when readable), every
// registered device API's devices by name and count ("cuda: NVIDIA H200 x4"), and the number of
// logical CPUs ("vm-" and 8 hex digits). Cloud VMs share host names like "vm"; the hash tells their hardware
// apart.
std::string machine_identity();
// The same from given facts: the hash is 64-bit FNV-1a over each fact and a 0 byte after it,
// folded to 32 bits. Stable across versions: results files are named by it.
std::string machine_identity(const std::string& host, const std::string& cpu, const std::string& machine_id,
                             const std::set<std::string>& gpus);
std::string compiler_version(); // set by CMake: the C++ and, when built, CUDA compilers
std::string build_type();       // set by CMake: the build type
// `git describe --always --dirty` of the source tree this was built from, as of the last build
// (cmake/version.cmake); "unknown" for a build outside git.
std::string build_version();
std::string utc_timestamp();    // now, ISO 8601

// Google Benchmark's warnings about the run's context, one line each: CPU frequency scaling on (a
// governor other than performance), a debug build, a load average above the logical CPUs.
std::vector<std::string> context_warnings(const platform::CpuContext& cpu, const std::string& build, unsigned logical_cpus);

}  // namespace shootout
