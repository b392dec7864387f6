// Splitting one input among devices or processes.
#pragma once

#include <cstdint>

namespace shootout {

// The contiguous piece `part` of `parts` of n elements: [floor(n part / parts), floor(n (part + 1) /
// parts)). Pieces differ in length by at most one. MPI ranks split the global input by it, and the
// GPUs of the nccl/* backends their input.
struct Shard {
    std::uint64_t begin = 0, end = 0;
    std::uint64_t size() const { return end - begin; }
};
inline Shard shard_of(std::uint64_t n, int part, int parts) {
    auto boundary = [&](int k) {  // n x k needs more than 64 bits for n near 2^40 and many parts
        return static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * static_cast<unsigned>(k) / static_cast<unsigned>(parts));
    };
    return {boundary(part), boundary(part + 1)};
}

}  // namespace shootout
