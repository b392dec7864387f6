// The data a sweep sums: seeded, deterministic distributions, or a user's file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "bench/host_memory.hpp"

namespace shootout {

enum class Distribution { ones, uniform, normal, ill_conditioned, wide, cancel };

struct InputSpec {
    Distribution distribution = Distribution::uniform;
    std::uint64_t seed = 42;
    std::string file;  // when set, the input is read from this file and its length sets the size
    double condition = 1e16;  // ill_conditioned: the condition number sum |x| / |sum x| aimed at

    std::string label() const;  // "ones", "uniform", "normal", "ill:1e16", "wide", "cancel", "file:NAME"
};

// The condition numbers ill:C takes: from 1 up to where its largest values, 2^(log2(C) / 2 + 1),
// summed over 2^40 elements, still fit in a float's range.
inline constexpr double kMinCondition = 1, kMaxCondition = 1e40;

class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Float storage in a HugePageRegion of its own: page-aligned, transparent huge pages requested, first
// touched by the threads that fill it.
class HostArray {
public:
    HostArray() = default;
    explicit HostArray(std::size_t count);  // throws std::bad_alloc
    std::span<float> span() { return {reinterpret_cast<float*>(memory_.data()), count_}; }
    std::span<const float> span() const { return {reinterpret_cast<const float*>(memory_.data()), count_}; }
    std::size_t size() const { return count_; }

private:
    HugePageRegion memory_;
    std::size_t count_ = 0;
};

// The contiguous piece `part` of `parts` of n elements: [floor(n part / parts), floor(n (part + 1) /
// parts)). Pieces differ in length by at most one. MPI ranks split the global input by it, and the
// GPUs of the nccl/* backends their input.
struct Shard {
    std::uint64_t begin = 0, end = 0;
    std::uint64_t size() const { return end - begin; }
};
Shard shard_of(std::uint64_t n, int part, int parts);

// Fills out[i] from (seed, i) alone (and n = out.size() and C for the hard inputs), with integer
// hashing and one rounding to float, so the same (distribution, seed, n) gives the same floats on
// every machine and for any thread count.
//   ones:    1.0f
//   uniform: k * 2^-24 for a uniform integer k in [0, 2^24): uniform on [0, 1)
//   normal:  Box-Muller on two uniform doubles, mean 0, deviation 1, rounded to float
// The hard inputs, where the order of additions decides the error (issue 10):
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
void fill(std::span<float> out, const InputSpec& spec);
// A piece of a larger input: out[i] is element first + i of the n-element input
// (first + out.size() <= n), the float the whole input holds there: an MPI rank makes its shard.
void fill(std::span<float> out, const InputSpec& spec, std::uint64_t n, std::uint64_t first);
void fill(std::span<float> out, Distribution distribution, std::uint64_t seed);

// Thrown when an input file's values do not fit in the memory left: the run skips its one input
// (exit status 1, as for a generated size that does not fit); the file itself is not at fault.
class InputTooLarge : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a regular file of raw little-endian float32, or a float32 .npy file: one that starts with
// the .npy magic "\x93NUMPY", whatever its name. A file named *.npy (any case) without the magic,
// an .npy whose header's shape does not match its data, and anything not a regular file (a FIFO
// would block for ever) throw InputError naming the path and what is wrong; InputTooLarge when the
// values do not fit in memory. With part and parts, reads only shard_of(values, part, parts) of the
// values (an MPI rank's piece).
HostArray read_float_file(const std::string& path, int part = 0, int parts = 1);

}  // namespace shootout
