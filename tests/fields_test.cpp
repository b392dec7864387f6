// Every field survives the round trip through the files: text that every reader decodes, names that
// stay apart, one spelling of NaN, times that give back gbps, whole numbers a JavaScript reader
// gets exactly, host names safe in a file name, .npy headers read as NumPy reads them, and
// progress lines whose columns stay under each other (results/README.md, "Columns").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "api/device_api.hpp"
#include "api/measurement_rules.hpp"
#include "bench/npy_header.hpp"
#include "bench/system_info.hpp"
#include "report/reporters.hpp"
#include "report/utf8.hpp"

namespace shootout {
namespace {

Measurement row() {
    return {.timestamp = "2026-11-22T01:02:03Z", .host = "node1", .cpu = "Xeon", .gpu = "", .compiler = "GNU 12.2.0",
            .build = "Release", .backend = "cpu/serial/kahan", .device = "cpu", .threads = 1, .input = "uniform", .seed = 42,
            .n = 16, .bytes = 64, .gbps = rules::gbps(64, 7.55), .time_ns_median = 7.55, .time_ns_min = 7.45, .iterations = 1000,
            .result = 1.5, .exact = 1.5, .rel_error = 0, .peak_gbps = 0, .machine = "node1-3f2a91c0", .timing = "isolated",
            .batch = 1, .cache = "warm", .accumulator = "compensated_f32", .order = "sequential",
            .reproducibility = "any_thread_count", .role = "reduction", .reproducible = "yes", .gpus = 0, .ranks = 1,
            .pages = "4k", .configuration = "", .version = "2e5b06b"};
}

// The CSV field of a column, read back as a reader splits it.
std::string csv_field(const Measurement& m, const std::string& column) {
    const auto header = split_csv_row(csv_header());
    const auto fields = split_csv_row(csv_row(m));
    return fields.at(static_cast<std::size_t>(std::find(header.begin(), header.end(), column) - header.begin()));
}

bool is_valid_utf8(const std::string& text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) return false;
        i += length;
    }
    return true;
}

// A byte that is not UTF-8, in any text field, made pandas refuse the whole CSV: both files now
// write U+FFFD for it, the same text, and line breaks still round-trip through the CSV's quoting.
TEST(Fields, TextIsValidUtf8InTheCsvAndTheJson) {
    Measurement m = row();
    m.cpu = "Xeon\xff \xc3\xa9\nnext line";
    EXPECT_EQ(csv_field(m, "cpu"), "Xeon\xef\xbf\xbd \xc3\xa9\nnext line");
    EXPECT_TRUE(is_valid_utf8(csv_row(m)));
    EXPECT_NE(json_document({m}).find("\"cpu\": \"Xeon\\ufffd \xc3\xa9\\u000anext line\""), std::string::npos) << json_document({m});
}

// A file name keeps every byte: escaped, not replaced, so two names never become one.
TEST(Fields, NamesAreEscapedIntoOneLineOfUtf8ThatGivesThemBack) {
    EXPECT_EQ(escape_name("data/run 1/x.npy"), "data/run 1/x.npy");
    EXPECT_EQ(escape_name("caf\xc3\xa9.npy"), "caf\xc3\xa9.npy");
    EXPECT_EQ(escape_name("a\xff" "b"), "a\\xffb");
    EXPECT_EQ(escape_name("a\\xffb"), "a\\\\xffb");  // the text "\xff" is not the byte
    EXPECT_EQ(escape_name("two\nlines\t\x7f"), "two\\x0alines\\x09\\x7f");
    EXPECT_EQ(escape_name("\xc3"), "\\xc3");  // cut short
    EXPECT_TRUE(is_valid_utf8(escape_name("\xed\xa0\x80\xc0\xaf\xf8")));
}

