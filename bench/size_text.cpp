#include "bench/size_text.hpp"

#include <bit>
#include <cmath>
#include <cstdio>

namespace shootout {

namespace {
std::string format(const char* pattern, double value) {
    char text[32];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}
}  // namespace

std::string describe_size(std::uint64_t n, ElementType type) {
    const char* unit = "B";
    double scaled = static_cast<double>(input_bytes(type, n));
    for (const char* next : {"KiB", "MiB", "GiB", "TiB"}) {
        if (scaled < 1024) break;
        scaled /= 1024;
        unit = next;
    }
    const std::string amount = format(scaled == std::floor(scaled) ? "%.0f" : "%.1f", scaled) + " " + unit;
    if (std::has_single_bit(n)) return "2^" + std::to_string(std::countr_zero(n)) + " (" + amount + ")";
    return std::to_string(n) + " (" + amount + ")";
}

std::string gib(double bytes) { return format("%.1f GiB", bytes / (1024.0 * 1024 * 1024)); }

}  // namespace shootout
