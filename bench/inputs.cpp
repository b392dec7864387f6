#include "inputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <numbers>
#include <optional>
#include <regex>
#include <thread>
#include <vector>

#include "files.hpp"
#include "system_info.hpp"

namespace shootout {

std::string InputSpec::label() const {
    if (!file.empty()) return "file:" + std::filesystem::path(file).filename().string();
    switch (distribution) {
        case Distribution::ones: return "ones";
        case Distribution::uniform: return "uniform";
        case Distribution::normal: return "normal";
    }
    return "unknown";
}

HostArray::HostArray(std::size_t count) : memory_(count * sizeof(float)), count_(count) {}

namespace {

// SplitMix64's finaliser: a bijective mix of a 64-bit counter.
constexpr std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

float value_at(Distribution distribution, std::uint64_t key, std::uint64_t i) {
    switch (distribution) {
        case Distribution::ones: return 1.0f;
        case Distribution::uniform: return static_cast<float>(mix(key ^ i) >> 40) * 0x1p-24f;
        case Distribution::normal: {
            const double u1 = static_cast<double>((mix(key ^ (2 * i)) >> 11) + 1) * 0x1p-53;  // (0, 1]
            const double u2 = static_cast<double>(mix(key ^ (2 * i + 1)) >> 11) * 0x1p-53;    // [0, 1)
            return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
        }
    }
    return 0.0f;
}

}  // namespace

void fill(std::span<float> out, Distribution distribution, std::uint64_t seed) {
    const std::uint64_t key = mix(seed);
    const std::size_t threads = std::clamp<std::size_t>(out.size() >> 20, 1, std::max(1u, std::thread::hardware_concurrency()));
    const std::size_t share = (out.size() + threads - 1) / threads;
    std::vector<std::jthread> workers;
    for (std::size_t t = 0; t < threads; ++t)
        workers.emplace_back([=] {
            const std::size_t end = std::min(out.size(), (t + 1) * share);
            for (std::size_t i = t * share; i < end; ++i) out[i] = value_at(distribution, key, i);
        });
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("input file '" + path + "': " + what);
}

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return text;
}

class OpenFile {
public:
    explicit OpenFile(const std::string& path) : path_(path), fd_(open_regular(path)) {
        // The path may have become a FIFO since open_regular() looked: O_NONBLOCK opened it at once.
        struct stat status {};
        if (::fstat(fd_.get(), &status) != 0 || !S_ISREG(status.st_mode)) fail(path, describe_non_regular(status.st_mode));
        size_ = static_cast<std::uint64_t>(status.st_size);
    }

    std::uint64_t size() const { return size_; }

    // Reads out.size() bytes from offset, or fails naming the file.
    void read(std::span<char> out, std::uint64_t offset) const {
        const ssize_t got = read_at(fd_.get(), out, offset);
        if (got < 0) fail(path_, std::string("read failed: ") + std::strerror(errno));
        if (static_cast<std::size_t>(got) < out.size()) fail(path_, "became shorter while it was read");
    }

private:
    // stat first: opening a FIFO waits for a writer, and opening a device can act on it.
    static int open_regular(const std::string& path) {
        struct stat status {};
        if (::stat(path.c_str(), &status) != 0) fail(path, std::string("cannot be opened: ") + std::strerror(errno));
        if (!S_ISREG(status.st_mode)) fail(path, describe_non_regular(status.st_mode));
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) fail(path, std::string("cannot be opened: ") + std::strerror(errno));
        return fd;
    }

    std::string path_;
    FileDescriptor fd_;
    std::uint64_t size_ = 0;
};

constexpr std::string_view kNpyMagic = "\x93NUMPY";

bool starts_with_npy_magic(const OpenFile& file) {
    if (file.size() < kNpyMagic.size()) return false;
    std::string start(kNpyMagic.size(), '\0');
    file.read(start, 0);
    return start == kNpyMagic;
}

