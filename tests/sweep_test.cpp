// The whole pipeline in-process: input, exact sum, Google Benchmark timing, CSV.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "bench/cli.hpp"
#include "platform/memory.hpp"
#include "api/measurement_rules.hpp"
#include "report/reporters.hpp"
#include "bench/runner.hpp"
#include "bench/sweep_plan.hpp"
#include "tests/sweep_support.hpp"

namespace shootout {
namespace {

// The float running total stalls at 2^24: adding 1 to 2^24 rounds back to 2^24.
TEST(Sweep, FloatAccumulateOnOnesStallsAtTwoToTheTwentyFour) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-*", "--sizes=2^25", "--input=ones"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 2u) << r.out << r.err;
    for (const auto& row : r.rows) {
        EXPECT_EQ(row.at("n"), "33554432");
        EXPECT_EQ(row.at("bytes"), "134217728");
        EXPECT_EQ(row.at("exact"), "33554432");
        EXPECT_EQ(row.at("input"), "ones");
        EXPECT_EQ(row.at("threads"), "1");
        EXPECT_GT(std::stod(row.at("gbps")), 0);
        EXPECT_LE(std::stod(row.at("time_ns_min")), std::stod(row.at("time_ns_median")));
        EXPECT_NEAR(std::stod(row.at("gbps")), 134217728 / std::stod(row.at("time_ns_median")), 1e-3);
        if (row.at("backend") == "cpu/serial/accumulate-f32") {
            EXPECT_EQ(row.at("result"), "16777216");
            EXPECT_EQ(std::stod(row.at("rel_error")), 0.5);
        } else {
            EXPECT_EQ(row.at("backend"), "cpu/serial/accumulate-f64");
            EXPECT_EQ(std::stod(row.at("rel_error")), 0.0);
        }
    }
}

TEST(Sweep, OneProgressLinePerMeasurement) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10..2^12", "--input=normal", "--seed=3"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 3u);
    EXPECT_NE(r.out.find("[1/3] cpu/serial/accumulate-f64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[3/3] cpu/serial/accumulate-f64"), std::string::npos) << r.out;
    EXPECT_EQ(r.rows[0].at("seed"), "3");
    EXPECT_LT(std::stod(r.rows[2].at("rel_error")), 1e-6);
}

TEST(Sweep, FileInputSetsTheSizeAndHasNoSeed) {
    const auto path = std::filesystem::temp_directory_path() / ("shootout_input_" + std::to_string(::getpid()) + ".f32");
    const std::vector<float> values = {0.5f, 0.25f, 1e8f, -1e8f, 0.125f};
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64", "--input=file:" + path.string()});
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0].at("n"), "5");
    EXPECT_EQ(r.rows[0].at("seed"), "");
    EXPECT_EQ(r.rows[0].at("exact"), "0.875");
    EXPECT_EQ(r.rows[0].at("input"), "file:" + std::filesystem::weakly_canonical(path).generic_string());
    // A file's values are laid out like generated ones: the backend's own copy, its backing recorded.
    if (platform::huge_pages_available()) {
        EXPECT_EQ(r.rows[0].at("pages"), "huge");
    }
}

// The JSON is written only once a measurement exists: a run that fails on its input before that
// must not replace the user's file with an empty document.
TEST(Sweep, AnInputThatFailsLeavesAnExistingJsonAlone) {
    const auto json = std::filesystem::temp_directory_path() / ("shootout_kept_" + std::to_string(::getpid()) + ".json");
    std::ofstream(json) << "a previous run's document";
    const Options options = parse_command_line(
        {"--backend=cpu/serial/accumulate-f64", "--input=file:/nonexistent/x.f32", "--json=" + json.string()});
    std::ostringstream out, err;
    EXPECT_THROW(run_sweep(options, select_backends(options.backends), out, err), InputError);
    std::ifstream in(json);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    in.close();  // Windows removes no file that is open
    std::filesystem::remove(json);
    EXPECT_EQ(text, "a previous run's document");
}

