#include "report/size_text.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace shootout {

std::string format_number(const char* pattern, double value) {
    // One spelling of NaN in every file and line: printf writes a NaN with its sign bit set "-nan"
    // (glibc; "-nan(ind)" in Windows' C library), and x86 makes such NaNs (inf - inf).
    if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

std::string describe_size(std::uint64_t n, ElementType type) {
    const char* unit = "B";
    double scaled = static_cast<double>(input_bytes(type, n));
    for (const char* next : {"KiB", "MiB", "GiB", "TiB"}) {
        if (scaled < 1024) break;
        scaled /= 1024;
        unit = next;
    }
    const std::string amount = format_number(scaled == std::floor(scaled) ? "%.0f" : "%.1f", scaled) + " " + unit;
    if (std::has_single_bit(n)) return "2^" + std::to_string(std::countr_zero(n)) + " (" + amount + ")";
    return std::to_string(n) + " (" + amount + ")";
}

std::string gib(double bytes) { return format_number("%.1f GiB", bytes / (1024.0 * 1024 * 1024)); }

}  // namespace shootout
