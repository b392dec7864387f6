// Plan: what a sweep measures at one size. One Case per (backend, transfer, timing, threads); each
// has a unique Google Benchmark name, which --benchmark_filter matches.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cli.hpp"

namespace shootout {

enum class TimingRule { isolated, batched };

std::string_view to_string(TimingRule rule);

struct Case {
    const Backend* backend;
    int threads;
    bool include_transfer;
    TimingRule timing;
    int batch;         // calls per timed region: 1 when isolated
    std::string name;  // cpu/avx2/kahan/n:1048576/input:uniform/threads:1[/h2d][/batched]

    PrepareOptions prepare_options() const {
        return {.threads = threads, .include_transfer = include_transfer, .batch = batch};
    }
};

// Filled in while the case is timed.
struct CaseOutcome {
    std::optional<double> result = {};  // the last repetition's
    bool same_bits_every_repetition = true;
    std::string failure = {};
    bool exhausted = false;  // failed for lack of memory: skipped, not broken
    std::optional<std::string> pages = {};  // the CSV's pages column, read once the input was touched
};

// The input sizes a sweep makes, ascending: options.sizes, or with sizes per thread every size times
// every thread count (serial backends count as one thread).
std::vector<std::uint64_t> sweep_sizes(const Options& options);

// The cases at size n. With sizes per thread, only the thread counts T for which n is T times a
// size, and serial backends only where n is a size. A list: Google Benchmark's registrations hold
// references to its elements.
std::list<Case> plan_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n);

}  // namespace shootout