// Every backend that declares a reproducibility shows it: the same bits in every repetition, and for
// any_thread_count backends across the whole --threads sweep.
TEST(Sweep, DeclaredReproducibilityIsObserved) {
    std::string any_threads, per_thread_count;
    for (const auto& b : registered_backends()) {
        if (b.device != Device::cpu || b.why_unavailable() || b.traits.accumulator == Accumulator::none) continue;
        if (b.traits.reproducibility == Reproducibility::any_thread_count) any_threads += (any_threads.empty() ? "" : ",") + b.name;
        if (b.traits.reproducibility == Reproducibility::per_thread_count) per_thread_count += (per_thread_count.empty() ? "" : ",") + b.name;
    }
    ASSERT_FALSE(any_threads.empty());
    ASSERT_FALSE(per_thread_count.empty());
    for (const auto& [backends, threads] : {std::pair{any_threads, "1,2,3"}, std::pair{per_thread_count, "3"}}) {
        const auto r = sweep({"--backend=" + backends, "--sizes=100003", "--input=normal", "--threads=" + std::string(threads)});
        EXPECT_EQ(r.status, 0) << r.err;
        ASSERT_FALSE(r.rows.empty());
        for (const auto& row : r.rows)
            EXPECT_EQ(row.at("reproducible"), "yes") << row.at("backend") << " threads=" << row.at("threads");
    }
}

// The observation can say no: a backend whose result drifts from call to call.
TEST(Sweep, ADriftingResultIsNotReproducible) {
    static const bool registered = register_backend({
        .name = "cpu/test/drifting",
        .description = "test only: returns how often it was called",
        .prepare = [](std::span<const float> input, const PrepareOptions&) {
            return make_host_reduction(input, [calls = 0](std::span<const float>) mutable { return ++calls; });
        },
    });
    ASSERT_TRUE(registered);
    const auto r = sweep({"--backend=cpu/test/drifting", "--sizes=2^10"});
    ASSERT_EQ(r.rows.size(), 1u) << r.err;
    EXPECT_EQ(r.rows[0].at("reproducible"), "no");
}

