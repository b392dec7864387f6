// Sizes and numbers as messages, progress lines and the CSV write them.
#pragma once

#include <cstdint>
#include <string>

#include "api/element_type.hpp"

namespace shootout {

// "2^20 (4 MiB)" or "1000003 (3.8 MiB)": n elements of `type`.
std::string describe_size(std::uint64_t n, ElementType type = ElementType::f32);

// "1.5 GiB"
std::string gib(double bytes);

// One number through a printf pattern ("%.6g"); a NaN is "nan" whatever its sign.
std::string format_number(const char* pattern, double value);

}  // namespace shootout
