// libFuzzer target: parse_command_line() on any arguments, one per line of the input. A command line
// is refused with UsageError or gives options within the documented bounds; anything else (a crash,
// another exception, a sanitizer report) is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/cli.hpp"

namespace {

// Counts from 1 to most, each once.
bool valid_counts(const std::vector<int>& counts, int most) {
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] < 1 || counts[i] > most || std::count(counts.begin(), counts.begin() + i, counts[i]) != 0) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (std::size_t begin = 0; begin <= text.size();) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        args.emplace_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    try {
        const shootout::Options options = shootout::parse_command_line(args);
        if (options.threads.empty() || !valid_counts(options.threads, 4096) || !valid_counts(options.gpus, 1024)) __builtin_trap();
        if (options.input.file.empty() == options.sizes.empty()) __builtin_trap();  // a file's length is the size
    } catch (const shootout::UsageError&) {
    }
    return 0;
}