// The repetitions of a size's cases interleave (measurement_rules.hpp, "order"): a case is prepared
// again when its turn comes after another's. Six cases of three repetitions run one after the other
// would be prepared six times; shuffled, they come out grouped with a probability of 5e-9.
TEST(Sweep, RepetitionsOfASizesCasesInterleave) {
    static std::vector<int> prepared;  // the thread count of each prepare
    static const bool registered = register_backend({
        .name = "cpu/test/prepares",
        .description = "test only: records each prepare",
        .parallel = true,
        .prepare = [](std::span<const float> input, const PrepareOptions& options) {
            prepared.push_back(options.threads);
            return make_host_reduction(input, [](std::span<const float> x) { return x.size(); });
        },
    });
    ASSERT_TRUE(registered);
    prepared.clear();
    const auto r = sweep({"--backend=cpu/test/prepares", "--sizes=2^10", "--threads=1,2,3,4,5,6"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.rows.size(), 6u);
    EXPECT_GT(prepared.size(), 6u) << "each case prepared once: its repetitions ran back to back";
}

// The configuration column: what each prepare of a case chose, with counts when they differ. Each
// prepare of this backend chooses something new, so a case prepared k times lists k choices of
// "1 of k", and the rows' k add up to the prepares.
TEST(Sweep, ConfigurationListsWhatEachPrepareChose) {
    static int prepares = 0;
    static const bool registered = register_backend({
        .name = "cpu/test/configured",
        .description = "test only: each prepare chooses anew",
        .parallel = true,
        .prepare = [](std::span<const float> input, const PrepareOptions&) {
            struct Chosen {
                std::string choice;
                double operator()(std::span<const float> x) const { return static_cast<double>(x.size()); }
                std::string configuration() const { return choice; }
            };
            return make_host_reduction(input, Chosen{"prepare=" + std::to_string(++prepares)});
        },
    });
    ASSERT_TRUE(registered);
    prepares = 0;
    const auto r = sweep({"--backend=cpu/test/configured", "--sizes=2^10", "--threads=1,2,3,4,5,6"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 6u);
    const std::regex one("prepare=[0-9]+");
    const std::regex several("prepare=[0-9]+ \\(1 of ([0-9]+)\\)(; prepare=[0-9]+ \\(1 of \\1\\))*");
    int listed = 0, rows_with_several = 0;
    for (const auto& row : r.rows) {
        const std::string& text = row.at("configuration");
        std::smatch match;
        if (std::regex_match(text, one)) {
            ++listed;
        } else if (std::regex_match(text, match, several)) {
            const int k = std::stoi(match[1]);
            EXPECT_EQ(std::count(text.begin(), text.end(), ';'), k - 1) << text;
            listed += k;
            ++rows_with_several;
        } else {
            ADD_FAILURE() << "configuration '" << text << "'";
        }
    }
    EXPECT_EQ(listed, prepares);
    EXPECT_GT(rows_with_several, 0) << "no case was prepared twice: the repetitions did not interleave";
}

// The read ceiling says which schedule, thread count and loop it picked; a backend that picks
// nothing leaves the column empty.
TEST(Sweep, TheCeilingSaysWhatItPicked) {
    const auto r = sweep({"--backend=cpu/baseline/read,cpu/serial/accumulate-f64", "--sizes=2^16", "--threads=2"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 2u) << r.out << r.err;
    const std::string one = "schedule=(pinned parts=[12]|tbb threads=2) loop=([a-z0-9]+/f32(\\+prefetch)?|[a-z0-9]+/f64|serial/unrolled)";
    const std::regex pick(one), picks("(" + one + " \\([0-9]+ of [0-9]+\\)(; )?)+");
    for (const auto& row : r.rows) {
        const std::string& text = row.at("configuration");
        if (row.at("backend") == "cpu/baseline/read")
            EXPECT_TRUE(std::regex_match(text, pick) || std::regex_match(text, picks)) << "'" << text << "'";
        else
            EXPECT_EQ(text, "") << row.at("backend");
    }
}

// The pages column: what backs the memory each CPU backend reads once it has touched it.
TEST(Sweep, PagesSayWhatBacksTheMemoryARunReads) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64,cpu/pool/simd", "--sizes=2^10,2^20", "--threads=2"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 4u) << r.out << r.err;
    for (const auto& row : r.rows) {
        const std::string& pages = row.at("pages");
        EXPECT_TRUE(pages == "huge" || pages == "4k" || pages == "mixed") << row.at("backend") << ": '" << pages << "'";
        if (platform::huge_pages_available()) {
            EXPECT_EQ(pages, "huge") << row.at("backend") << " n=" << row.at("n");
        }
    }
}

// --sizes=per-thread:16: each thread count at 16 floats a thread, serial backends at 16.
TEST(Sweep, SizesPerThreadScaleWithTheThreadCount) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64,cpu/pool/simd", "--sizes=per-thread:16", "--threads=1,2,3"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::set<std::pair<std::string, std::string>> measured;  // (backend, threads)
    for (const auto& row : r.rows) {
        EXPECT_EQ(std::stoull(row.at("n")), 16 * std::stoull(row.at("threads"))) << row.at("backend");
        measured.emplace(row.at("backend"), row.at("threads"));
    }
    EXPECT_EQ(measured, (std::set<std::pair<std::string, std::string>>{
                            {"cpu/pool/simd", "1"}, {"cpu/pool/simd", "2"}, {"cpu/pool/simd", "3"}, {"cpu/serial/accumulate-f64", "1"}}));
}

// --gpus sweeps a multi-GPU backend like --threads: one case per count, every visible GPU by
// default, a count above the visible ones skipped by name. A test backend that "sees" two GPUs
// stands in for nccl/* on a machine without any.
TEST(Sweep, GpuCountsAreSweptAndThoseAboveTheVisibleOnesSkipped) {
    static const bool registered = register_backend({
        .name = "cpu/test/two-gpus",
        .description = "test only: a multi-GPU backend that sees two devices and returns its GPU count",
        .multi_gpu = true,
        .prepare = [](std::span<const float> input, const PrepareOptions& options) {
            return make_host_reduction(input, [gpus = options.gpus](std::span<const float>) { return gpus; });
        },
        .device_info = [] { return DeviceInfo{.name = "test device", .visible = 2}; },
    });
    ASSERT_TRUE(registered);
    const auto swept = sweep({"--backend=cpu/test/two-gpus", "--sizes=2^10", "--gpus=1,3,2"});
    EXPECT_EQ(swept.status, 1) << "a count was skipped";
    EXPECT_NE(swept.out.find("skipped: cpu/test/two-gpus --gpus=3: only 2 GPUs are visible"), std::string::npos) << swept.out;
    ASSERT_EQ(swept.rows.size(), 2u) << swept.out << swept.err;
    std::set<std::string> counts;  // the cases of one size finish in their interleaved order
    for (const auto& row : swept.rows) {
        counts.insert(row.at("gpus"));
        EXPECT_EQ(row.at("result"), row.at("gpus"));
        EXPECT_EQ(row.at("ranks"), "1");
    }
    EXPECT_EQ(counts, (std::set<std::string>{"1", "2"}));
    const auto all_visible = sweep({"--backend=cpu/test/two-gpus", "--sizes=2^10"});
    EXPECT_EQ(all_visible.status, 0) << all_visible.err;
    ASSERT_EQ(all_visible.rows.size(), 1u);
    EXPECT_EQ(all_visible.rows[0].at("gpus"), "2");
}

// A batch streams about kBatchBytes of each GPU's share of the input: each GPU of a multi-GPU call
// streams as long as one GPU alone.
TEST(Sweep, ABatchStreamsItsBytesPerGpu) {
    const Backend multi{.name = "test/multi", .batches = true, .multi_gpu = true};
    Options options;
    options.gpus = {1, 4};
    const std::uint64_t n = std::uint64_t{1} << 28;  // 1 GiB of floats
    std::map<int, int> batch_of_gpus;
    for (const Case& c : plan_cases({&multi}, options, n, ElementType::f32, {{&multi, 4}}))
        if (c.timing == TimingRule::batched) batch_of_gpus[c.gpus] = c.batch;
    EXPECT_EQ(batch_of_gpus, (std::map<int, int>{{1, 4}, {4, 16}}));
    EXPECT_EQ(rules::batch_calls(std::uint64_t{32} << 30, 4), rules::kMinBatch);  // 8 GiB a GPU
    EXPECT_EQ(rules::batch_calls(4096, 1), rules::kMaxBatch);
    EXPECT_EQ(rules::batch_calls(0, 0), rules::kMaxBatch);
}

TEST(Sweep, OneProcessRowsHaveNoGpusAndOneRank) {
    if (auto reason = find_backend("mpi/exact")->why_unavailable()) GTEST_SKIP() << *reason;
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64,mpi/exact", "--sizes=1001"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 2u);
    for (const auto& row : r.rows) {
        EXPECT_EQ(row.at("gpus"), "0") << row.at("backend");
        EXPECT_EQ(row.at("ranks"), "1") << row.at("backend");
        EXPECT_EQ(row.at("cache"), "warm") << row.at("backend");
    }
    const auto mpi = std::find_if(r.rows.begin(), r.rows.end(), [](const auto& row) { return row.at("backend") == "mpi/exact"; });
    ASSERT_NE(mpi, r.rows.end());
    EXPECT_EQ(mpi->at("result"), mpi->at("exact"));
}

// Memory or threads that cannot be had in a later repetition (another prepare, interleaved) skip the
// case, named, and the sweep goes on: Google Benchmark aborts the process on repetitions of one case
// with unlike iteration counts, which a repetition ended before its loop would report. Each case of
// this backend fails its third prepare; with twelve cases shuffled, none is prepared three times with
// a probability below 1e-6.
TEST(Sweep, ExhaustionAfterEarlierRepetitionsSkipsTheCase) {
    static std::map<int, int> prepares;  // per thread count
    static const bool registered = register_backend({
        .name = "cpu/test/exhausted-later",
        .description = "test only: no memory from its third prepare on",
        .parallel = true,
        .prepare = [](std::span<const float> input, const PrepareOptions& options) {
            if (++prepares[options.threads] >= 3) throw ResourceExhausted("test: no memory for a third prepare");
            return make_host_reduction(input, [](std::span<const float> x) { return x.size(); });
        },
    });
    ASSERT_TRUE(registered);
    prepares.clear();
    const auto r = sweep({"--backend=cpu/test/exhausted-later", "--sizes=2^10", "--threads=1,2,3,4,5,6,7,8,9,10,11,12"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.out.find("/threads:"), std::string::npos);
    EXPECT_NE(r.out.find(": skipped: test: no memory for a third prepare"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("FAILED"), std::string::npos) << r.err;
}

TEST(Sweep, SizeThatDoesNotFitIsSkippedByName) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f32", "--sizes=2^10,2^40"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.rows.size(), 1u);
    EXPECT_NE(r.err.find("skipping n=2^40 (4 TiB)"), std::string::npos) << r.err;
}

// --dtype=f64 end to end: every exact backend returns the exact sum of the doubles rounded once, the
// `exact` column's bits, on every input kind (its rel_error is that one rounding's, at most 2^-53:
// a sum of doubles is seldom a double); the rows say f64 and count 8 bytes an element, and backends
// that take float32 only are named as not measured.
TEST(Sweep, Float64RowsOfTheExactBackendsAreTheExactSumRoundedOnce) {
    for (const char* input : {"uniform", "wide", "cancel", "ill:1e30"}) {
        const auto r = sweep({"--backend=cpu/exact/*,cpu/serial/accumulate-f32", "--sizes=2^12,1001", "--dtype=f64",
                              std::string("--input=") + input});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find("not measured with --dtype=f64 (they do not take it): cpu/serial/accumulate-f32"), std::string::npos)
            << r.out;
        ASSERT_FALSE(r.rows.empty()) << input;
        for (const auto& row : r.rows) {
            EXPECT_EQ(row.at("dtype"), "f64");
            EXPECT_EQ(row.at("bytes"), std::to_string(8 * std::stoull(row.at("n"))));
            EXPECT_EQ(row.at("result"), row.at("exact")) << row.at("backend") << ' ' << input;
            EXPECT_LE(std::stod(row.at("rel_error")), 0x1p-53) << row.at("backend") << ' ' << input;
            EXPECT_NE(row.at("backend"), "cpu/serial/accumulate-f32");
        }
    }
}

// Both types in one run: each (size, type) is one input with its own exact sum; float32 rows are as
// before. Byte sizes count bytes of each type.
TEST(Sweep, BothTypesInOneRunAndByteSizesPerType) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64,cpu/pool/simd", "--sizes=64KiB", "--dtype=f32,f64", "--threads=2"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, std::string> n_of;
    for (const auto& row : r.rows) {
        EXPECT_EQ(row.at("bytes"), "65536") << row.at("dtype");
        n_of[row.at("dtype")] = row.at("n");
        EXPECT_LT(std::stod(row.at("rel_error")), 1e-12) << row.at("backend");
    }
    EXPECT_EQ(n_of, (std::map<std::string, std::string>{{"f32", "16384"}, {"f64", "8192"}}));
}

