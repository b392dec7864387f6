// Runs a sweep: for each size, makes the input and its exact sum once, then times every selected
// backend on it through Google Benchmark and hands each finished measurement to the reporters.
#pragma once

#include <iosfwd>

#include "bench/backend.hpp"
#include "bench/options.hpp"

namespace shootout {

// Returns the exit status: 0 when everything ran, 1 when something was skipped or failed.
int run_sweep(const Options& options, const std::vector<const Backend*>& backends, std::ostream& out,
              std::ostream& err);

}  // namespace shootout
