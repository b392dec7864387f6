// The console summary: measurements in, the table's lines out.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/reporters.hpp"

namespace shootout {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Row {
    std::string backend;
    std::uint64_t bytes;
    double gbps;
    double rel_error = 0;
    int threads = 1;
    std::string timing = "isolated";
    std::string role = "reduction";
    std::string device = "cpu";
    int gpus = 0;
    ElementType dtype = ElementType::f32;
};

std::vector<Measurement> rows(const std::vector<Row>& fixture) {
    std::vector<Measurement> measurements;
    for (const Row& r : fixture) {
        Measurement& m = measurements.emplace_back();
        m.backend = r.backend, m.device = r.device, m.threads = r.threads, m.n = r.bytes / 4, m.bytes = r.bytes;
        m.gbps = r.gbps, m.rel_error = r.rel_error, m.timing = r.timing, m.role = r.role, m.gpus = r.gpus, m.dtype = r.dtype;
    }
    return measurements;
}

// The table's lines with their columns split by " | " (columns are two or more spaces apart), from
// the column heading on.
std::vector<std::string> table_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    bool in_table = false;
    for (std::string line; std::getline(in, line);) {
        in_table = in_table || line.starts_with("device ");
        if (in_table) lines.push_back(std::regex_replace(line, std::regex("  +"), " | "));
    }
    return lines;
}

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

TEST(Summary, FastestAtTheMostThreadsMostAccurateAndTheCeilingPerBand) {
    const auto measurements = rows({
        // Below 1 MiB: cpu/pool at 4 threads (its 1-thread row is faster, and not its most threads),
        // the ceiling's fastest rows (4 threads) twice as fast; cpu/serial more accurate.
        {"cpu/serial", 4 * KiB, 10, 1e-7}, {"cpu/serial", 256 * KiB, 12, 2e-7},
        {"cpu/pool", 4 * KiB, 100, 0, 1}, {"cpu/pool", 4 * KiB, 20, 0, 4}, {"cpu/pool", 256 * KiB, 30, 1e-3, 4},
        {"cpu/read", 4 * KiB, 40, kNan, 4, "isolated", "ceiling"}, {"cpu/read", 256 * KiB, 60, kNan, 4, "isolated", "ceiling"},
        {"cpu/read", 4 * KiB, 15, kNan, 1, "isolated", "ceiling"},
        // 1-64 MiB: equal errors go to the faster.
        {"cpu/serial", 4 * MiB, 8, 0}, {"cpu/pool", 4 * MiB, 16, 0, 4},
        {"cpu/read", 4 * MiB, 64, 0, 4, "isolated", "ceiling"},
        // Memory: no ceiling row.
        {"cpu/serial", 256 * MiB, 5, 1e-6}, {"cpu/pool", 256 * MiB, 6, 1e-6, 4},
    });
    EXPECT_EQ(table_lines(summary_table(measurements)),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f32 | < 1 MiB | cpu/pool | 25.0 | 50% | cpu/serial | 2e-07",
                  "cpu | f32 | 1-64 MiB | cpu/pool | 16.0 | 25% | cpu/pool | 0",
                  "cpu | f32 | >= 64 MiB | cpu/pool | 6.0 | - | cpu/pool | 1e-06",
              }));
}

TEST(Summary, TheHeadingStatesTheRulesAndTheColumnsAlign) {
    const std::string text = summary_table(rows({{"cpu/a", 4 * KiB, 1.5, 0}, {"cpu/bb", 4 * KiB, 12.25, 1e-3}}));
    EXPECT_NE(text.find("per size band of input bytes"), std::string::npos) << text;
    EXPECT_NE(text.find("at the most threads measured, batched where the device batches"), std::string::npos) << text;
    EXPECT_NE(text.find(
                  "device  dtype  band     fastest  GB/s  of ceiling  most accurate  worst error\n"
                  "cpu     f32    < 1 MiB  cpu/bb   12.2           -  cpu/a          0\n"),
              std::string::npos)
        << text;
}

// A one-thread winner is judged against the device's ceiling, measured at more threads.
TEST(Summary, AOneThreadWinnerIsJudgedAgainstTheCeilingAtItsMostThreads) {
    const auto measurements = rows({
        {"cpu/simd", 4 * KiB, 90, 0, 1}, {"cpu/pool", 4 * KiB, 40, 0, 2},
        {"cpu/read", 4 * KiB, 120, kNan, 2, "isolated", "ceiling"},
    });
    EXPECT_EQ(table_lines(summary_table(measurements)).at(1), "cpu | f32 | < 1 MiB | cpu/simd | 90.0 | 75% | cpu/simd | 0");
}

