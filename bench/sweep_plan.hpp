// Plan: what a sweep measures at one size and element type. One Case per (backend, transfer, timing,
// threads, GPUs); each has a unique Google Benchmark name, which --benchmark_filter matches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "bench/options.hpp"

namespace shootout {

enum class TimingRule { isolated, batched };

std::string_view to_string(TimingRule rule);

struct Case {
    const Backend* backend;
    int threads;
    bool include_transfer;
    TimingRule timing;
    int batch;         // calls per timed region: 1 when isolated
    int gpus;          // devices the case uses (per rank): Backend::devices, or the --gpus count
    ElementType dtype;
    std::string name;  // cpu/avx2/kahan/n:1048576/dtype:f32/input:uniform/threads:1[/gpus:2][/h2d][/batched]

    PrepareOptions prepare_options() const {
        return {.threads = threads, .include_transfer = include_transfer, .batch = batch, .gpus = std::max(gpus, 1)};
    }
};

// Filled in while the case is timed.
struct CaseOutcome {
    std::optional<double> result = {};  // the last repetition's
    bool same_bits_every_repetition = true;
    std::string failure = {};
    bool exhausted = false;  // failed for lack of memory: skipped, not broken
    std::optional<std::string> pages = {};  // the CSV's pages column, read once the input was touched
    // Reduction::configuration() of each prepare, in the order first seen, and how many prepares
    // chose it: with interleaved repetitions a case is prepared again when its turn comes.
    std::vector<std::pair<std::string, int>> configurations = {};
    // Reduction::energy_per_call(), taken once, after the first repetition of a batched case.
    std::optional<Energy> energy = {};
    // DeviceClocks::missing: why a device's clocks, expected, could not be read.
    std::string clocks_missing = {};
};

// The input sizes a sweep makes of one element type, ascending: --sizes (byte sizes counted in that
// type), or with sizes per thread every size times every thread count (serial backends count as
// one thread).
std::vector<std::uint64_t> sweep_sizes(const Options& options, ElementType type = ElementType::f32);

// The GPU counts a multi-GPU backend is measured at: --gpus, or every visible GPU.
std::vector<int> gpu_counts(const Options& options, int visible);

// The cases at size n of element type `type`, for the backends that take it. With sizes per thread,
// only the thread counts T for which n is T times a size, and serial backends only where n is a
// size. A list: Google Benchmark's registrations hold references to its elements. A multi-GPU
// backend gets one case per gpu_counts() count up to its visible GPUs (DeviceInfo::visible, from
// `visible_gpus`; the runner names the counts left out).
std::list<Case> plan_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n,
                           ElementType type = ElementType::f32, const std::map<const Backend*, int>& visible_gpus = {});

// One input of the sweep: its size, element type and cases, planned once.
struct PlannedInput {
    std::uint64_t n;
    ElementType dtype;
    std::list<Case> cases;
};

// Every input of the sweep, in order: sizes ascending, each size's element types in --dtype's
// order. Inputs no selected backend runs are left out.
std::list<PlannedInput> plan_sweep(const std::vector<const Backend*>& backends, const Options& options,
                                   const std::map<const Backend*, int>& visible_gpus);

}  // namespace shootout
