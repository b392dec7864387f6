// accumulate_bench's command line: what to sum, how often, and where to write it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/backend.hpp"
#include "bench/inputs.hpp"

namespace shootout {

// A command line that cannot be followed; what() names the option and what is wrong with it.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string backends = "all";
    std::vector<std::uint64_t> sizes;  // elements; empty with a file input (its length is the size)
    bool sizes_per_thread = false;     // --sizes=per-thread:SPEC: sizes are elements per thread
    InputSpec input;
    std::vector<int> threads;  // thread counts for parallel backends
    std::vector<int> gpus;     // GPU counts for multi-GPU backends; empty: all visible GPUs
    bool include_transfer = false;
    bool list = false;
    bool machine = false;  // print machine_identity() and exit
    bool help = false;
    std::string csv_path;
    std::string json_path;
    std::vector<std::string> benchmark_flags;  // --benchmark_* flags, passed on to Google Benchmark
};

inline constexpr std::string_view kDefaultSizes = "2^10..2^26";

// Parses argv[1..]. Throws UsageError.
Options parse_command_line(const std::vector<std::string>& args);

// "2^10..2^30", "2^24", "16777216", "32MiB..4GiB", and comma-separated lists of these, into element
// counts. Ranges step by powers of two and include both ends. Throws UsageError.
std::vector<std::uint64_t> parse_sizes(std::string_view spec);

// "all", "cpu", "cuda", names and shell-style globs, comma-separated, into registered backends.
// The groups leave out the distributed (mpi/*) backends: those are named, or matched by a glob.
// Throws UsageError naming the unknown entry and listing the valid names.
std::vector<const Backend*> select_backends(std::string_view spec);

std::string usage();

// Google Benchmark's command line: program, the measurement rules' defaults for a run of `ranks`
// processes, then the user's --benchmark_* flags, which win. Throws UsageError for a flag the run
// cannot honour (interleaving under several ranks).
std::vector<std::string> benchmark_arguments(const std::string& program, const std::vector<std::string>& user_flags, int ranks);

}  // namespace shootout