// Batching devices are compared on their batched rows; multi-GPU rows are left out; each device
// and element type has its own lines, and its own ceiling.
TEST(Summary, DevicesCompareBatchedRowsOfOneDeviceAgainstTheirOwnCeiling) {
    const auto measurements = rows({
        {"cuda/a", 64 * MiB, 3000, 0, 1, "isolated", "reduction", "cuda", 1},
        {"cuda/a", 64 * MiB, 2000, 0, 1, "batched", "reduction", "cuda", 1},
        {"cuda/b", 64 * MiB, 1000, 0, 1, "isolated", "reduction", "cuda", 1},
        {"cuda/b", 64 * MiB, 2500, 0, 1, "batched", "reduction", "cuda", 1},
        {"cuda/read", 64 * MiB, 5000, 0, 1, "batched", "ceiling", "cuda", 1},
        {"cuda/read", 64 * MiB, 1000, 0, 1, "isolated", "ceiling", "cuda", 1},
        {"nccl/sum", 64 * MiB, 9000, 0, 1, "batched", "reduction", "cuda", 4},
        {"cpu/a", 64 * MiB, 5, 0, 1, "isolated", "reduction", "cpu", 0, ElementType::f64},
        {"cpu/b", 64 * MiB, 7, 1e-12, 1, "isolated", "reduction", "cpu", 0, ElementType::f64},
    });
    EXPECT_EQ(table_lines(summary_table(measurements)),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f64 | >= 64 MiB | cpu/b | 7.0 | - | cpu/a | 0",
                  "cuda | f32 | >= 64 MiB | cuda/b | 2500.0 | 50% | cuda/b | 0",
              }));
}

// An input with a NaN or an infinity has no finite sum to judge against: every error is nan, and
// no backend is the most accurate. A nan beside numbers loses to them all, inf included.
TEST(Summary, NanErrorsNeverWinMostAccurate) {
    EXPECT_EQ(table_lines(summary_table(rows({{"cpu/a", 4 * KiB, 5, kNan}, {"cpu/b", 4 * KiB, 7, kNan}}))),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f32 | < 1 MiB | cpu/b | 7.0 | - | - | -",
              }));
    EXPECT_EQ(table_lines(summary_table(rows({{"cpu/a", 4 * KiB, 5, kInf}, {"cpu/b", 4 * KiB, 7, 0}, {"cpu/b", 8 * KiB, 7, kNan}}))),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f32 | < 1 MiB | cpu/b | 7.0 | - | cpu/a | inf",
              }));
}

// An infinite error is the worst a number can be; where every one is infinite, the faster wins.
TEST(Summary, InfErrorsLoseToAnyFiniteError) {
    EXPECT_EQ(table_lines(summary_table(rows({{"cpu/a", 4 * KiB, 9, kInf}, {"cpu/b", 4 * KiB, 7, 0.5}}))),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f32 | < 1 MiB | cpu/a | 9.0 | - | cpu/b | 0.5",
              }));
    EXPECT_EQ(table_lines(summary_table(rows({{"cpu/a", 4 * KiB, 5, kInf}, {"cpu/b", 4 * KiB, 7, kInf}}))),
              (std::vector<std::string>{
                  "device | dtype | band | fastest | GB/s | of ceiling | most accurate | worst error",
                  "cpu | f32 | < 1 MiB | cpu/b | 7.0 | - | cpu/b | inf",
              }));
}

TEST(Summary, FewerThanTwoReductionsGiveNoTable) {
    EXPECT_EQ(summary_table({}), "");
    EXPECT_EQ(summary_table(rows({{"cpu/a", 4 * KiB, 5}, {"cpu/a", 8 * KiB, 6}, {"cpu/read", 4 * KiB, 9, 0, 1, "isolated", "ceiling"}})), "");
}

TEST(Summary, TheReporterPrintsTheTableWhenTheRunFinishes) {
    std::ostringstream out;
    SummaryReporter reporter(out);
    for (const Measurement& m : rows({{"cpu/a", 4 * KiB, 5}, {"cpu/b", 4 * KiB, 6}})) reporter.report(m);
    EXPECT_EQ(out.str(), "");
    reporter.finish();
    EXPECT_EQ(out.str(), summary_table(rows({{"cpu/a", 4 * KiB, 5}, {"cpu/b", 4 * KiB, 6}})));
    EXPECT_NE(out.str().find("cpu/b"), std::string::npos);
}

}  // namespace
}  // namespace shootout
