// A static-chunk reduction on a persistent ThreadPool started here, in prepare: every run, part k of
// the pool sums the k-th chunk with one kernel; the partial sums are added in part order. Part k
// copied the k-th chunk of the input in prepare, so it reads what it placed.
#pragma once

#include <memory>

#include "backend.hpp"
#include "host_backend.hpp"
#include "static_chunks.hpp"
#include "thread_pool.hpp"

namespace shootout {

template <class KernelResult>
std::unique_ptr<Reduction> make_pool_reduction(std::span<const float> input, int threads,
                                               KernelResult (*kernel)(const float*, std::size_t)) {
    auto pool = std::make_unique<ThreadPool>(threads);
    PlacedInput placed(input, threads, [&](auto& copy_part) { pool->run(copy_part); });
    return make_placed_reduction(std::move(placed), [pool = std::move(pool), partials = PartialSums(threads),
                                                     kernel](std::span<const float> x) mutable {
        auto sum_part = [&](int part) { sum_chunk(x, partials, part, kernel); };
        pool->run(sum_part);
        return partials.total();
    });
}

}  // namespace shootout
