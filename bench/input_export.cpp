#include "bench/input_export.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/device_api.hpp"
#include "api/device_timing.hpp"
#include "exact/exact_sum.hpp"
#include "report/columns.hpp"
#include "report/files.hpp"
#include "bench/inputs.hpp"
#include "bench/npy_header.hpp"
#include "api/measurement_rules.hpp"
#include "report/reporters.hpp"
#include "report/size_text.hpp"
#include "bench/sweep_plan.hpp"
#include "bench/system_info.hpp"

namespace shootout {

namespace {

// An .npy file's first bytes, format 1.0: the magic, the version, the header's length, a Python
// dict literal padded with spaces to a multiple of 64 bytes ending in a newline; the values follow.
std::string npy_prefix(Elements values) {
    if (npy_descriptor(values.type()).empty())
        throw std::runtime_error("--write-input: " + std::string(to_string(values.type())) + " has no .npy dtype");
    NpyHeader layout;
    layout.descr = npy_descriptor(values.type());
    layout.shape = {values.size()};
    std::string header = npy_header_text(layout);
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string prefix = "\x93NUMPY";
    prefix += '\x01';
    prefix += '\x00';
    prefix += static_cast<char>(header.size() & 0xff);
    prefix += static_cast<char>(header.size() >> 8);
    return prefix + header;
}

// An input's file name in DIR, by its place in the sweep's plan: 000-f32-n1024.npy.
std::string input_name(std::size_t index, ElementType type, std::uint64_t n) {
    const std::string digits = std::to_string(index);
    return std::string(digits.size() < 3 ? 3 - digits.size() : 0, '0') + digits + "-" + std::string(to_string(type)) + "-n" +
           std::to_string(n) + ".npy";
}

// One input: its file name in DIR and its line of the manifest.
std::string input_entry(const std::string& file, const Options& options, std::uint64_t n, ElementType type,
                        const ExactAccumulator& exact) {
    const auto words = exact.words();
    std::string digits;
    for (int i = 0; i < ExactAccumulator::kDigits; ++i) {
        if (i) digits += ',';
        digits += std::to_string(words[i]);
    }
    const std::size_t flags = ExactAccumulator::kDigits;
    return "{\"file\": " + quote_json(file) + ", \"n\": " + std::to_string(n) + ", \"dtype\": " +
           quote_json(std::string(to_string(type))) + ", \"input\": " + quote_json(options.input.label()) +
           ", \"seed\": " + (options.input.file.empty() ? std::to_string(options.input.seed) : "null") +
           ", \"exact\": " + json_number(exact.round()) + ", \"exact_digits\": [" + digits + "]" +
           ", \"saw_nan\": " + (words[flags] ? "true" : "false") + ", \"saw_pos_inf\": " + (words[flags + 1] ? "true" : "false") +
           ", \"saw_neg_inf\": " + (words[flags + 2] ? "true" : "false") + "}";
}

// Each device API's device, as its first available backend describes it (the gpu and peak_gbps
// columns of its rows).
std::string devices_entry() {
    std::string entries;
    for (const DeviceApi& api : device_apis()) {
        if (api.device == Device::cpu) continue;
        for (const Backend& backend : registered_backends()) {
            if (backend.device != api.device || !backend.device_info || backend.why_unavailable()) continue;
            const DeviceInfo info = backend.device_info();
            entries += std::string(entries.empty() ? "" : ", ") + quote_json(std::string(api.device.name())) +
                       ": {\"name\": " + quote_json(info.name) + ", \"peak_gbps\": " +
                       (info.peak_gbps > 0 ? json_number(info.peak_gbps) : "null") + "}";
            break;
        }
    }
    return "{" + entries + "}";
}

std::string rules_entry() {
    return "{\"repetitions\": " + std::to_string(rules::kRepetitions) + ", \"min_time_s\": " + json_number(rules::kMinTimeSeconds) +
           ", \"min_warmup_s\": " + json_number(rules::kMinWarmupSeconds) +
           ", \"l2_rotation_factor\": " + std::to_string(rules::kL2RotationFactor) +
           ", \"copy_alignment\": " + std::to_string(kDeviceCopyAlignment) + ", \"batch_bytes\": " + std::to_string(rules::kBatchBytes) +
           ", \"min_batch\": " + std::to_string(rules::kMinBatch) + ", \"max_batch\": " + std::to_string(rules::kMaxBatch) +
           ", \"interleave\": true}";
}

std::string context_entry() {
    return "{\"host\": " + quote_json(host_name()) + ", \"cpu\": " + quote_json(cpu_model()) + ", \"machine\": " +
           quote_json(machine_identity()) + ", \"os\": " + quote_json(platform::os_name()) +
           ", \"version\": " + quote_json(build_version()) + "}";
}

// The inputs a sweep of these options sums, in its order: sizes ascending, each size's element
// types in --dtype's order.
std::vector<std::pair<std::uint64_t, ElementType>> planned_inputs(const Options& options) {
    std::set<std::uint64_t> sizes;
    for (ElementType type : options.dtypes)
        for (std::uint64_t n : sweep_sizes(options, type)) sizes.insert(n);
    std::vector<std::pair<std::uint64_t, ElementType>> inputs;
    for (std::uint64_t n : sizes)
        for (ElementType type : options.dtypes) {
            const std::vector<std::uint64_t> of_type = sweep_sizes(options, type);
            if (std::find(of_type.begin(), of_type.end(), n) != of_type.end()) inputs.emplace_back(n, type);
        }
    return inputs;
}

}  // namespace

int write_inputs(const Options& options, std::ostream& out, std::ostream& err) {
    const std::filesystem::path directory = options.write_input;
    platform::FileStatus status;
    if (!platform::file_status(directory.string(), status) || status.kind != platform::FileKind::directory)
        throw UsageError("--write-input: '" + directory.string() + "' is not a directory");
    // Refused before any file is written: a manifest-less half of the inputs helps no one.
    for (ElementType type : options.dtypes)
        if (npy_descriptor(type).empty())
            throw UsageError("--write-input: --dtype=" + std::string(to_string(type)) +
                             ": the inputs are written as .npy files, and " + std::string(format_name(type)) + " has no .npy dtype");
    // Every file is a new name in DIR, checked before any input is made (OutputWrite::create).
    auto output = [&](const std::string& name) { return OutputFile("--write-input", (directory / name).string(), OutputWrite::create); };
    const OutputFile manifest_file = output(kInputManifest);
    int exit_status = 0;
    std::vector<std::string> entries;
    auto add = [&](const OutputFile& file, Elements values, std::uint64_t n) {
        const ExactAccumulator exact = exact_sum(values);
        file.write({npy_prefix(values), std::string_view(static_cast<const char*>(values.data()), values.size_bytes())});
        entries.push_back(input_entry(std::filesystem::path(file.path()).filename().string(), options, n, values.type(), exact));
        out << "wrote " << file.path() << ": n=" << describe_size(n, values.type()) << " dtype=" << to_string(values.type())
            << " input=" << options.input.label() << " exact=" << format_number("%.17g", exact.round()) << '\n';
    };
    if (!options.input.file.empty()) {
        const HostArray values = read_float_file(options.input.file, options.dtype_given ? std::optional(options.dtypes.front()) : std::nullopt);
        add(output(input_name(0, values.type(), values.size())), values.elements(), values.size());
    } else {
        const std::vector<std::pair<std::uint64_t, ElementType>> inputs = planned_inputs(options);
        std::vector<OutputFile> files;
        for (std::size_t i = 0; i < inputs.size(); ++i) files.push_back(output(input_name(i, inputs[i].second, inputs[i].first)));
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const auto [n, type] = inputs[i];
            const double bytes = static_cast<double>(input_bytes(type, n));
            if (bytes > 0.8 * static_cast<double>(platform::available_memory_bytes())) {
                err << "skipping n=" << describe_size(n, type) << " dtype=" << to_string(type) << ": the input needs " << gib(bytes)
                    << " of host memory and " << gib(static_cast<double>(platform::available_memory_bytes())) << " is available\n";
                exit_status = 1;
                continue;
            }
            HostArray values(type, n);
            fill(values, options.input, n, 0);
            add(files[i], values.elements(), n);
        }
    }
    std::string inputs;
    for (const std::string& entry : entries) inputs += std::string(inputs.empty() ? "" : ",\n    ") + entry;
    manifest_file.write({"{\n  \"written_by\": \"accumulate_bench --write-input\",\n  \"columns_documented_in\": "
                         "\"results/README.md\",\n  \"context\": " + context_entry() +
                         ",\n  \"devices\": " + devices_entry() + ",\n  \"rules\": " + rules_entry() +
                         ",\n  \"exact_layout\": {\"digit_bits\": " + std::to_string(ExactAccumulator::kDigitBits) +
                         ", \"lowest_bit\": " + std::to_string(ExactAccumulator::kLowestBit) + "},\n  \"columns\": " +
                         columns_json() + ",\n  \"inputs\": [\n    " + inputs + "\n  ]\n}\n"});
    return exit_status;
}

}  // namespace shootout
