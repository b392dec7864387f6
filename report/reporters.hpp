// Where measurements go: CSV rows (appended), a JSON document, progress lines on the terminal.
// Reporters know nothing of how a measurement was taken, and never lose what a file already held.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/errors.hpp"
#include "report/measurement.hpp"
#include "report/files.hpp"

namespace shootout {

// What a column holds: text as it is, a whole number (decimal), or a real number in its printf pattern.
enum class ColumnKind { text, whole, real };
std::string_view to_string(ColumnKind kind);

struct ColumnSchema {
    const char* name;
    ColumnKind kind;
    const char* pattern = nullptr;  // real columns: the printf pattern of the CSV text ("%.6g")
    bool may_be_empty = false;      // seed (file inputs), peak_gbps (device unknown), energy_j and gb_per_j (no counter),
                                    // the noise, clock and context columns (not measured or not known)
};

// The CSV columns, in order, from the one table that writes CSV rows and JSON objects; documented in
// results/README.md. Runners outside the harness take them from it (accumulate_bench --write-input).
std::vector<ColumnSchema> csv_schema();
std::string csv_header();
std::string csv_row(const Measurement& m);
// A JSON string literal of text (valid UTF-8: U+FFFD for each byte that is not), and a JSON value of
// a number ("nan", "inf" and "-inf" as strings: JSON has no such numbers).
std::string quote_json(std::string_view text);
std::string json_number(double value);
// A JSON value of a whole number: a number up to 2^53, a string above it (a JavaScript reader's
// numbers are doubles, which hold every whole number only up to 2^53).
std::string json_whole(std::uint64_t value);

// Splits one CSV line, undoing the quoting csv_row() applies.
std::vector<std::string> split_csv_row(std::string_view line);

// The JSON document of these measurements, one object per measurement with the CSV's columns as
// keys. Non-finite numbers are the strings "inf", "-inf" and "nan" (JSON has no such numbers);
// strings are valid UTF-8, with U+FFFD for each byte that is not.
std::string json_document(const std::vector<Measurement>& measurements);

// Where each measurement goes.
class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void report(const Measurement&) = 0;
    virtual void finish() {}
};

// Appends one row per measurement to a CSV file that runs from several machines and days can share.
// Each append holds an exclusive lock on the file (OutputFile::open_locked, which says on stderr
// when it waits for another process's lock) while it writes the header into an empty file, checks
// an existing one starts with csv_header(), adds a final newline the file lacks, and writes its
// row: so two runs appending to one new file write one header between them. A row that cannot be
// written whole (a full disk) is cut off again, leaving the file as it was.
class CsvReporter final : public Reporter {
public:
    // Throws UsageError when the path cannot be written (OutputFile) or holds another header.
    explicit CsvReporter(std::string path);
    explicit CsvReporter(OutputFile output);  // an OutputWrite::append output
    void report(const Measurement& m) override;  // throws std::runtime_error naming the path

private:
    OutputFile output_;
};

// Writes every measurement so far as one JSON document after each measurement, by writing a
// temporary file and renaming it over the path: an interrupted run leaves the last whole document,
// and a run that measures nothing leaves the file as it was. A second run would replace the first
// one's document with its own, so the reporter holds an OutputLock on the path for its whole life.
class JsonReporter final : public Reporter {
public:
    // Throws UsageError for a path that cannot be written (OutputFile) or that another run is
    // writing; leaves nothing but the lock file.
    explicit JsonReporter(std::string path);
    explicit JsonReporter(OutputFile output);  // an OutputWrite::replace output
    void report(const Measurement& m) override;  // throws std::runtime_error naming the path

private:
    OutputFile output_;
    OutputLock lock_;
    std::vector<Measurement> measurements_;
};

// The run's summary on the console, written by finish(): the text of summary_table() over every
// measurement reported, nothing when it is empty.
class SummaryReporter final : public Reporter {
public:
    explicit SummaryReporter(std::ostream& out) : out_(out) {}
    void report(const Measurement& m) override { measurements_.push_back(m); }
    void finish() override;

private:
    std::ostream& out_;
    std::vector<Measurement> measurements_;
};

// A few lines per device and element type: for each size band (by input bytes), the fastest
// reduction, its fraction of the device's read ceiling, and the most accurate reduction; the rules
// are stated in the table's heading. Empty when fewer than two reductions were measured.
std::string summary_table(const std::vector<Measurement>& measurements);

// The files a run writes (--csv, --json; empty: none) and the input file it reads (empty: none).
struct OutputPaths {
    std::string csv, json, input;
};

// The reporters --csv and --json ask for, their paths checked before anything is measured. Throws
// UsageError for a path that cannot be written, and for --csv and --json naming one file, or either
// naming the input file, however each is spelled (OutputFile::same_file): each would destroy the
// other's data.
std::vector<std::unique_ptr<Reporter>> open_reporters(const OutputPaths& paths);

// "[3/40]", or "[3]" when the total is 0: not known, because a --benchmark_filter is set.
std::string progress_counter(std::size_t index, std::size_t total);

// One line per finished measurement, its columns under each other for every backend, device and
// timing ("isolated", or "batched x64": K calls per timed region).
std::string progress_line(std::size_t index, std::size_t total, const Measurement& m);

}  // namespace shootout
