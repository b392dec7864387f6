// What a run was asked to do: the settings the command line sets and the sweep reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/element_type.hpp"
#include "api/launch_tuning.hpp"
#include "api/measurement_rules.hpp"
#include "bench/inputs.hpp"

namespace shootout {

struct Options {
    std::string backends = "all";
    std::vector<std::uint64_t> sizes;  // elements (of the first --dtype); empty with a file input (its length is the size)
    std::string sizes_spec;            // --sizes as given (per-thread: removed): byte sizes count per element type
    bool sizes_per_thread = false;     // --sizes=per-thread:SPEC: sizes are elements per thread
    InputSpec input;
    std::vector<int> threads;  // thread counts for parallel backends
    std::vector<int> gpus;     // GPU counts for multi-GPU backends; empty: all visible GPUs
    std::vector<ElementType> dtypes = {ElementType::f32};  // the element types swept, in the order given
    bool dtype_given = false;  // --dtype was on the command line (a file input's .npy header must agree)
    bool include_transfer = false;
    // --tune / --retune: how the portable kernels find their launch shapes (api/launch_tuning.hpp);
    // not given: $SHOOTOUT_TUNE, else auto.
    std::optional<TuneMode> tune;
    bool list = false;
    bool machine = false;  // print machine_identity() and exit
    bool version = false;  // print build_version() and exit
    bool columns = false;  // print columns_document() and exit
    bool help = false;
    std::string csv_path;
    std::string json_path;
    std::string write_input;  // --write-input=DIR: write the inputs and their exact sums there instead of measuring
    std::vector<std::string> benchmark_flags;  // --benchmark_* flags, passed on to Google Benchmark
    bool list_cases = false;  // --benchmark_list_tests: Google Benchmark prints the cases' names; nothing is measured
    std::optional<double> max_noise;  // --max-noise=PCT as a fraction: repeat a case until its spread is below it
    double max_noise_seconds = rules::kMaxNoiseSeconds;       // --max-noise-seconds: the timed seconds a case may take getting there
};

inline constexpr std::string_view kDefaultSizes = "2^10..2^26";

}  // namespace shootout
