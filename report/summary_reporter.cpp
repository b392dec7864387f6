// The console summary at the end of a run: which reduction is fastest, how near its device's read
// ceiling it gets, and which one is most accurate, per device, element type and size band.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/reporters.hpp"
#include "report/size_text.hpp"

namespace shootout {

namespace {

// The size bands, by input bytes: a band holds sizes from the band before's end up to its own.
// Below 1 MiB a call costs near its fixed price (a launch, waking threads) and a CPU's L2 holds the
// input; up to 64 MiB a CPU's last level cache or a GPU's L2 (50 MB on an H100) can; above, memory.
struct SizeBand {
    const char* name;
    std::uint64_t end_bytes;  // excluded
};
constexpr SizeBand kSizeBands[] = {
    {"< 1 MiB", std::uint64_t{1} << 20},
    {"1-64 MiB", std::uint64_t{64} << 20},
    {">= 64 MiB", std::numeric_limits<std::uint64_t>::max()},
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t half = values.size() / 2;
    return values.size() % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}

// Worse relative errors compare greater: finite ones by size, then inf, then nan (the input had a
// NaN or an infinity: no result can be judged).
bool less_error(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
    return a < b;
}

// One reduction in one band: its speed rows (the timing rule of the device, the most threads it was
// measured at, one row per size), their median GB/s, and its worst error over all its rows there.
struct Candidate {
    std::string backend;
    std::vector<const Measurement*> speed_rows;
    double gbps = 0;
    double worst_error = 0;
};

// The fastest's speed over the device's read ceiling at each of its sizes, the median over the
// sizes that have one. The ceiling is its fastest row of the same size and timing, at whatever
// threads: what the device can read, which a one-thread winner is judged against too (a run
// measures parallel backends at all hardware threads only, unless --threads says otherwise).
std::optional<double> fraction_of_ceiling(const Candidate& fastest, const std::vector<const Measurement*>& group) {
    std::vector<double> fractions;
    for (const Measurement* row : fastest.speed_rows) {
        double ceiling = 0;
        for (const Measurement* c : group)
            if (c->role == "ceiling" && c->n == row->n && c->timing == row->timing)
                ceiling = std::max(ceiling, c->gbps);
        if (ceiling > 0) fractions.push_back(row->gbps / ceiling);
    }
    if (fractions.empty()) return std::nullopt;
    return median(fractions);
}

struct Line {
    std::string device, dtype, band, fastest, gbps, of_ceiling, accurate, error;
};

// The band's line, or nothing when no reduction was measured in it.
std::optional<Line> band_line(const std::vector<const Measurement*>& group, const SizeBand& band, std::uint64_t start) {
    std::vector<const Measurement*> rows;
    for (const Measurement* m : group)
        if (m->bytes >= start && m->bytes < band.end_bytes) rows.push_back(m);
    // Devices that batch are compared on batched rows: the cost of a call in a stream of calls.
    const bool batched = std::any_of(rows.begin(), rows.end(), [](const Measurement* m) { return m->timing == "batched"; });
    const std::string timing = batched ? "batched" : "isolated";

    std::map<std::string, Candidate> candidates;
    for (const Measurement* m : rows)
        if (m->role == "reduction") {
            Candidate& c = candidates[m->backend];
            c.backend = m->backend;
            if (less_error(c.worst_error, m->rel_error)) c.worst_error = m->rel_error;
        }
    if (candidates.empty()) return std::nullopt;
    for (auto& [name, c] : candidates) {
        int threads = 0;
        for (const Measurement* m : rows)
            if (m->backend == name && m->timing == timing) threads = std::max(threads, m->threads);
        std::vector<double> speeds;
        for (const Measurement* m : rows)
            if (m->backend == name && m->timing == timing && m->threads == threads) {
                c.speed_rows.push_back(m);
                speeds.push_back(m->gbps);
            }
        if (!speeds.empty()) c.gbps = median(speeds);
    }
    // Ties go to the first name, so that the table does not depend on the order rows came in.
    const auto faster = [](const Candidate& a, const Candidate& b) { return a.gbps > b.gbps || (a.gbps == b.gbps && a.backend < b.backend); };
    const Candidate* fastest = nullptr;
    const Candidate* accurate = nullptr;
    for (const auto& [name, c] : candidates) {
        if (!c.speed_rows.empty() && (!fastest || faster(c, *fastest))) fastest = &c;
        if (std::isnan(c.worst_error)) continue;  // judged nothing: cannot be the most accurate
        if (!accurate || less_error(c.worst_error, accurate->worst_error) ||
            (!less_error(accurate->worst_error, c.worst_error) && faster(c, *accurate)))
            accurate = &c;
    }
    const std::optional<double> fraction = fastest ? fraction_of_ceiling(*fastest, group) : std::nullopt;
    return Line{.device = group.front()->device, .dtype = std::string(to_string(group.front()->dtype)), .band = band.name,
                .fastest = fastest ? fastest->backend : "-", .gbps = fastest ? format_number("%.1f", fastest->gbps) : "-",
                .of_ceiling = fraction ? format_number("%.0f%%", 100 * *fraction) : "-",
                .accurate = accurate ? accurate->backend : "-",
                .error = accurate ? format_number("%.2g", accurate->worst_error) : "-"};
}

// The lines as columns, each as wide as its widest entry; numbers aligned right.
std::string layout(const std::vector<Line>& lines) {
    const Line heading{"device", "dtype", "band", "fastest", "GB/s", "of ceiling", "most accurate", "worst error"};
    std::vector<Line> all = {heading};
    all.insert(all.end(), lines.begin(), lines.end());
    constexpr std::size_t kColumns = 8;
    const auto fields = [](const Line& l) {
        return std::vector<const std::string*>{&l.device, &l.dtype, &l.band, &l.fastest, &l.gbps, &l.of_ceiling, &l.accurate, &l.error};
    };
    constexpr bool kRight[kColumns] = {false, false, false, false, true, true, false, false};
    std::size_t width[kColumns] = {};
    for (const Line& l : all)
        for (std::size_t k = 0; k < kColumns; ++k) width[k] = std::max(width[k], fields(l)[k]->size());
    std::string text;
    for (const Line& l : all) {
        std::string row;
        for (std::size_t k = 0; k < kColumns; ++k) {
            const std::string& field = *fields(l)[k];
            const std::string pad(width[k] - field.size(), ' ');
            row += (k ? "  " : "") + (kRight[k] ? pad + field : field + (k + 1 < kColumns ? pad : ""));
        }
        text += row + '\n';
    }
    return text;
}

}  // namespace

std::string summary_table(const std::vector<Measurement>& measurements) {
    std::set<std::string> reductions;
    // One device per row: multi-GPU rows are the scaling plots' and would pass a one-GPU ceiling.
    std::map<std::pair<std::string, ElementType>, std::vector<const Measurement*>> groups;
    for (const Measurement& m : measurements) {
        if (m.role == "reduction") reductions.insert(m.backend);
        if (m.gpus <= 1) groups[{m.device, m.dtype}].push_back(&m);
    }
    if (reductions.size() < 2) return {};
    std::vector<Line> lines;
    for (const auto& [key, group] : groups) {
        std::uint64_t start = 0;
        for (const SizeBand& band : kSizeBands) {
            if (auto line = band_line(group, band, start)) lines.push_back(*std::move(line));
            start = band.end_bytes;
        }
    }
    if (lines.empty()) return {};
    return "\nSummary of the reductions, one device each, per size band of input bytes. GB/s: the median over the band's\n"
           "sizes, at the most threads measured, batched where the device batches. Of ceiling: that over the device's\n"
           "read ceiling (its fastest row at the same sizes and timing). Most accurate: the smallest worst relative\n"
           "error in the band (nan, an input without a finite sum, never wins), ties to the faster.\n" +
           layout(lines);
}

void SummaryReporter::finish() { out_ << summary_table(measurements_); }

}  // namespace shootout