// Backends that cannot run for one reason share a line: a whole first path component as "cuda/*",
// the others by name; a reason of one backend keeps its own line.
TEST(Sweep, UnavailableBackendsAreGroupedByReason) {
    const std::vector<std::string> registered = {"cpu/avx2/sum", "cpu/serial/sum", "cuda/cub", "cuda/thrust",
                                                 "nccl/sum", "opencl/read", "opencl/sum"};
    const std::string no_cuda = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)";
    EXPECT_EQ(unavailable_lines({{"cpu/avx2/sum", "CPU lacks AVX2"}, {"cuda/cub", no_cuda}, {"cuda/thrust", no_cuda},
                                 {"nccl/sum", no_cuda}, {"opencl/read", "no OpenCL platform"}},
                                registered),
              (std::vector<std::string>{"unavailable here: cpu/avx2/sum: CPU lacks AVX2",
                                        "unavailable here: cuda/*, nccl/* (3 backends): " + no_cuda,
                                        "unavailable here: opencl/read: no OpenCL platform"}));
    // A component some of whose backends run here, or were not selected, is named backend by backend.
    EXPECT_EQ(unavailable_lines({{"cuda/cub", no_cuda}, {"nccl/sum", no_cuda}, {"opencl/read", no_cuda}}, registered),
              (std::vector<std::string>{"unavailable here: cuda/cub, nccl/*, opencl/read (3 backends): " + no_cuda}));
    EXPECT_EQ(unavailable_lines({}, registered), std::vector<std::string>{});
}

// The run ends with the summary table, once there are two reductions to compare.
TEST(Sweep, TheRunEndsWithTheSummary) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-*", "--sizes=2^10,2^20", "--input=ones"});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::size_t summary = r.out.find("\nSummary of the reductions");
    ASSERT_NE(summary, std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[", summary), std::string::npos) << "progress after the summary:\n" << r.out;
    EXPECT_TRUE(std::regex_search(r.out.substr(summary), std::regex("\ncpu +f32 +< 1 MiB +cpu/serial/accumulate-f(32|64) +[0-9.]+ +- +cpu/serial/accumulate-f(32|64) +0\n")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out.substr(summary), std::regex("\ncpu +f32 +1-64 MiB +")))
        << r.out;
    const auto one = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10"});
    EXPECT_EQ(one.out.find("Summary"), std::string::npos) << one.out;
}

}  // namespace
}  // namespace shootout
