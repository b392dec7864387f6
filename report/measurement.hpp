// One measurement: a row of the CSV, an entry of the JSON, a line of progress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/element_type.hpp"
#include "platform/system.hpp"

namespace shootout {

struct Measurement {
    std::string timestamp;  // ISO 8601, UTC, when the measurement finished
    std::string host, cpu, gpu, compiler, build;
    std::string backend, device;
    int threads = 1;
    std::string input;
    std::optional<std::uint64_t> seed;  // none for file inputs
    std::uint64_t n = 0, bytes = 0;
    double gbps = 0;             // bytes / time_ns_median, decimal GB/s
    double time_ns_median = 0;   // median over repetitions of the time per call
    double time_ns_min = 0;      // minimum over repetitions of the time per call
    std::int64_t iterations = 0; // calls per repetition
    double result = 0, exact = 0, rel_error = 0;
    double peak_gbps = 0;        // device's theoretical bandwidth; 0 when unknown
    // Columns added by harness v2 (results/README.md):
    std::string machine;         // host name plus a fingerprint of the hardware: "<host>-<8 hex digits>"
    std::string timing;          // "isolated" (one call per timed region) or "batched"
    int batch = 1;               // calls per timed region: 1 when isolated
    std::string cache;           // "warm": the same input every call; "cold": rotated past 4x the last-level cache
    std::string accumulator, order, reproducibility, role;  // the backend's declared traits (backend.hpp)
    std::string reproducible;    // observed: "yes" when every repetition, and every other thread count and
                                 // timing of this backend on this input, gave the same bits; else "no"
    // Columns added for multi-GPU and multi-process runs:
    int gpus = 0;                // devices each rank used: 0 on the CPU, 1 for one-device backends, N for nccl/*
    int ranks = 1;               // MPI ranks that shared the input: 1 unless run under mpirun
    // Columns added for the CPU's input placement:
    std::string pages;           // what backs the host memory a call reads: "huge", "4k", "mixed"; "" for
                                 // device rows (device memory)
    // Column added for backends that tune themselves in prepare:
    std::string configuration;   // what the case's prepares chose (Reduction::configuration()), with how
                                 // many chose each when they differed; "" for backends that choose nothing
    // Column added for the element-type axis:
    ElementType dtype = ElementType::f32;  // the input's element type: "f32", "f64", "f16", "bf16"
    // Column added for builds on other operating systems:
    std::string os = platform::os_name();  // the system that measured the row: "linux", "windows", "macos"
    // Columns added for the energy per call (gb_per_j is derived from it) and the code's version:
    std::optional<double> energy_j = {};  // the device's energy per call, in joules, where it has a
                                          // counter (rules::kEnergyWindowSeconds); none elsewhere
    std::string version;                  // build_version() of the build that measured the row
    // Columns added for each row's noise and clocks (measurement_rules.hpp, "noise" and "throttle"):
    std::optional<double> spread = {};    // 1.4826 x MAD / median of the kept repetitions; none below 2
    int reps = 0;                         // repetitions kept (the median's); 0 when unknown
    std::string noisy = {};                  // "yes" when spread is above the threshold, "no", "" without a spread
    std::optional<int> throttled = {};    // repetitions discarded as throttled; none without device clocks
    std::optional<double> sm_clock_mhz = {}, mem_clock_mhz = {};  // the device's clocks, medians over the repetitions
    // Columns added for the CPU's context, read once at the start of the run:
    std::string governor = {};               // cpufreq's scaling governor of cpu0; "" where there is none
    std::string turbo = {};                  // "on", "off", or "" where the system does not say
    std::optional<double> load1 = {};     // the 1-minute load average
    // JSON only (repetitions_ns): the kept repetitions' times per call in ns, in the order taken.
    std::vector<double> repetitions_ns = {};
};

}  // namespace shootout
