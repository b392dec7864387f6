// Hands the sweep's inputs to runners outside the harness (frameworks/): accumulate_bench
// --write-input=DIR writes every input the sweep would sum (--sizes, --dtype, --input, --seed) as
// an .npy file in DIR, and DIR/inputs.json: per input its file, size, element type and exact sum
// (the superaccumulator's digits, so a runner forms result - S exactly as the harness does), and
// what every row shares: the CSV columns (csv_schema()), this machine's identity, the measurement
// rules, and each device API's device. So their rows sum the same values, in the same columns, by
// the same rules, against the same exact sums.
#pragma once

#include <iosfwd>

#include "bench/options.hpp"

namespace shootout {

inline constexpr const char* kInputManifest = "inputs.json";

// Writes the inputs, named by their place in the sweep (000-f32-n1024.npy; a skipped input's number
// is not taken by the next), and DIR/inputs.json, each a new file (OutputWrite::create: an entry
// already in DIR under one of those names is refused, a symbolic link too, before any input is
// made). Returns the exit status: 0 when every input was written, 1 when one did not fit in memory
// (named on err). Throws UsageError when DIR is not a directory or a file cannot be written there,
// std::runtime_error when a write fails.
int write_inputs(const Options& options, std::ostream& out, std::ostream& err);

}  // namespace shootout
