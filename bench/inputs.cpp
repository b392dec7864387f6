#include "bench/inputs.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <numbers>
#include <optional>
#include <thread>
#include <vector>

#include "report/files.hpp"
#include "report/size_text.hpp"
#include "report/utf8.hpp"
#include "bench/npy_header.hpp"
#include "bench/system_info.hpp"
#include "platform/joining_thread.hpp"

namespace shootout {

std::string InputSpec::label() const {
    if (!file.empty()) {
        // The absolute path, links resolved, '/' between its parts: two files never share a label
        // (a base name alone would give two data.npy in two folders one), and one file has one.
        std::error_code error;
        const std::filesystem::path path = std::filesystem::weakly_canonical(file, error);
        return "file:" + escape_name(error ? file : path.generic_string());
    }
    switch (distribution) {
        case Distribution::ones: return "ones";
        case Distribution::uniform: return "uniform";
        case Distribution::normal: return "normal";
        case Distribution::ill_conditioned: {
            // "%g" writes 1e+16; the label says 1e16, as typed.
            char text[32];
            std::snprintf(text, sizeof text, "%g", condition);
            std::string c = text;
            if (const std::size_t e = c.find('e'); e != std::string::npos) {
                std::size_t digits = e + 1 + (c[e + 1] == '+' || c[e + 1] == '-');
                while (digits + 1 < c.size() && c[digits] == '0') c.erase(digits, 1);
                if (c[e + 1] == '+') c.erase(e + 1, 1);
            }
            return "ill:" + c;
        }
        case Distribution::wide: return "wide";
        case Distribution::cancel: return "cancel";
    }
    return "unknown";
}

HostArray::HostArray(ElementType type, std::size_t count)
    : memory_(input_bytes(type, count)), type_(type), count_(count) {}

namespace {

// SplitMix64's finaliser: a bijective mix of a 64-bit counter.
constexpr std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// The bits of an element type the generators draw: fraction width, largest finite biased exponent,
// exponent bias.
template <class T>
struct Format;
template <>
struct Format<float> {
    using Bits = std::uint32_t;
    static constexpr int kFraction = 23, kBias = 127;
    static constexpr std::uint32_t kMaxBiased = 254;
};
template <>
struct Format<double> {
    using Bits = std::uint64_t;
    static constexpr int kFraction = 52, kBias = 1023;
    static constexpr std::uint32_t kMaxBiased = 2046;
};
template <>
struct Format<Float16> {
    using Bits = std::uint16_t;
    static constexpr int kFraction = 10, kBias = 15;
    static constexpr std::uint32_t kMaxBiased = 30;
};
template <>
struct Format<BFloat16> {
    using Bits = std::uint16_t;
    static constexpr int kFraction = 7, kBias = 127;
    static constexpr std::uint32_t kMaxBiased = 254;
};

// The largest exponent of a finite value of T: 2^(e + 1) is past its largest finite value.
template <class T>
inline constexpr int kMaxExponent = static_cast<int>(Format<T>::kMaxBiased) - Format<T>::kBias;

// A fraction of kFraction bits from a hash: its low bits for float and the 16-bit types; a second
// mix for double, whose 52 bits would overlap the bits 32..55 that callers draw from h.
template <class T>
typename Format<T>::Bits fraction_bits(std::uint64_t h) {
    constexpr std::uint64_t mask = (std::uint64_t{1} << Format<T>::kFraction) - 1;
    return static_cast<typename Format<T>::Bits>((Format<T>::kFraction <= 32 ? h : mix(h)) & mask);
}

// The values below are computed in double, where every one of them but normal's is exact, and
// rounded once to T.

// k 2^-p for a uniform integer k in [0, 2^p), p the type's significand width: uniform on [0, 1).
template <class T>
double uniform_value(std::uint64_t key, std::uint64_t i) {
    constexpr int p = Format<T>::kFraction + 1;
    return static_cast<double>(mix(key ^ i) >> (64 - p)) * std::ldexp(1.0, -p);
}

// (1 + f) 2^e with the sign from h's bit 63 and the fraction f from fraction_bits(h). Callers draw
// anything else from bits 32..55 (and ill:C's pair kind from bits 61..62).
template <class T>
double signed_power(std::uint64_t h, int e) {
    const double x = std::ldexp(1.0 + static_cast<double>(fraction_bits<T>(h)) * std::ldexp(1.0, -Format<T>::kFraction), e);
    return h >> 63 ? -x : x;
}

// ill:C's parameters for a condition number C (inputs.hpp says how it is built), moved into T's range.
template <class T>
struct IllConditioned {
    int top_exponent;  // the large values' exponents are uniform in [0, top_exponent]
    double small_mean;

