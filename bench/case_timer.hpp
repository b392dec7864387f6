// Time: runs every planned case on one input through Google Benchmark, by the rules in
// measurement_rules.hpp, and hands each case's timing to a callback once, when it is finished.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/sweep_plan.hpp"

namespace shootout {

struct CaseTiming {
    double median_ns = 0, min_ns = 0;  // per call
    std::int64_t calls = 0;            // calls per repetition
    std::string error = {};            // set when the case failed or was skipped
    // The kept repetitions' times per call, in the order taken; empty where Google Benchmark
    // reported only aggregates (--benchmark_report_aggregates_only).
    std::vector<double> repetitions_ns = {};
    std::optional<double> spread = {};  // rules::relative_spread of repetitions_ns
    // Devices with readable clocks: repetitions discarded as throttled, and the medians of the SM
    // and memory clocks read after the kept ones (rules "throttle"); none elsewhere.
    std::optional<int> throttled = {};
    std::optional<double> sm_mhz = {}, memory_mhz = {};
};

// When a case has enough repetitions (measurement_rules.hpp, "noise"): with max_noise, not before
// its spread is at most that fraction or max_noise_seconds of timed repetitions were spent.
struct StoppingRule {
    std::optional<double> max_noise = {};
    double max_noise_seconds = 0;
};

using CaseFinished = std::function<void(const Case&, const CaseOutcome&, const CaseTiming&)>;

// What one case's repetitions gave, over every round it ran in.
struct RepetitionsTaken {
    std::vector<double> times = {};  // kept repetitions' times per timed region, in the order taken
    std::vector<double> sm = {}, memory = {};  // the clocks after each kept repetition, where read
    int throttled = 0, retaken = 0;  // discarded as throttled: all, and those already re-taken
    bool clocked = false;            // some repetition read the device's clocks
    int round_repetitions = 0;       // repetitions in the case's first round
    double seconds = 0;              // timed seconds of every repetition
    std::int64_t iterations = 0;     // timed regions per repetition, in the first round
    std::optional<double> median = {}, min = {};  // aggregates, when repetitions were not reported one by one
};

// How many more repetitions a case whose round ended needs (measurement_rules.hpp, "noise" and
// "throttle"): those discarded as throttled, while re-takes are left; else, with max_noise, another
// round as long as its first while its spread is above it and its time is not spent; 0 when done.
int repetitions_wanted(RepetitionsTaken& taken, const StoppingRule& stopping);

// Leaves the cases --benchmark_filter selects, by the library's rule (src/re.h: std::regex, POSIX
// extended, searched in the name it registers, the case's name and /manual_time or /real_time; a
// leading '-' keeps those it does not match; "" and "." keep every case), so that a run counts its
// cases before it starts and makes no input that no case reads.
void keep_filtered(std::list<Case>& cases, const std::string& filter);

// Returns how many cases --benchmark_filter matched: those that ran, or with --benchmark_list_tests
// those whose names Google Benchmark printed instead (`input` is then never read).
std::size_t time_cases(std::list<Case>& cases, Elements input, const CaseFinished& finished, const StoppingRule& stopping = {});

}  // namespace shootout