// The values an .npy 'shape' tuple holds: "(3,)" 3, "(2, 3)" 6, "()" 1.
std::uint64_t shape_values(const std::string& shape, const std::string& path) {
    std::uint64_t product = 1;
    for (std::size_t begin = 0; begin < shape.size();) {
        std::size_t end = shape.find(',', begin);
        if (end == std::string::npos) end = shape.size();
        const std::size_t first = shape.find_first_not_of(" ", begin);
        const std::size_t last = shape.find_last_not_of(" ", end - 1);
        if (first < end) {
            std::uint64_t extent = 0;
            const auto [stop, error] = std::from_chars(shape.data() + first, shape.data() + last + 1, extent);
            if (error != std::errc{} || stop != shape.data() + last + 1 || __builtin_mul_overflow(product, extent, &product))
                fail(path, ".npy header's shape (" + shape + ") is not a tuple of sizes");
        }
        begin = end + 1;
    }
    return product;
}

// The .npy header: magic, version, header length, then a Python dict literal.
struct NpyLayout {
    std::uint64_t data_offset;
    std::uint64_t values;  // the product of the header's shape
    std::string shape;
};

NpyLayout read_npy_header(const OpenFile& file, const std::string& path) {
    auto read = [&](std::size_t bytes, std::uint64_t offset) {
        if (offset + bytes > file.size()) fail(path, "truncated .npy header");
        std::string text(bytes, '\0');
        file.read(text, offset);
        return text;
    };
    const std::string prefix = read(8, 0);
    const int major = static_cast<unsigned char>(prefix[6]);
    std::size_t header_length = 0;
    std::size_t header_offset = 0;
    if (major == 1) {
        const std::string len = read(2, 8);
        header_length = static_cast<unsigned char>(len[0]) | (static_cast<unsigned char>(len[1]) << 8);
        header_offset = 10;
    } else if (major == 2 || major == 3) {
        const std::string len = read(4, 8);
        for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(len[i]);
        header_offset = 12;
    } else {
        fail(path, ".npy format version " + std::to_string(major) + " is not supported");
    }
    const std::string header = read(header_length, header_offset);
    std::smatch descr, shape;
    if (!std::regex_search(header, descr, std::regex(R"('descr'\s*:\s*'([^']*)')")))
        fail(path, ".npy header has no 'descr'");
    if (descr[1] != "<f4") fail(path, "holds dtype '" + descr[1].str() + "'; float32 little-endian ('<f4') is needed");
    if (!std::regex_search(header, shape, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
        fail(path, ".npy header has no 'shape'");
    // Element order does not change a sum: Fortran order and any shape are summed as they are, as
    // long as the shape holds as many values as the data.
    return {header_offset + header_length, shape_values(shape[1], path), shape[1]};
}

}  // namespace

HostArray read_float_file(const std::string& path) {
    const OpenFile file(path);
    const bool npy = starts_with_npy_magic(file);
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!npy && extension == ".npy") fail(path, "is named .npy but is not a .npy file (it does not start with \"\\x93NUMPY\")");

    const std::optional<NpyLayout> layout = npy ? std::optional(read_npy_header(file, path)) : std::nullopt;
    const std::uint64_t offset = layout ? layout->data_offset : 0;
    const std::uint64_t bytes = file.size() - offset;
    if (bytes % sizeof(float) != 0)
        fail(path, std::to_string(bytes) + " data bytes is not a whole number of float32 values");
    if (layout && layout->values != bytes / sizeof(float))
        fail(path, "its .npy header's shape (" + layout->shape + ") holds " + std::to_string(layout->values) +
                       " values but its data holds " + std::to_string(bytes / sizeof(float)));
    if (bytes == 0) fail(path, "holds no float32 values");

    const std::uint64_t available = available_memory_bytes();
    const InputTooLarge too_large("skipping input file '" + path + "': it needs " + gib(static_cast<double>(bytes)) +
                                  " of host memory and " + gib(static_cast<double>(available)) + " is available");
    if (bytes > available) throw too_large;
    HostArray values;
    try {
        values = HostArray(bytes / sizeof(float));
    } catch (const std::bad_alloc&) {
        throw too_large;  // available memory is an estimate: a cgroup or address-space limit can be lower
    }
    static_assert(std::endian::native == std::endian::little, "raw input files are little-endian float32");
    file.read({reinterpret_cast<char*>(values.span().data()), bytes}, offset);
    return values;
}

}  // namespace shootout
