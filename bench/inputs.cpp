#include "inputs.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <numbers>
#include <regex>
#include <thread>
#include <vector>

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

void HostArray::Free::operator()(float* p) const { std::free(p); }

HostArray::HostArray(std::size_t count) : count_(count) {
    constexpr std::size_t kAlignment = 64;
    const std::size_t bytes = std::max<std::size_t>(kAlignment, (count * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment);
    data_.reset(static_cast<float*>(std::aligned_alloc(kAlignment, bytes)));
    if (!data_) throw std::bad_alloc();
}

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

// The .npy header: magic, version, header length, then a Python dict literal.
std::size_t npy_data_offset(std::ifstream& in, const std::string& path) {
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(magic[6]);
    std::size_t header_length = 0;
    std::size_t prefix = 0;
    if (major == 1) {
        unsigned char len[2];
        if (!in.read(reinterpret_cast<char*>(len), 2)) fail(path, "truncated .npy header");
        header_length = len[0] | (len[1] << 8);
        prefix = 10;
    } else if (major == 2 || major == 3) {
        unsigned char len[4];
        if (!in.read(reinterpret_cast<char*>(len), 4)) fail(path, "truncated .npy header");
        header_length = len[0] | (len[1] << 8) | (len[2] << 16) | (std::size_t{len[3]} << 24);
        prefix = 12;
    } else {
        fail(path, ".npy format version " + std::to_string(major) + " is not supported");
    }
    std::string header(header_length, '\0');
    if (!in.read(header.data(), static_cast<std::streamsize>(header_length))) fail(path, "truncated .npy header");
    std::smatch descr;
    if (!std::regex_search(header, descr, std::regex(R"('descr'\s*:\s*'([^']*)')")))
        fail(path, ".npy header has no 'descr'");
    if (descr[1] != "<f4") fail(path, "holds dtype '" + descr[1].str() + "'; float32 little-endian ('<f4') is needed");
    // Element order does not change a sum, so Fortran order and any shape are accepted as they are.
    return prefix + header_length;
}

}  // namespace

HostArray read_float_file(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) fail(path, "is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, std::string("cannot be opened: ") + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const auto file_size = static_cast<std::size_t>(in.tellg());
    in.seekg(0);
    const bool npy = std::filesystem::path(path).extension() == ".npy";
    const std::size_t offset = npy ? npy_data_offset(in, path) : 0;
    const std::size_t bytes = file_size - offset;
    if (bytes % sizeof(float) != 0)
        fail(path, std::to_string(bytes) + " data bytes is not a whole number of float32 values");
    if (bytes == 0) fail(path, "holds no float32 values");
    HostArray values(bytes / sizeof(float));
    static_assert(std::endian::native == std::endian::little, "raw input files are little-endian float32");
    if (!in.read(reinterpret_cast<char*>(values.span().data()), static_cast<std::streamsize>(bytes)))
        fail(path, "read failed");
    return values;
}

}  // namespace shootout
