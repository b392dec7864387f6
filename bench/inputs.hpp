// The data a sweep sums: seeded, deterministic distributions, or a user's file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "host_memory.hpp"

namespace shootout {

enum class Distribution { ones, uniform, normal };

struct InputSpec {
    Distribution distribution = Distribution::uniform;
    std::uint64_t seed = 42;
    std::string file;  // when set, the input is read from this file and its length sets the size

    std::string label() const;  // "ones", "uniform", "normal", "file:NAME"
};

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

// Fills out[i] from (seed, i) alone, with integer hashing and one rounding to float, so the same
// (distribution, seed, n) gives the same floats on every machine and for any thread count.
//   ones:    1.0f
//   uniform: k * 2^-24 for a uniform integer k in [0, 2^24): uniform on [0, 1)
//   normal:  Box-Muller on two uniform doubles, mean 0, deviation 1, rounded to float
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
// values do not fit in memory.
HostArray read_float_file(const std::string& path);

}  // namespace shootout