    explicit IllConditioned(double condition)
        : top_exponent(std::min(static_cast<int>(std::lround(std::log2(condition) / 2)), kMaxExponent<T> - 1)) {
        // E|a| = 1.5 (2^(top + 1) - 1) / (top + 1). Three large pairs per small pair: sum |x| over
        // the large elements is 3 E|a| per small element, which must be C times its mean. Small
        // values stay normal numbers of T: above 2^(2 - bias), so that half of the mean is.
        const double mean_large = 1.5 * (std::ldexp(1.0, top_exponent + 1) - 1) / (top_exponent + 1);
        small_mean = std::max(3 * mean_large / condition, std::ldexp(1.0, 2 - Format<T>::kBias));
    }

    double value(std::uint64_t key, std::uint64_t i, std::uint64_t n) const {
        const std::uint64_t pair = std::min(i, n - 1 - i);
        const std::uint64_t h = mix(mix(key + 1) ^ pair);  // the pair's own draw, the same for both elements
        if (pair == n - 1 - pair || (h >> 61 & 3) == 0) {
            const double u = static_cast<double>(mix(key ^ i) >> 11) * 0x1p-53;
            return small_mean * (0.5 + u);
        }
        const double a = signed_power<T>(h, static_cast<int>((h >> 32 & 0xffffffu) % static_cast<std::uint64_t>(top_exponent + 1)));
        return i == pair ? a : -a;
    }
};

// Random sign, biased exponent uniform over every finite binade (0: subnormal or zero), random fraction.
template <class T>
T wide_value(std::uint64_t key, std::uint64_t i) {
    using Bits = typename Format<T>::Bits;
    constexpr int width = 8 * sizeof(T);
    const std::uint64_t h = mix(key ^ i);
    const auto biased = static_cast<Bits>((h >> 32 & 0xffffffu) % (Format<T>::kMaxBiased + 1));
    return std::bit_cast<T>(static_cast<Bits>(static_cast<Bits>(h >> 63) << (width - 1) | biased << Format<T>::kFraction |
                                              fraction_bits<T>(h)));
}

// The large values' binade: [2^20, 2^21), or T's top binade but one where 2^21 is past its range.
template <class T>
inline constexpr int kCancelExponent = std::min(20, kMaxExponent<T> - 1);

template <class T>
double cancel_value(std::uint64_t key, std::uint64_t i, std::uint64_t n) {
    const bool large = i % 4 == 1 || (i % 4 == 0 && i + 1 < n);
    if (!large) return uniform_value<T>(key, i);
    const double x = signed_power<T>(mix(mix(key + 2) ^ (i / 4)), kCancelExponent<T>);
    return i % 4 == 0 ? x : -x;
}

// out[i] from (seed, i, n) alone.
template <class T>
class Generator {
public:
    Generator(const InputSpec& spec, std::uint64_t n)
        : distribution_(spec.distribution), key_(mix(spec.seed)), n_(n),
          ill_(spec.distribution == Distribution::ill_conditioned ? spec.condition : kMinCondition) {}

