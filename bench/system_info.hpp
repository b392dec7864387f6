// Facts about this machine and build that every measurement carries.
#pragma once

#include <cstdint>
#include <string>

namespace shootout {

std::string host_name();
std::string cpu_model();        // /proc/cpuinfo's "model name"
// The host name and a fingerprint of the hardware, so that two machines with one host name differ.
std::string machine_identity();
std::string compiler_version(); // set by CMake: the C++ and, when built, CUDA compilers
std::string build_type();       // set by CMake: the build type
std::string utc_timestamp();    // now, ISO 8601

// Memory this process can still take: MemAvailable, or less when a cgroup limit says so.
std::uint64_t available_memory_bytes();

}  // namespace shootout
