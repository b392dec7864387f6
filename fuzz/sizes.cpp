// libFuzzer target: parse_sizes() on any text. A spec is refused with UsageError or gives sizes that
// are sorted, distinct, and from 1 to 2^40 elements; anything else (a crash, another exception, a
// sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view spec(reinterpret_cast<const char*>(data), size);
    try {
        const std::vector<std::uint64_t> sizes = shootout::parse_sizes(spec);
        if (sizes.empty()) __builtin_trap();
        for (std::size_t i = 0; i < sizes.size(); ++i)
            if (sizes[i] < 1 || sizes[i] > (std::uint64_t{1} << 40) || (i > 0 && sizes[i - 1] >= sizes[i])) __builtin_trap();
    } catch (const shootout::UsageError&) {
    }
    return 0;
}
