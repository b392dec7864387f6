#include "report/reporters.hpp"

#include "report/size_text.hpp"
#include "report/utf8.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

namespace shootout {

namespace {

std::string exact_text(double value) { return format_number("%.17g", value); }  // round-trips a double

std::string quote_csv(const std::string& field) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

// Quotes and backslashes escaped, control characters as \u00XX, and each byte that is not part of
// valid UTF-8 (a file name can hold any byte) as U+FFFD.
std::string quote_json(std::string_view text) {
    std::string quoted = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += static_cast<char>(c);
            ++i;
        } else if (c < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
            quoted += escape;
            ++i;
        } else if (const std::size_t length = utf8_sequence_length(text, i)) {
            quoted.append(text.substr(i, length));
            i += length;
        } else {
            quoted += "\\ufffd";
            ++i;
        }
    }
    return quoted + "\"";
}

std::string json_whole(std::uint64_t value) {
    constexpr std::uint64_t kLargestExact = std::uint64_t{1} << 53;  // a double, JavaScript's number, holds every whole number up to it
    const std::string digits = std::to_string(value);
    return value <= kLargestExact ? digits : quote_json(digits);
}

std::string json_number(double value) {
    if (std::isnan(value)) return "\"nan\"";
    if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
    return exact_text(value);
}

namespace {

// One column: its schema, its CSV text, and its JSON value (quoted string, number or null).
struct Column {
    ColumnSchema schema;
    std::string csv, json;
};

// Text is valid UTF-8 in both files, with U+FFFD for each byte that is not: pandas refuses a whole
// file for one such byte.
Column text(const char* name, const std::string& value, bool may_be_empty = false) {
    return {{name, ColumnKind::text, nullptr, may_be_empty}, valid_utf8(value), quote_json(value)};
}
Column whole(const char* name, std::uint64_t value) {
    return {{name, ColumnKind::whole}, std::to_string(value), json_whole(value)};
}
Column real(const char* name, double value, const char* csv_pattern) {
    return {{name, ColumnKind::real, csv_pattern}, format_number(csv_pattern, value), json_number(value)};
}

// A real column that is empty where there is no value.
Column optional_real(const char* name, const std::optional<double>& value, const char* csv_pattern) {
    return {{name, ColumnKind::real, csv_pattern, true}, value ? format_number(csv_pattern, *value) : "",
            value ? json_number(*value) : "null"};
}
Column optional_whole(const char* name, const std::optional<std::uint64_t>& value) {
    return {{name, ColumnKind::whole, nullptr, true}, value ? std::to_string(*value) : "", value ? json_whole(*value) : "null"};
}

// Decimal gigabytes of input read per joule of the device's energy, as gbps counts bytes.
double gb_per_joule(const Measurement& m) { return static_cast<double>(m.bytes) * 1e-9 / *m.energy_j; }

// The schema, in order (results/README.md documents each column). Columns are only ever appended.
std::vector<Column> columns(const Measurement& m) {
    return {
        text("timestamp", m.timestamp), text("host", m.host), text("cpu", m.cpu), text("gpu", m.gpu),
        text("compiler", m.compiler), text("build", m.build), text("backend", m.backend), text("device", m.device),
        whole("threads", static_cast<std::uint64_t>(m.threads)), text("input", m.input),
        {{"seed", ColumnKind::whole, nullptr, true}, m.seed ? std::to_string(*m.seed) : "", m.seed ? json_whole(*m.seed) : "null"},
        whole("n", m.n), whole("bytes", m.bytes), real("gbps", m.gbps, "%.6g"),
        real("time_ns_median", m.time_ns_median, "%.17g"), real("time_ns_min", m.time_ns_min, "%.17g"),
        whole("iterations", static_cast<std::uint64_t>(m.iterations)), real("result", m.result, "%.17g"),
        real("exact", m.exact, "%.17g"), real("rel_error", m.rel_error, "%.17g"),
        {{"peak_gbps", ColumnKind::real, "%.6g", true}, m.peak_gbps > 0 ? format_number("%.6g", m.peak_gbps) : "",
         m.peak_gbps > 0 ? json_number(m.peak_gbps) : "null"},
        text("machine", m.machine), text("timing", m.timing), whole("batch", static_cast<std::uint64_t>(m.batch)),
        text("cache", m.cache), text("accumulator", m.accumulator), text("order", m.order),
        text("reproducibility", m.reproducibility), text("role", m.role), text("reproducible", m.reproducible),
        whole("gpus", static_cast<std::uint64_t>(m.gpus)), whole("ranks", static_cast<std::uint64_t>(m.ranks)),
        text("pages", m.pages), text("configuration", m.configuration), text("dtype", std::string(to_string(m.dtype))),
        text("os", m.os),
        {{"energy_j", ColumnKind::real, "%.6g", true}, m.energy_j ? format_number("%.6g", *m.energy_j) : "",
         m.energy_j ? json_number(*m.energy_j) : "null"},
        {{"gb_per_j", ColumnKind::real, "%.6g", true}, m.energy_j ? format_number("%.6g", gb_per_joule(m)) : "",
         m.energy_j ? json_number(gb_per_joule(m)) : "null"},
        text("version", m.version),
        optional_real("spread", m.spread, "%.4g"),
        optional_whole("reps", m.reps > 0 ? std::optional<std::uint64_t>(m.reps) : std::nullopt),
        text("noisy", m.noisy, true),
        optional_whole("throttled", m.throttled ? std::optional<std::uint64_t>(*m.throttled) : std::nullopt),
        optional_real("sm_clock_mhz", m.sm_clock_mhz, "%.6g"), optional_real("mem_clock_mhz", m.mem_clock_mhz, "%.6g"),
        text("governor", m.governor, true), text("turbo", m.turbo, true), optional_real("load1", m.load1, "%.3g"),
    };
}

std::string json_object(const Measurement& m) {
    std::string object = "{";
    for (const Column& column : columns(m)) {
        if (object.size() > 1) object += ", ";
        object += quote_json(column.schema.name) + ": " + column.json;
    }
    // Not a column: every repetition's time, for tools that test a difference's significance.
    std::string repetitions;
    for (double time : m.repetitions_ns) repetitions += (repetitions.empty() ? "" : ", ") + json_number(time);
    return object + ", \"repetitions_ns\": [" + repetitions + "]}";
}

}  // namespace

