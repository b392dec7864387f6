// accumulate_bench's command line: what to sum, how often, and where to write it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "api/backend.hpp"
#include "api/errors.hpp"
#include "bench/options.hpp"

namespace shootout {

// Parses argv[1..]. Throws UsageError.
Options parse_command_line(const std::vector<std::string>& args);

// "2^10..2^30", "2^24", "16777216", "32MiB..4GiB", and comma-separated lists of these, into element
// counts (byte sizes hold that many bytes of `type`). Ranges step by powers of two and include both
// ends. Throws UsageError.
std::vector<std::uint64_t> parse_sizes(std::string_view spec, ElementType type = ElementType::f32);

// "all", "cpu", "cuda", names and shell-style globs, comma-separated, into registered backends.
// The groups leave out the distributed (mpi/*) backends: those are named, or matched by a glob.
// Throws UsageError naming the unknown entry and listing the valid names.
std::vector<const Backend*> select_backends(std::string_view spec);

std::string usage();

// Google Benchmark's command line: program, the measurement rules' defaults for a run of `ranks`
// processes, then the user's --benchmark_* flags, which win. Throws UsageError for a flag the run
// cannot honour (interleaving under several ranks).
std::vector<std::string> benchmark_arguments(const std::string& program, const std::vector<std::string>& user_flags, int ranks);

// Initializes Google Benchmark with benchmark_arguments(). Throws UsageError for a flag it does not
// know and for a --benchmark_filter it cannot compile, before anything runs.
void initialize_benchmark(const std::string& program, const std::vector<std::string>& user_flags, int ranks);

// Whether one comma-separated entry of --backend's `spec` is `name` itself, not a group or a glob:
// a backend named so that cannot run here makes the exit status 1.
bool names_backend(std::string_view spec, std::string_view name);

}  // namespace shootout