    T operator()(std::uint64_t i) const {
        switch (distribution_) {
            case Distribution::ones: return T(1.0);
            case Distribution::uniform: return T(uniform_value<T>(key_, i));
            case Distribution::normal: {
                const double u1 = static_cast<double>((mix(key_ ^ (2 * i)) >> 11) + 1) * 0x1p-53;  // (0, 1]
                const double u2 = static_cast<double>(mix(key_ ^ (2 * i + 1)) >> 11) * 0x1p-53;    // [0, 1)
                return T(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
            }
            case Distribution::ill_conditioned: return T(ill_.value(key_, i, n_));
            case Distribution::wide: return wide_value<T>(key_, i);
            case Distribution::cancel: return T(cancel_value<T>(key_, i, n_));
        }
        return T(0.0);
    }

private:
    Distribution distribution_;
    std::uint64_t key_, n_;
    IllConditioned<T> ill_;
};

template <class T>
void fill_values(std::span<T> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) {
    const Generator<T> value(spec, n);
    const std::size_t threads = std::clamp<std::size_t>(out.size() >> 20, 1, std::max(1u, std::thread::hardware_concurrency()));
    const std::size_t share = (out.size() + threads - 1) / threads;
    platform::run_parts(threads, [=, &value](std::size_t t) {
        const std::size_t end = std::min(out.size(), (t + 1) * share);
        for (std::size_t i = t * share; i < end; ++i) out[i] = value(first + i);
    });
}

}  // namespace

void fill(std::span<float> out, const InputSpec& spec) { fill(out, spec, out.size(), 0); }

void fill(std::span<float> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) { fill_values(out, spec, n, first); }
void fill(std::span<double> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) { fill_values(out, spec, n, first); }
void fill(std::span<double> out, const InputSpec& spec) { fill(out, spec, out.size(), 0); }
void fill(std::span<Float16> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) { fill_values(out, spec, n, first); }
void fill(std::span<Float16> out, const InputSpec& spec) { fill(out, spec, out.size(), 0); }
void fill(std::span<BFloat16> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) { fill_values(out, spec, n, first); }
void fill(std::span<BFloat16> out, const InputSpec& spec) { fill(out, spec, out.size(), 0); }

void fill(HostArray& out, const InputSpec& spec, std::uint64_t n, std::uint64_t first) {
    out.visit([&](auto values) { fill(values, spec, n, first); });
}

std::string_view npy_descriptor(ElementType type) {
    switch (type) {
        case ElementType::f64: return "<f8";
        case ElementType::f16: return "<f2";
        case ElementType::bf16: return "";  // NumPy has no bfloat16
        case ElementType::f32: break;
    }
    return "<f4";
}

void fill(std::span<float> out, Distribution distribution, std::uint64_t seed) {
    InputSpec spec;
    spec.distribution = distribution;
    spec.seed = seed;
    fill(out, spec);
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("input file '" + path + "': " + what);
}


class OpenFile {
public:
    explicit OpenFile(const std::string& path) : path_(path), fd_(open_regular(path)) {
        // The path may have become a FIFO since open_regular() looked: O_NONBLOCK opened it at once.
        platform::FileStatus status;
        if (!platform::file_status(fd_.get(), status) || status.kind != platform::FileKind::regular)
            fail(path, describe_non_regular(status.kind));
        size_ = status.size;
    }

    std::uint64_t size() const { return size_; }