// printf writes a NaN whose sign bit is set (inf - inf on x86) "-nan": every writer says "nan".
TEST(Fields, NanIsSpelledNanInEveryColumnAndWriter) {
    Measurement m = row();
    const double negative_nan = -std::numeric_limits<double>::quiet_NaN();
    ASSERT_TRUE(std::signbit(negative_nan));
    m.result = negative_nan;
    m.exact = std::numeric_limits<double>::quiet_NaN();
    m.rel_error = negative_nan;
    for (const char* column : {"result", "exact", "rel_error"}) EXPECT_EQ(csv_field(m, column), "nan") << column;
    EXPECT_NE(json_document({m}).find("\"result\": \"nan\", \"exact\": \"nan\", \"rel_error\": \"nan\""), std::string::npos)
        << json_document({m});
    const std::string line = progress_line(1, 1, m);
    EXPECT_NE(line.find("rel.error nan"), std::string::npos) << line;
    EXPECT_EQ(line.find("-nan"), std::string::npos) << line;
}

// gbps is bytes / time_ns_median: the times carry the measured double, so a reader's division gives
// gbps back (at 16 elements one decimal of a nanosecond was 0.66% of it).
TEST(Fields, TimesGiveBackGbps) {
    Measurement m = row();
    for (const double time : {7.55, 7.45, 1234567.891, 0.1 + 0.2}) {
        m.time_ns_median = m.time_ns_min = time;
        m.gbps = rules::gbps(m.bytes, time);
        for (const char* column : {"time_ns_median", "time_ns_min"}) {
            const double read = std::stod(csv_field(m, column));
            EXPECT_NEAR(static_cast<double>(m.bytes) / read / m.gbps, 1.0, 1e-6) << column << " " << csv_field(m, column);
        }
    }
}

// JSON readers in JavaScript hold numbers as doubles: a whole number past 2^53 is a string there.
TEST(Fields, WholeNumbersPastTwoToThe53AreJsonStrings) {
    EXPECT_EQ(json_whole(42), "42");
    EXPECT_EQ(json_whole(std::uint64_t{1} << 53), "9007199254740992");
    EXPECT_EQ(json_whole((std::uint64_t{1} << 53) + 1), "\"9007199254740993\"");
    Measurement m = row();
    m.seed = std::numeric_limits<std::uint64_t>::max();
    EXPECT_NE(json_document({m}).find("\"seed\": \"18446744073709551615\""), std::string::npos) << json_document({m});
    EXPECT_EQ(csv_field(m, "seed"), "18446744073709551615");
}

// --csv=results/$(accumulate_bench --machine).csv: the host part holds nothing a path would split
// or a line would break on; the hash, over the name as the system gives it, keeps hosts apart.
TEST(Fields, HostNamesAreSafeInAFileName) {
    const std::string odd = machine_identity("a/b\nc\x01.d", "cpu", "id", {});
    EXPECT_EQ(odd.substr(0, odd.size() - 8), "a_b_c_.d-");
    EXPECT_NE(odd, machine_identity("a_b_c_.d", "cpu", "id", {}));
    EXPECT_EQ(machine_identity("..", "cpu", "id", {}).substr(0, 3), "_.-");
    EXPECT_EQ(machine_identity("-rf", "cpu", "id", {}).substr(0, 4), "_rf-");
    EXPECT_EQ(machine_identity("", "cpu", "id", {}).substr(0, 8), "unknown-");
    EXPECT_EQ(file_safe_host("vm-3.example_lab.com"), "vm-3.example_lab.com");
    EXPECT_EQ(file_safe_host("caf\xc3\xa9"), "caf__");
    EXPECT_EQ(machine_identity().substr(0, host_name().size() + 1), host_name() + "-");
}

