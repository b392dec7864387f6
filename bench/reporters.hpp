// Where measurements go: CSV rows (appended), a JSON document, progress lines on the terminal.
// Reporters know nothing of how a measurement was taken.
#pragma once

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "measurement.hpp"

namespace shootout {

// The CSV columns, in order; documented in results/README.md.
std::string csv_header();
std::string csv_row(const Measurement& m);
// Splits one CSV line, undoing the quoting csv_row() applies.
std::vector<std::string> split_csv_row(std::string_view line);

// Appends rows to PATH; writes the header first only when the file is new or empty, so runs from
// several machines can share one file.
class CsvWriter {
public:
    explicit CsvWriter(const std::string& path);  // throws std::runtime_error naming the path
    void write(const Measurement& m);

private:
    std::string path_;
    std::ofstream out_;
};

// Keeps every measurement and rewrites PATH as one JSON document after each write, so an
// interrupted sweep still leaves a valid file. NaN and infinities are written as null.
class JsonWriter {
public:
    explicit JsonWriter(std::string path);  // throws std::runtime_error naming the path
    void write(const Measurement& m);

private:
    void flush() const;
    std::string path_;
    std::vector<Measurement> measurements_;
};

// "2^20 (4 MiB)" or "1000003 (3.8 MiB)"
std::string describe_size(std::uint64_t n);

// "[3/40]", or "[3]" when the total is 0: not known, because a --benchmark_filter is set.
std::string progress_counter(std::size_t index, std::size_t total);

// One line per finished measurement.
std::string progress_line(std::size_t index, std::size_t total, const Measurement& m);

}  // namespace shootout
