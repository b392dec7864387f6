// Time: runs every planned case on one input through Google Benchmark, by the rules in
// measurement_rules.hpp, and hands each case's timing to a callback once, when it is finished.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <span>
#include <string>

#include "bench/sweep_plan.hpp"

namespace shootout {

struct CaseTiming {
    double median_ns = 0, min_ns = 0;  // per call
    std::int64_t calls = 0;            // calls per repetition
    std::string error = {};            // set when the case failed or was skipped
};

using CaseFinished = std::function<void(const Case&, const CaseOutcome&, const CaseTiming&)>;

// Returns how many cases --benchmark_filter matched: those that ran, or with --benchmark_list_tests
// those whose names Google Benchmark printed instead (`input` is then never read).
std::size_t time_cases(std::list<Case>& cases, Elements input, const CaseFinished& finished);

}  // namespace shootout