// The dict of an .npy header as NumPy's reader takes it.
TEST(Fields, NpyHeadersAreReadAsNumPyReadsThem) {
    const NpyHeader single = parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + std::string(20, ' ') + "\n", 1);
    EXPECT_EQ(single.descr, "<f4");
    EXPECT_FALSE(single.fortran_order);
    EXPECT_EQ(single.shape, std::vector<std::uint64_t>{3});
    EXPECT_EQ(single.values, 3u);
    // Double quotes, no trailing comma, any key order, line breaks inside the braces.
    const NpyHeader quoted = parse_npy_header("{\"shape\": (2, 3),\n \"fortran_order\": True, \"descr\": \"<f8\"}", 3);
    EXPECT_EQ(quoted.descr, "<f8");
    EXPECT_TRUE(quoted.fortran_order);
    EXPECT_EQ(quoted.shape, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(quoted.values, 6u);
    EXPECT_EQ(parse_npy_header("{'descr':'<f4','fortran_order':False,'shape':()}", 1).values, 1u);
    EXPECT_EQ(parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1_000, 2,)}", 3).values, 2000u);
    // Python 2's NumPy wrote longs: read in versions 1 and 2, as NumPy's _filter_header does.
    EXPECT_EQ(parse_npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }", 1).values, 3u);

    auto refused = [](const std::string& dict, int version, const std::string& why) {
        try {
            parse_npy_header(dict, version);
            ADD_FAILURE() << "read: " << dict;
        } catch (const NpyHeaderError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << dict << ": " << e.what();
        }
    };
    // Python keeps a key's last value; a reader keeping its first would sum other data.
    refused("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'descr': '<f4'}", 1, "gives 'descr' twice");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (6,)}", 1, "gives 'shape' twice");
    refused("{'descr': '<f4', 'shape': (3,)}", 1, "has no 'fortran_order'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", 1, "holds the key 'extra'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", 1, "a tuple of one is written (N,)");
    refused("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}", 1, "not True or False");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3L,)}", 3, "shape (3L,) that is not a tuple of sizes");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", 1, "not a tuple of sizes");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (03,)}", 1, "not a tuple of sizes");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", 1, "of more than 2^64 values");
    refused("{'descr': '<\\x66' , 'fortran_order': False, 'shape': (1,)}", 1, "backslash escape");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing", 1, "goes on after");
    refused("{'descr': '<f4' 'fortran_order': False}", 1, "no ',' or '}' after the value of 'descr'");
    refused("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", 1, "after the value of 'descr'");
}

// The header --write-input writes is one NumPy reads, and reads back to what was written.
TEST(Fields, NpyHeadersAreWrittenAsNumPyWritesThem) {
    for (const std::vector<std::uint64_t>& shape : {std::vector<std::uint64_t>{}, {5}, {2, 3}}) {
        NpyHeader header;
        header.descr = "<f2";
        header.shape = shape;
        const std::string text = npy_header_text(header);
        const NpyHeader read = parse_npy_header(text, 1);
        EXPECT_EQ(read.descr, "<f2") << text;
        EXPECT_EQ(read.shape, shape) << text;
    }
    NpyHeader one;
    one.descr = "<f4";
    one.shape = {3};
    EXPECT_EQ(npy_header_text(one), "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
}

// Every device API's device, with and without +h2d, in either timing: the columns after the device
// start at one place, and the line says how the row was timed.
TEST(Fields, ProgressLinesSayTheTimingAndKeepTheirColumns) {
    Measurement m = row();
    m.backend = "cuda/ladder/07-first-add-during-load";  // the longest name
    std::vector<std::string> devices;
    for (const DeviceApi& api : device_apis()) {
        devices.emplace_back(api.device.name());
        devices.push_back(std::string(api.device.name()) + "+h2d");
    }
    devices.push_back("vulkan+h2d");  // the longest of the builds that have Vulkan, in every build
    std::size_t column = 0;
    for (const std::string& device : devices)
        for (const int batch : {1, 1024}) {
            m.device = device;
            m.timing = batch == 1 ? "isolated" : "batched";
            m.batch = batch;
            const std::string line = progress_line(12, 345, m);
            const std::size_t at = line.find(" n=");
            if (column == 0) column = at;
            EXPECT_EQ(at, column) << line;
            EXPECT_NE(line.find(batch == 1 ? " isolated " : " batched x1024 "), std::string::npos) << line;
        }
}

}  // namespace
}  // namespace shootout