std::vector<ColumnSchema> csv_schema() {
    std::vector<ColumnSchema> schema;
    for (const Column& column : columns(Measurement{})) schema.push_back(column.schema);
    return schema;
}

std::string csv_header() {
    std::string header;
    for (const ColumnSchema& column : csv_schema()) {
        if (!header.empty()) header += ',';
        header += column.name;
    }
    return header;
}

std::string_view to_string(ColumnKind kind) {
    switch (kind) {
        case ColumnKind::text: return "text";
        case ColumnKind::whole: return "whole";
        case ColumnKind::real: return "real";
    }
    return "text";
}

std::string csv_row(const Measurement& m) {
    std::string row;
    const char* separator = "";
    for (const Column& column : columns(m)) {
        row += separator;
        row += quote_csv(column.csv);
        separator = ",";
    }
    return row;
}

std::vector<std::string> split_csv_row(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else fields.back() += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') fields.emplace_back();
        else fields.back() += c;
    }
    return fields;
}

std::string json_document(const std::vector<Measurement>& measurements) {
    std::string document = "{\n  \"columns_documented_in\": \"results/README.md\",\n  \"measurements\": [";
    const char* separator = "\n    ";
    for (const Measurement& m : measurements) {
        document += separator + json_object(m);
        separator = ",\n    ";
    }
    return document + "\n  ]\n}\n";
}

std::vector<std::unique_ptr<Reporter>> open_reporters(const OutputPaths& paths) {
    std::optional<OutputFile> csv, json;
    if (!paths.csv.empty()) csv.emplace("--csv", paths.csv, OutputWrite::append);
    if (!paths.json.empty()) json.emplace("--json", paths.json, OutputWrite::replace);
    if (csv && json && csv->same_file(*json))
        throw UsageError("--csv and --json both name '" + paths.csv + "'" + (paths.json == paths.csv ? "" : " (as '" + paths.json + "')") +
                         ": each would overwrite what the other wrote");
    for (const std::optional<OutputFile>* output : {&csv, &json})
        if (*output && !paths.input.empty() && (*output)->same_file(paths.input))
            throw UsageError((*output)->option() + ": '" + (*output)->path() + "' is the input file: writing it would destroy the input");
    std::vector<std::unique_ptr<Reporter>> reporters;
    if (csv) reporters.push_back(std::make_unique<CsvReporter>(std::move(*csv)));
    if (json) reporters.push_back(std::make_unique<JsonReporter>(std::move(*json)));
    return reporters;
}

std::string progress_counter(std::size_t index, std::size_t total) {
    char counter[48];
    if (total) std::snprintf(counter, sizeof counter, "[%zu/%zu]", index, total);
    else std::snprintf(counter, sizeof counter, "[%zu]", index);
    return counter;
}

std::string progress_line(std::size_t index, std::size_t total, const Measurement& m) {
    // Widths that keep the columns under each other: the longest backend name (36 characters,
    // cuda/ladder/07-first-add-during-load), device ("vulkan+h2d") and timing ("batched x1024").
    const std::string timing = m.timing == "batched" ? "batched x" + std::to_string(m.batch) : m.timing;
    auto print = [](auto... values) {  // the whole line, however long a file input's name is
        const char* pattern = "%s %-36s %-10s %-13s n=%-16s threads=%-3d %-8s %9.2f GB/s  median %11.1f ns  rel.error %s";
        std::string text(static_cast<std::size_t>(std::snprintf(nullptr, 0, pattern, values...)), '\0');
        std::snprintf(text.data(), text.size() + 1, pattern, values...);
        return text;
    };
    const std::string line = print(progress_counter(index, total).c_str(), m.backend.c_str(), m.device.c_str(), timing.c_str(),
                                   describe_size(m.n, m.dtype).c_str(), m.threads, m.input.c_str(), m.gbps, m.time_ns_median,
                                   format_number("%.3e", m.rel_error).c_str());
    // Only where there is more than one: the lines of one-GPU, one-process runs stay as they were.
    std::string more = m.gpus > 1 ? "  gpus=" + std::to_string(m.gpus) : "";
    if (m.dtype != ElementType::f32) more += "  dtype=" + std::string(to_string(m.dtype));
    if (m.ranks > 1) more += "  ranks=" + std::to_string(m.ranks);
    if (m.energy_j) more += "  " + format_number("%.3g", gb_per_joule(m)) + " GB/J";
    return line + more;
}

}  // namespace shootout
