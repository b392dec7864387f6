// Runs a sweep: for each size, makes the input and its exact sum once, then times every selected
// backend on it through Google Benchmark and hands each finished measurement to the reporters.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "bench/options.hpp"

namespace shootout {

// The "unavailable here" lines for (name, reason) pairs in selection order: one line per reason, in
// the order first seen. A reason one backend has keeps "unavailable here: NAME: REASON"; one shared
// names them all and counts them, a first path component as "cuda/*" where every name of
// `registered` under it shares the reason: "unavailable here: cuda/*, nccl/* (29 backends): REASON".
std::vector<std::string> unavailable_lines(const std::vector<std::pair<std::string, std::string>>& unavailable,
                                           const std::vector<std::string>& registered);

// Returns the exit status: 0 when everything ran, 1 when something was skipped or failed.
int run_sweep(const Options& options, const std::vector<const Backend*>& backends, std::ostream& out,
              std::ostream& err);

}  // namespace shootout
