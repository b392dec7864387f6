#include "reporters.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace shootout {
namespace {

Measurement sample() {
    return {.timestamp = "2026-11-22T01:02:03Z", .host = "node1", .cpu = "Xeon, \"Sapphire\" Rapids", .gpu = "",
            .compiler = "GNU 12.2.0", .build = "Release", .backend = "cpu/serial/kahan", .device = "cpu",
            .threads = 1, .input = "uniform", .seed = 42, .n = 1 << 20, .bytes = 4 << 20,
            .gbps = 12.345678, .time_ns_median = 339.75, .time_ns_min = 300.25, .iterations = 1234,
            .result = 0.1 + 0.2, .exact = 1.0 / 3.0, .rel_error = 1.1102230246251565e-16, .peak_gbps = 0};
}

TEST(Csv, HeaderIsTheDocumentedSchema) {
    EXPECT_EQ(csv_header(),
              "timestamp,host,cpu,gpu,compiler,build,backend,device,threads,input,seed,n,bytes,gbps,"
              "time_ns_median,time_ns_min,iterations,result,exact,rel_error,peak_gbps");
}

TEST(Csv, RowRoundTripsExactly) {
    const Measurement m = sample();
    const auto header = split_csv_row(csv_header());
    const auto fields = split_csv_row(csv_row(m));
    ASSERT_EQ(fields.size(), header.size());
    auto field = [&](const std::string& name) {
        return fields[std::find(header.begin(), header.end(), name) - header.begin()];
    };
    EXPECT_EQ(field("cpu"), m.cpu);  // quoted because of the comma and quotes
    EXPECT_EQ(field("backend"), m.backend);
    EXPECT_EQ(field("seed"), "42");
    EXPECT_EQ(field("n"), "1048576");
    EXPECT_EQ(std::stod(field("result")), m.result);  // %.17g gives back the same double
    EXPECT_EQ(std::stod(field("exact")), m.exact);
    EXPECT_EQ(std::stod(field("rel_error")), m.rel_error);
    EXPECT_EQ(field("gpu"), "");
    EXPECT_EQ(field("peak_gbps"), "");
}

TEST(Csv, NanErrorIsWrittenAsNan) {
    Measurement m = sample();
    m.rel_error = std::numeric_limits<double>::quiet_NaN();
    const auto fields = split_csv_row(csv_row(m));
    EXPECT_TRUE(std::isnan(std::stod(fields[19])));
}

TEST(Csv, AppendingWritesOneHeader) {
    const auto path = std::filesystem::temp_directory_path() / ("shootout_append_" + std::to_string(::getpid()) + ".csv");
    std::filesystem::remove(path);
    CsvWriter(path.string()).write(sample());
    CsvWriter(path.string()).write(sample());
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::filesystem::remove(path);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], csv_header());
    EXPECT_EQ(lines[1], lines[2]);
}

TEST(Csv, UnwritablePathIsNamed) {
    try {
        CsvWriter("/nonexistent/dir/out.csv");
        ADD_FAILURE();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/out.csv"), std::string::npos);
    }
}

TEST(Json, WritesAValidDocumentWithNullForNan) {
    const auto path = std::filesystem::temp_directory_path() / ("shootout_" + std::to_string(::getpid()) + ".json");
    JsonWriter json(path.string());
    Measurement m = sample();
    m.rel_error = std::numeric_limits<double>::quiet_NaN();
    json.write(m);
    json.write(sample());
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    std::filesystem::remove(path);
    EXPECT_NE(text.find("\"rel_error\": null"), std::string::npos);
    EXPECT_NE(text.find("\"cpu\": \"Xeon, \\\"Sapphire\\\" Rapids\""), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), '{'), 3);
    EXPECT_EQ(text.back(), '\n');
}

TEST(Progress, NamesSizeInElementsAndBytes) {
    EXPECT_EQ(describe_size(1 << 20), "2^20 (4 MiB)");
    EXPECT_EQ(describe_size(1000003), "1000003 (3.8 MiB)");
    EXPECT_NE(progress_line(3, 40, sample()).find("[3/40] cpu/serial/kahan"), std::string::npos);
}

}  // namespace
}  // namespace shootout
