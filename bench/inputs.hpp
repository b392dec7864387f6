// The data a sweep sums: seeded, deterministic distributions, or a user's file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "api/element_type.hpp"
#include "api/shard.hpp"
#include "api/errors.hpp"
#include "platform/memory.hpp"

namespace shootout {

enum class Distribution { ones, uniform, normal, ill_conditioned, wide, cancel };

struct InputSpec {
    Distribution distribution = Distribution::uniform;
    std::uint64_t seed = 42;
    std::string file;  // when set, the input is read from this file and its length sets the size
    double condition = 1e16;  // ill_conditioned: the condition number sum |x| / |sum x| aimed at

    // The input column: "ones", "uniform", "normal", "ill:1e16", "wide", "cancel", or "file:PATH", PATH
    // the file's absolute path with symbolic links resolved and '/' between its parts, written by
    // escape_name() (report/utf8.hpp): one line of valid UTF-8 that names one file.
    std::string label() const;
};

// The condition numbers ill:C takes: from 1 up to where its largest values, 2^(log2(C) / 2 + 1),
// summed over 2^40 elements, still fit in a float's range.
inline constexpr double kMinCondition = 1, kMaxCondition = 1e40;

// Values of one element type in a platform::HugePageRegion of their own: page-aligned, transparent huge pages
// requested, first touched by the threads that fill it.
class HostArray {
public:
    HostArray() = default;
    explicit HostArray(std::size_t count) : HostArray(ElementType::f32, count) {}
    HostArray(ElementType type, std::size_t count);  // throws std::bad_alloc

    ElementType type() const { return type_; }
    std::size_t size() const { return count_; }
    Elements elements() const {
        switch (type_) {
            case ElementType::f64: return values<double>();
            case ElementType::f16: return values<Float16>();
            case ElementType::bf16: return values<BFloat16>();
            case ElementType::f32: break;
        }
        return values<float>();
    }
    // Calls f(std::span<T>) with T the array's element type; returns what f returns.
    template <class F>
    decltype(auto) visit(F&& f) {
        switch (type_) {
            case ElementType::f64: return f(values<double>());
            case ElementType::f16: return f(values<Float16>());
            case ElementType::bf16: return f(values<BFloat16>());
            case ElementType::f32: break;
        }
        return f(values<float>());
    }
    template <class T>
    std::span<T> values() {
        check<T>();
        return {reinterpret_cast<T*>(memory_.data()), count_};
    }
    template <class T>
    std::span<const T> values() const {
        check<T>();
        return {reinterpret_cast<const T*>(memory_.data()), count_};
    }
    void* data() { return memory_.data(); }
    std::span<float> span() { return values<float>(); }
    std::span<const float> span() const { return values<float>(); }

private:
    template <class T>
    void check() const {
        if (type_ != element_type_of<T>) throw std::logic_error("a host array of " + std::string(to_string(type_)) + " read as another type");
    }

    platform::HugePageRegion memory_;
    ElementType type_ = ElementType::f32;
    std::size_t count_ = 0;
};

// Fills out[i] from (seed, i) alone (and n = out.size() and C for the hard inputs), with integer
// hashing and one rounding to float, so the same (distribution, seed, n) gives the same floats on
// every machine and for any thread count.
//   ones:    1.0f
//   uniform: k * 2^-24 for a uniform integer k in [0, 2^24): uniform on [0, 1)
//   normal:  Box-Muller on two uniform doubles, mean 0, deviation 1, rounded to float
// The hard inputs, where the order of additions decides the error:
//   ill:C    condition number sum |x| / |sum x| about C, built the way Ogita, Rump and Oishi's
//            GenSum builds one (Accurate sum and dot product, SIAM J. Sci. Comput. 26, 2005):
//            values with random signs and exponents spread over log2(C) / 2 binades that cancel
//            exactly, plus small positive values that make the sum. Elements i and n - 1 - i form a
//            pair: in three pairs of four +a and -a, a = +-(1 + f) 2^e with e uniform in
//            [0, round(log2(C) / 2)]; in the fourth both are small, their mean set so that
//            sum |x| / sum x = C + 1 on average. The middle element of an odd n is small.
//   wide:    random sign, biased exponent uniform in [0, 254] (0: subnormal), random fraction:
//            every binade of the float range, subnormals included
//   cancel:  in each group of four elements, +x and -x with |x| in [2^20, 2^21) and random sign,
//            then two uniform values in [0, 1): the large ones cancel exactly, the sum is that of
//            the small ones (an element whose partner would lie past the end is small too)
// float64 inputs are drawn the same way in double: uniform k 2^-53 for k in [0, 2^53), normal not
// rounded to float, wide over every binade of the double range (biased exponent 0 to 2046), and
// the hard inputs with 52-bit fractions.
// float16 and bfloat16 inputs likewise in their own formats: uniform k 2^-11 (2^-8) for k below
// 2^11 (2^8), normal rounded once from double, wide over biased exponents 0 to 30 (0 to 254), and
// the hard inputs with 10 (7) fraction bits. Where a hard input's values would not fit the format
// they are moved into it: cancel's large values lie in [2^14, 2^15) in float16, below its 65504;
// ill:C's exponents go up to 14 at most, and its small values' mean is at least 2^-13, where
// float16's normal numbers start: float16 reaches condition numbers up to about 8e7, and a larger C
// gives about that. In bfloat16, float's range, both are as in float.
void fill(std::span<float> out, const InputSpec& spec);
void fill(std::span<double> out, const InputSpec& spec);
void fill(std::span<Float16> out, const InputSpec& spec);
void fill(std::span<BFloat16> out, const InputSpec& spec);
// A piece of a larger input: out[i] is element first + i of the n-element input
// (first + out.size() <= n), the value the whole input holds there: an MPI rank makes its shard.
void fill(std::span<float> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);
void fill(std::span<double> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);
void fill(std::span<Float16> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);
void fill(std::span<BFloat16> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);
void fill(std::span<float> out, Distribution distribution, std::uint64_t seed);
// The same into values of whatever element type they hold.
void fill(HostArray& out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);

// The .npy descriptor of an element type, little-endian ("<f4", "<f8", "<f2"), empty for bfloat16,
// which NumPy lacks. read_float_file() reads these (and "=" for "<"); --write-input writes them.
std::string_view npy_descriptor(ElementType type);

// Reads a regular file of raw little-endian values of `type` (float32 when not given), or an .npy
// file of little-endian float32 ('<f4'), float64 ('<f8') or float16 ('<f2'): one that starts with
// the .npy magic "\x93NUMPY", whatever its name; its descriptor sets the type, and a `type` given
// that differs is an error naming both. bfloat16 has no .npy descriptor: raw files only. A file named *.npy (any case) without the magic, an .npy whose header's
// shape does not match its data, and anything not a regular file (a FIFO would block for ever) throw
// InputError naming the path and what is wrong; InputTooLarge when the values do not fit in memory.
// With part and parts, reads only shard_of(values, part, parts) of the values (an MPI rank's piece).
HostArray read_float_file(const std::string& path, std::optional<ElementType> type = std::nullopt, int part = 0,
                          int parts = 1);

}  // namespace shootout
