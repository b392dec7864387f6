#include "bench/cli.hpp"

#include <gtest/gtest.h>

#include "tests/backend_test_support.hpp"

#include <algorithm>
#if !defined(_WIN32)
#include <fnmatch.h>
#endif

#include "api/wildcard.hpp"

namespace shootout {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(ParseSizes, PowerOfTwoSweepIncludesBothEnds) {
    EXPECT_EQ(parse_sizes("2^10..2^13"), (Sizes{1024, 2048, 4096, 8192}));
}

TEST(ParseSizes, SingleSizesInEveryForm) {
    EXPECT_EQ(parse_sizes("2^24"), Sizes{16777216});
    EXPECT_EQ(parse_sizes("16777216"), Sizes{16777216});
    EXPECT_EQ(parse_sizes("1000003"), Sizes{1000003});
    EXPECT_EQ(parse_sizes("64MiB"), Sizes{16777216});
}

TEST(ParseSizes, ByteRangesAsTheSeedSweepsThem) {
    const Sizes sizes = parse_sizes("32MiB..4GiB");
    ASSERT_EQ(sizes.size(), 8u);
    EXPECT_EQ(sizes.front(), 8u << 20);
    EXPECT_EQ(sizes.back(), 1u << 30);
}

TEST(ParseSizes, ListsAreSortedWithoutRepeats) {
    EXPECT_EQ(parse_sizes("2^12,2^10..2^11,4096"), (Sizes{1024, 2048, 4096}));
}

void expect_usage_error(const std::string& spec, const std::string& needle) {
    try {
        parse_sizes(spec);
        ADD_FAILURE() << "'" << spec << "' was accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(ParseSizes, MalformedSizesSayWhatIsWrong) {
    expect_usage_error("", "empty");
    expect_usage_error("2^x", "'2^x' is not a power of two like 2^24");
    expect_usage_error("2^41", "larger than 2^40 elements");
    expect_usage_error("abc", "'abc' is not a size");
    expect_usage_error("32MB", "unknown unit");
    expect_usage_error("0", "is zero elements");
    expect_usage_error("2^20..2^10", "runs backwards");
    expect_usage_error("3..2^10", "must be powers of two");
    expect_usage_error("2^10..", "is empty");
    expect_usage_error("99999999999999999999", "is not a size");
    expect_usage_error("99999999999TiB", "too large");
}

Options parse(std::vector<std::string> args) { return parse_command_line(args); }

void expect_command_line_error(std::vector<std::string> args, const std::string& needle) {
    try {
        parse(args);
        ADD_FAILURE() << "accepted: " << args.front();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(CommandLine, Defaults) {
    const Options o = parse({});
    EXPECT_EQ(o.backends, "all");
    EXPECT_EQ(o.sizes, parse_sizes(kDefaultSizes));
    EXPECT_EQ(o.input.label(), "uniform");
    ASSERT_EQ(o.threads.size(), 1u);
    EXPECT_GE(o.threads[0], 1);
    EXPECT_TRUE(o.gpus.empty()) << "every visible GPU";
}

TEST(CommandLine, GpuCounts) {
    EXPECT_EQ(parse({"--gpus=1,2,4,2,8"}).gpus, (std::vector<int>{1, 2, 4, 8})) << "repeats dropped, order kept";
    expect_command_line_error({"--gpus=0"}, "--gpus: '0' is not between 1 and 1024");
    expect_command_line_error({"--gpus=2,x"}, "--gpus: 'x' is not a whole number");
    expect_command_line_error({"--gpus"}, "--gpus needs a value");
}

TEST(CommandLine, EveryOption) {
    const Options o = parse({"--backend=cpu/serial/*", "--sizes=2^20", "--input=normal", "--seed=7", "--threads=1,2,4",
                             "--include-transfer", "--csv=a.csv", "--json=a.json", "--benchmark_repetitions=3"});
    EXPECT_EQ(o.backends, "cpu/serial/*");
    EXPECT_EQ(o.sizes, Sizes{1 << 20});
    EXPECT_EQ(o.input.label(), "normal");
    EXPECT_EQ(o.input.seed, 7u);
    EXPECT_EQ(o.threads, (std::vector<int>{1, 2, 4}));
    EXPECT_TRUE(o.include_transfer);
    EXPECT_EQ(o.csv_path, "a.csv");
    EXPECT_EQ(o.json_path, "a.json");
    EXPECT_EQ(o.benchmark_flags, std::vector<std::string>{"--benchmark_repetitions=3"});
    EXPECT_TRUE(parse({"--machine"}).machine);
    EXPECT_TRUE(parse({"--input=file:/tmp/x.npy"}).input.label().ends_with("/x.npy"));  // its whole path: inputs_test
    EXPECT_TRUE(parse({"--input=file:/tmp/x.npy"}).sizes.empty());
}

TEST(CommandLine, SizesPerThread) {
    const Options o = parse({"--sizes=per-thread:16,2^10", "--threads=1,2,4"});
    EXPECT_TRUE(o.sizes_per_thread);
    EXPECT_EQ(o.sizes, (Sizes{16, 1024}));
    EXPECT_FALSE(parse({"--sizes=16"}).sizes_per_thread);
    expect_command_line_error({"--sizes=per-thread:"}, "--sizes: empty");
}

TEST(CommandLine, RepeatedThreadCountsRunOnce) {
    EXPECT_EQ(parse({"--threads=2,2"}).threads, std::vector<int>{2});
    EXPECT_EQ(parse({"--threads=4,1,4,2,1"}).threads, (std::vector<int>{4, 1, 2}));
}

TEST(CommandLine, BadInputsSayWhatIsWrong) {
    expect_command_line_error({"--frobnicate"}, "unknown option '--frobnicate'");
    expect_command_line_error({"--input=gaussian"}, "'gaussian' is not ones, uniform, normal or file:PATH");
    expect_command_line_error({"--input=file:"}, "is not ones, uniform, normal or file:PATH");
    expect_command_line_error({"--seed=abc"}, "--seed: 'abc' is not a whole number");
    expect_command_line_error({"--threads=0"}, "'0' is not between 1 and 4096");
    expect_command_line_error({"--threads=2,x"}, "'x' is not a whole number");
    expect_command_line_error({"--csv"}, "--csv needs a value");
    expect_command_line_error({"--list=yes"}, "--list takes no value");
    expect_command_line_error({"--machine=vm"}, "--machine takes no value");
    expect_command_line_error({"--sizes=2^y"}, "'2^y' is not a power of two");
    expect_command_line_error({"--input=file:a.f32", "--sizes=2^10"}, "the file's length is the size");
}

// The rules' defaults come first and the user's flags after them, so that the user's win; one
// process interleaves its cases' repetitions, several ranks never (each would shuffle its own way).
TEST(CommandLine, BenchmarkArgumentsPutTheRulesFirstAndInterleaveInOneProcessOnly) {
    const std::vector<std::string> one = benchmark_arguments("bench", {"--benchmark_repetitions=9"}, 1);
    ASSERT_GE(one.size(), 3u);
    EXPECT_EQ(one.front(), "bench");
    EXPECT_EQ(one.back(), "--benchmark_repetitions=9");
    EXPECT_NE(std::find(one.begin(), one.end(), "--benchmark_enable_random_interleaving=true"), one.end());
    const std::vector<std::string> ranks = benchmark_arguments("bench", {"--benchmark_enable_random_interleaving=false"}, 4);
    EXPECT_NE(std::find(ranks.begin(), ranks.end(), "--benchmark_enable_random_interleaving=false"), ranks.end());
    EXPECT_EQ(std::find(ranks.begin(), ranks.end(), "--benchmark_enable_random_interleaving=true"), ranks.end());
    EXPECT_NO_THROW(benchmark_arguments("bench", {"--benchmark_enable_random_interleaving=FALSE"}, 2));
    for (const std::string flag : {"--benchmark_enable_random_interleaving", "--benchmark_enable_random_interleaving=true",
                                   "--benchmark_enable_random_interleaving=1"}) {
        try {
            benchmark_arguments("bench", {flag}, 2);
            ADD_FAILURE() << flag << " accepted under 2 ranks";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("2 ranks"), std::string::npos) << e.what();
        }
    }
    EXPECT_NO_THROW(benchmark_arguments("bench", {"--benchmark_enable_random_interleaving=true"}, 1));
}

TEST(CommandLine, BenchmarkFlagsThatLoseOutputOrMeasureNothingAreRefused) {
    expect_command_line_error({"--benchmark_out=all.json"}, "--benchmark_out is not supported");
    expect_command_line_error({"--benchmark_out=all.json"}, "--json=PATH or --csv=PATH");
    expect_command_line_error({"--benchmark_out_format=csv"}, "--benchmark_out_format is not supported");
    expect_command_line_error({"--benchmark_repetitions=0"}, "--benchmark_repetitions: '0' would measure nothing");
    expect_command_line_error({"--benchmark_repetitions=-1"}, "'-1' is not a whole number");
    expect_command_line_error({"--benchmark_repetitions=two"}, "'two' is not a whole number");
    for (const std::string bad : {"0", "-0.5", "0s", "abc", "nan", "inf", "", "0.5x", "0x", "s"})
        expect_command_line_error({"--benchmark_min_time=" + bad}, "--benchmark_min_time: '" + bad + "' is not a positive time");
    const Options o = parse({"--benchmark_repetitions=1", "--benchmark_min_time=0.01", "--benchmark_filter=cpu"});
    EXPECT_EQ(o.benchmark_flags.size(), 3u);
}

// --benchmark_list_tests as Google Benchmark reads a boolean flag: the last one wins, bare is true.
TEST(CommandLine, ListTestsIsReadAsGoogleBenchmarkReadsIt) {
    EXPECT_FALSE(parse({}).list_cases);
    EXPECT_TRUE(parse({"--benchmark_list_tests"}).list_cases);
    EXPECT_TRUE(parse({"--benchmark_list_tests=true"}).list_cases);
    EXPECT_TRUE(parse({"--benchmark_list_tests=1"}).list_cases);
    EXPECT_TRUE(parse({"--benchmark_list_tests=yes"}).list_cases);
    for (const std::string off : {"false", "FALSE", "0", "f", "N", "no", "off", "-"})
        EXPECT_FALSE(parse({"--benchmark_list_tests=" + off}).list_cases) << off;
    EXPECT_FALSE(parse({"--benchmark_list_tests", "--benchmark_list_tests=false"}).list_cases);
}

TEST(SelectBackends, GroupsNamesAndGlobs) {
    const auto serial = select_backends("cpu/serial/accumulate-f*");
    ASSERT_EQ(serial.size(), 3u);
    EXPECT_EQ(serial[0]->name, "cpu/serial/accumulate-f16");
    EXPECT_EQ(serial[1]->name, "cpu/serial/accumulate-f32");
    EXPECT_EQ(serial[2]->name, "cpu/serial/accumulate-f64");
    EXPECT_EQ(select_backends("cpu/serial/accumulate-f64,cpu/serial/accumulate-f64").size(), 1u);
    for (const Backend* b : select_backends("cpu")) EXPECT_EQ(b->device, Device::cpu);
    std::size_t distributed = 0;
    for (const auto& b : registered_backends()) distributed += b.distributed;
    EXPECT_GT(distributed, 0u);
    EXPECT_EQ(select_backends("all").size(), registered_backends().size() - distributed);
}

// The mpi/* backends run under mpirun: a group never selects them, a name or glob does.
TEST(SelectBackends, GroupsLeaveOutTheMpiBackends) {
    for (const char* group : {"all", "cpu", "cuda"}) {
        if (std::string(group) == "cuda" && cuda_unbuilt()) continue;  // no CUDA backends to select
        for (const Backend* b : select_backends(group)) EXPECT_FALSE(b->distributed) << group << ": " << b->name;
    }
    const auto mpi = select_backends("mpi/*");
    ASSERT_GE(mpi.size(), 2u);
    for (const Backend* b : mpi) EXPECT_TRUE(b->distributed) << b->name;
    EXPECT_EQ(select_backends("mpi/exact").at(0)->name, "mpi/exact");
}

TEST(SelectBackends, UnknownNameListsTheValidOnes) {
    try {
        select_backends("cpu/serial/accumulate-f32,cpu/nope");
        ADD_FAILURE() << "accepted an unknown backend";
    } catch (const UsageError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("'cpu/nope' names no backend"), std::string::npos) << message;
        for (const auto& b : registered_backends()) EXPECT_NE(message.find(b.name), std::string::npos) << b.name;
    }
}

// --backend patterns read as fnmatch() reads them, on systems that have it and those that do not.
TEST(Wildcard, MatchesAsFnmatchDoes) {
    struct Case {
        const char* pattern;
        const char* name;
        bool match;
    };
    const Case cases[] = {
        {"cpu/*", "cpu/serial/accumulate-f32", true}, {"*simd*", "cpu/pool/simd", true},
        {"cpu/*/simd", "cpu/a/b/simd", true},         {"cuda/*", "cpu/serial/x", false},
        {"cpu/serial/accumulate-f3?", "cpu/serial/accumulate-f32", true},
        {"cpu/serial/accumulate-f[36][24]", "cpu/serial/accumulate-f64", true},
        {"cpu/serial/accumulate-f[!3]*", "cpu/serial/accumulate-f32", false},
        {"cpu/serial/accumulate-f[^3]*", "cpu/serial/accumulate-f64", true},
        {"cpu/[a-c]*", "cpu/baseline/read", true},    {"cpu/[a-c]*", "cpu/serial", false},
        {"a\\*b", "a*b", true},                        {"a\\*b", "axb", false},
        {"[", "[", true},                              {"a[]b", "a[]b", true},
        {"[]]", "]", true},                            {"**", "", true},
        {"", "", true},                                {"", "x", false},
        {"a*b*c", "abxbxc", true},                     {"a*b*c", "abxbx", false},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(wildcard_match(c.pattern, c.name), c.match) << c.pattern << " on " << c.name;
#if !defined(_WIN32)
        EXPECT_EQ(wildcard_match(c.pattern, c.name), fnmatch(c.pattern, c.name, 0) == 0) << c.pattern << " on " << c.name;
#endif
    }
}

}  // namespace
}  // namespace shootout
