// The measurement rules, in one place. Every number in a CSV row is taken by these; results/README.md
// ("How a number is taken") states them for readers, and README.md and --help point there.
//
//   memory       inputs on 2 MiB-aligned mappings with transparent huge pages requested; every CPU
//                backend reads its own copy, each part first touched by the thread that reads it
//                (cpu/parallel/placed_input.hpp); the pages column says what the kernel backed it with
//   warm-up      one untimed call right after prepare (page faults, module loading, lazy set-up), then
//                Google Benchmark's --benchmark_min_warmup_time of untimed calls
//   repetitions  --benchmark_repetitions, each of at least --benchmark_min_time seconds
//   order        the repetitions of all cases of one size run interleaved, in random order (Google
//                Benchmark's random interleaving; each case is prepared again, outside timing,
//                when its turn comes), so that a shared machine's drift from minute to minute falls
//                on every row of a size alike, and ratios between them are side by side. Under
//                mpirun with several ranks the cases run one after the other: every rank must
//                call the collectives in the same order.
//   statistic    time_ns_median (the number every plot and ratio uses) and time_ns_min, over the
//                kept repetitions' mean times per call (reps column; in the JSON, repetitions_ns)
//   noise        spread = 1.4826 x MAD / median of the kept repetitions' times (the normalised median
//                absolute deviation: the cv for normal noise, but one repetition disturbed by a shared
//                machine does not inflate it); a row is noisy when spread > kNoisySpread, or the
//                --max-noise asked for. --max-noise repeats a case in further rounds of as many
//                repetitions as its first, interleaved among the cases still above it, until its
//                spread is below it or kMaxNoiseSeconds (--max-noise-seconds) of timed repetitions
//                were spent; every repetition taken is kept, the stop depends only on the spread, so
//                the median is not chosen (no repetition is dropped for being far from it).
//   throttle     devices with readable clocks (NVML's on NVIDIA GPUs): the clocks are read after each
//                repetition; one that ends with the SM clock below kThrottleFraction of its maximum
//                is discarded and re-taken in a later round (nvbench's rule), at most
//                kMaxThrottleRetakes per case; the throttled column counts the discarded ones.
//   GB/s         input bytes / time_ns_median, decimal; a copy baseline moves twice what it counts
//   caches       each backend declares its rule (Backend::cache). CPU rows are warm: every call reads
//                the same input, so an input that fits a cache level is read from it (cache column
//                "warm"). Device rows are cold: inputs smaller than kL2RotationFactor x the device's
//                last-level cache rotate through device copies spanning that much, so no call reads
//                what the one before left there (cache column "cold"; api/device_timing.hpp).
//   timing       isolated: one call between two timestamps (host wall clock for CPU backends, device
//                timestamps for device ones). batched (backends that batch: device ones):
//                batch_calls(bytes, gpus) calls enqueued back to back between two timestamps, the time
//                divided by the count, inputs rotating as above; this is the time a call costs in a
//                stream of calls, without the submission latency an isolated call pays.
//   energy       devices with an energy counter (NVML's on NVIDIA GPUs), batched cases: after the
//                case's timed repetitions, its batch is repeated from one update of the counter to
//                the first update after kEnergyWindowSeconds of device time; energy_j is the
//                counter's difference over the calls in between. The counter moves in steps tens of
//                milliseconds apart: a window that starts and ends on a step, and lasts many steps,
//                counts every call's energy once (to within one batch at either end).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shootout::rules {

inline constexpr int kRepetitions = 5;
inline constexpr double kMinTimeSeconds = 0.05;
inline constexpr double kMinWarmupSeconds = 0.02;

// GPU inputs below this many times the L2 size are rotated through copies spanning that much.
inline constexpr std::uint64_t kL2RotationFactor = 4;

// Batched timing: enough calls for each GPU to stream about kBatchBytes of its share (a call's
// input bytes / the GPUs it is spread over), at least kMinBatch, at most kMaxBatch.
// A batch pays one unoverlapped start and drain (H200: ~6 us, so two 2^24-float calls read 16%
// slower per call than nvbench's long batches); 4 GiB is ~1 ms of H200 bandwidth, which keeps that
// below 1% at every size while a batch of the largest inputs stays two calls. Per GPU, so that each
// GPU of a multi-GPU call streams as long as one GPU alone: four H100s' first calls of a batch read
// faster than their steady state (2^28 floats: 98-99 us a call in batches of 4, 101.5-104.6 in 16).
inline constexpr std::uint64_t kBatchBytes = std::uint64_t{4} << 30;
inline constexpr int kMinBatch = 2, kMaxBatch = 1024;

inline int batch_calls(std::uint64_t input_bytes, int gpus) {
    const std::uint64_t share = std::max<std::uint64_t>(input_bytes / static_cast<std::uint64_t>(std::max(gpus, 1)), 1);
    return static_cast<int>(std::clamp<std::uint64_t>(kBatchBytes / share, kMinBatch, kMaxBatch));
}

// The energy window (above). A counter that has not moved after kEnergyGiveUpSeconds of device
// time measures nothing: the row's energy is left empty.
// The counter is read after at least kEnergyPollSeconds of batches: reading it after every batch
// (NVML's query takes about a millisecond) stretches a window of 64 us batches fifteenfold.
inline constexpr double kEnergyWindowSeconds = 0.5;
inline constexpr double kEnergyGiveUpSeconds = 5.0;
inline constexpr double kEnergyPollSeconds = 0.01;

// Noise (above): a spread above 5% is one a reader can see in a plot of one machine's rows.
inline constexpr double kNoisySpread = 0.05;
inline constexpr double kMaxNoiseSeconds = 10.0;
// Throttle (above): nvbench's default throttle threshold (its --throttle-threshold, 75%).
inline constexpr double kThrottleFraction = 0.75;
inline constexpr int kMaxThrottleRetakes = 5;

// The median of `values` (the mean of the middle two for an even count); NaN for none.
inline double median(std::vector<double> values) {
    if (values.empty()) return NAN;
    const std::size_t k = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    const double upper = values[k];
    if (values.size() % 2) return upper;
    return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k)) + upper) / 2;
}

// The spread column (above): 1.4826 x MAD / median, a fraction; none for fewer than 2 values.
inline std::optional<double> relative_spread(const std::vector<double>& values) {
    if (values.size() < 2) return std::nullopt;
    const double centre = median(values);
    std::vector<double> deviations;
    for (double value : values) deviations.push_back(std::abs(value - centre));
    constexpr double kNormalConsistency = 1.4826;  // 1 / Phi^-1(3/4): MAD x this estimates a normal's sigma
    return kNormalConsistency * median(deviations) / centre;
}

inline bool throttled(double sm_mhz, double sm_max_mhz) { return sm_mhz < kThrottleFraction * sm_max_mhz; }

inline double gbps(std::uint64_t bytes, double time_ns) { return static_cast<double>(bytes) / time_ns; }

inline constexpr const char* kInterleaveFlag = "--benchmark_enable_random_interleaving";

// Google Benchmark's flags for these rules, placed before the user's so that theirs win.
// `ranks`: the processes of the run (order, above).
inline std::vector<std::string> benchmark_defaults(int ranks) {
    return {"--benchmark_repetitions=" + std::to_string(kRepetitions),
            "--benchmark_min_time=" + std::to_string(kMinTimeSeconds),
            "--benchmark_min_warmup_time=" + std::to_string(kMinWarmupSeconds),
            std::string(kInterleaveFlag) + (ranks == 1 ? "=true" : "=false")};
}

}  // namespace shootout::rules
