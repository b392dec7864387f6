// A static-chunk reduction on a persistent ThreadPool started here, in prepare: every run, part k of
// the pool sums the k-th chunk with one kernel; the partial sums are added in part order.
#pragma once

#include <memory>

#include "backend.hpp"
#include "static_chunks.hpp"
#include "thread_pool.hpp"

namespace shootout {

template <class KernelResult>
std::unique_ptr<Reduction> make_pool_reduction(std::span<const float> input, int threads,
                                               KernelResult (*kernel)(const float*, std::size_t)) {
    return make_host_reduction(input, [pool = std::make_unique<ThreadPool>(threads), partials = PartialSums(threads),
                                       kernel](std::span<const float> x) mutable {
        auto sum_part = [&](int part) { sum_chunk(x, partials, part, kernel); };
        pool->run(sum_part);
        return partials.total();
    });
}

}  // namespace shootout
