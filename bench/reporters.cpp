#include "reporters.hpp"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace shootout {

namespace {

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

std::string exact_text(double value) { return format("%.17g", value); }  // round-trips a double

std::string quote_csv(const std::string& field) {
    if (field.find_first_of(",\"\n") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string quote_json(const std::string& text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') quoted += '\\', quoted += c;
        else if (static_cast<unsigned char>(c) < 0x20) quoted += format("\\u%04x", static_cast<unsigned char>(c));
        else quoted += c;
    }
    return quoted + "\"";
}

std::string json_number(double value) { return std::isfinite(value) ? exact_text(value) : "null"; }

}  // namespace

std::string csv_header() {
    return "timestamp,host,cpu,gpu,compiler,build,backend,device,threads,input,seed,n,bytes,gbps,"
           "time_ns_median,time_ns_min,iterations,result,exact,rel_error,peak_gbps";
}

std::string csv_row(const Measurement& m) {
    const std::string fields[] = {
        m.timestamp, m.host, m.cpu, m.gpu, m.compiler, m.build, m.backend, m.device,
        std::to_string(m.threads), m.input, m.seed ? std::to_string(*m.seed) : "",
        std::to_string(m.n), std::to_string(m.bytes), format("%.6g", m.gbps),
        format("%.1f", m.time_ns_median), format("%.1f", m.time_ns_min), std::to_string(m.iterations),
        exact_text(m.result), exact_text(m.exact), exact_text(m.rel_error),
        m.peak_gbps > 0 ? format("%.6g", m.peak_gbps) : ""};
    std::string row;
    for (const auto& field : fields) {
        if (&field != fields) row += ',';
        row += quote_csv(field);
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

CsvWriter::CsvWriter(const std::string& path) : path_(path) {
    std::error_code error;
    const bool fresh = !std::filesystem::exists(path, error) || std::filesystem::file_size(path, error) == 0;
    out_.open(path, std::ios::app);
    if (!out_) throw std::runtime_error("--csv: cannot write '" + path + "': " + std::strerror(errno));
    if (fresh) out_ << csv_header() << '\n' << std::flush;
}

void CsvWriter::write(const Measurement& m) {
    out_ << csv_row(m) << '\n' << std::flush;
    if (!out_) throw std::runtime_error("--csv: writing '" + path_ + "' failed");
}

JsonWriter::JsonWriter(std::string path) : path_(std::move(path)) { flush(); }

void JsonWriter::write(const Measurement& m) {
    measurements_.push_back(m);
    flush();
}

void JsonWriter::flush() const {
    std::ofstream out(path_, std::ios::trunc);
    if (!out) throw std::runtime_error("--json: cannot write '" + path_ + "': " + std::strerror(errno));
    out << "{\n  \"columns_documented_in\": \"results/README.md\",\n  \"measurements\": [";
    const char* separator = "\n";
    for (const auto& m : measurements_) {
        out << separator << "    {\"timestamp\": " << quote_json(m.timestamp) << ", \"host\": " << quote_json(m.host)
            << ", \"cpu\": " << quote_json(m.cpu) << ", \"gpu\": " << quote_json(m.gpu)
            << ", \"compiler\": " << quote_json(m.compiler) << ", \"build\": " << quote_json(m.build)
            << ", \"backend\": " << quote_json(m.backend) << ", \"device\": " << quote_json(m.device)
            << ", \"threads\": " << m.threads << ", \"input\": " << quote_json(m.input)
            << ", \"seed\": " << (m.seed ? std::to_string(*m.seed) : "null") << ", \"n\": " << m.n
            << ", \"bytes\": " << m.bytes << ", \"gbps\": " << json_number(m.gbps)
            << ", \"time_ns_median\": " << json_number(m.time_ns_median)
            << ", \"time_ns_min\": " << json_number(m.time_ns_min) << ", \"iterations\": " << m.iterations
            << ", \"result\": " << json_number(m.result) << ", \"exact\": " << json_number(m.exact)
            << ", \"rel_error\": " << json_number(m.rel_error)
            << ", \"peak_gbps\": " << (m.peak_gbps > 0 ? json_number(m.peak_gbps) : "null") << "}";
        separator = ",\n";
    }
    out << "\n  ]\n}\n";
    if (!out) throw std::runtime_error("--json: writing '" + path_ + "' failed");
}

std::string describe_size(std::uint64_t n) {
    const double bytes = static_cast<double>(n) * sizeof(float);
    const char* unit = "B";
    double scaled = bytes;
    for (const char* next : {"KiB", "MiB", "GiB", "TiB"}) {
        if (scaled < 1024) break;
        scaled /= 1024;
        unit = next;
    }
    const std::string amount = format(scaled == std::floor(scaled) ? "%.0f" : "%.1f", scaled) + " " + unit;
    if (std::has_single_bit(n)) return "2^" + std::to_string(std::countr_zero(n)) + " (" + amount + ")";
    return std::to_string(n) + " (" + amount + ")";
}

std::string progress_counter(std::size_t index, std::size_t total) {
    char counter[48];
    if (total) std::snprintf(counter, sizeof counter, "[%zu/%zu]", index, total);
    else std::snprintf(counter, sizeof counter, "[%zu]", index);
    return counter;
}

std::string progress_line(std::size_t index, std::size_t total, const Measurement& m) {
    char line[512];
    std::snprintf(line, sizeof line, "%s %-36s %-8s n=%-16s threads=%-3d %-8s %9.2f GB/s  median %11.1f ns  rel.error %.3e",
                  progress_counter(index, total).c_str(), m.backend.c_str(), m.device.c_str(), describe_size(m.n).c_str(), m.threads,
                  m.input.c_str(), m.gbps, m.time_ns_median, m.rel_error);
    return line;
}

}  // namespace shootout