    // Reads out.size() bytes from offset, or fails naming the file.
    void read(std::span<char> out, std::uint64_t offset) const {
        const std::int64_t got = read_at(fd_.get(), out, offset);
        if (got < 0) fail(path_, std::string("read failed: ") + std::strerror(errno));
        if (static_cast<std::size_t>(got) < out.size()) fail(path_, "became shorter while it was read");
    }

private:
    // stat first: opening a FIFO waits for a writer, and opening a device can act on it.
    static int open_regular(const std::string& path) {
        platform::FileStatus status;
        if (!platform::file_status(path, status)) fail(path, std::string("cannot be opened: ") + std::strerror(errno));
        if (status.kind != platform::FileKind::regular) fail(path, describe_non_regular(status.kind));
        const int fd = platform::open_file(path, platform::OpenFor::reading);
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

// The .npy header: magic, version, header length, then a Python dict literal.
struct NpyLayout {
    std::uint64_t data_offset;
    NpyHeader header;
    ElementType type;  // from the descriptor
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
    NpyHeader header;
    try {
        header = parse_npy_header(read(header_length, header_offset), major);
    } catch (const NpyHeaderError& e) {
        fail(path, std::string("the .npy header ") + e.what());
    }
    // '<' little-endian, '=' native (little on every machine this builds for).
    const std::string& descriptor = header.descr;
    std::optional<ElementType> type;
    std::string known;
    for (ElementType candidate : kElementTypes) {
        const std::string_view little = npy_descriptor(candidate);
        if (little.empty()) continue;
        const std::string_view given = descriptor;  // '=' (native) for '<' matches as well
        if (given == little || (given.size() == little.size() && given.front() == '=' && given.substr(1) == little.substr(1)))
            type = candidate;
        known += (known.empty() ? "'" : ", '") + std::string(little) + "'";
    }
    if (!type)
        fail(path, "holds dtype '" + descriptor + "'; one of " + known +
                       " (little-endian) is needed (bfloat16 has no .npy dtype: give it as a raw file with --dtype=bf16)");
    // Element order does not change a sum: Fortran order and any shape are summed as they are, as
    // long as the shape holds as many values as the data.
    return {header_offset + header_length, std::move(header), *type};
}

}  // namespace

HostArray read_float_file(const std::string& path, std::optional<ElementType> asked, int part, int parts) {
    const OpenFile file(path);
    const bool npy = starts_with_npy_magic(file);
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!npy && extension == ".npy") fail(path, "is named .npy but is not a .npy file (it does not start with \"\\x93NUMPY\")");
    const std::optional<NpyLayout> layout = npy ? std::optional(read_npy_header(file, path)) : std::nullopt;
    if (layout && asked && *asked != layout->type)
        fail(path, "holds " + std::string(to_string(layout->type)) + " values (its .npy header says so) but --dtype=" +
                       std::string(to_string(*asked)) + " was asked for" +
                       (*asked == ElementType::bf16 ? " (bfloat16 has no .npy dtype: give it as a raw file)" : ""));
    const ElementType type = layout ? layout->type : asked.value_or(ElementType::f32);
    const std::string name(format_name(type));
    const std::uint64_t width = element_bytes(type);
    const std::uint64_t offset = layout ? layout->data_offset : 0;
    const std::uint64_t bytes = file.size() - offset;
    if (bytes % width != 0) fail(path, std::to_string(bytes) + " data bytes is not a whole number of " + name + " values");
    if (layout && layout->header.values != bytes / width)
        fail(path, "its .npy header's shape " + layout->header.shape_text + " holds " + std::to_string(layout->header.values) +
                       " values but its data holds " + std::to_string(bytes / width));
    if (bytes == 0) fail(path, "holds no " + name + " values");
    const Shard shard = shard_of(bytes / width, part, parts);
    const std::uint64_t shard_bytes = input_bytes(type, shard.size());
    const std::uint64_t available = platform::available_memory_bytes();
    const InputTooLarge too_large("skipping input file '" + path + "': it needs " + gib(static_cast<double>(shard_bytes)) +
                                  " of host memory and " + gib(static_cast<double>(available)) + " is available");
    if (shard_bytes > available) throw too_large;
    HostArray values;
    try {
        values = HostArray(type, shard.size());
    } catch (const std::bad_alloc&) {
        throw too_large;  // available memory is an estimate: a cgroup or address-space limit can be lower
    }
    static_assert(std::endian::native == std::endian::little, "raw input files are little-endian");
    file.read({static_cast<char*>(values.data()), shard_bytes}, offset + shard.begin * width);
    return values;
}

}  // namespace shootout
