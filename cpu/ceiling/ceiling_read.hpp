// The read ceiling's machinery: the candidates it times in prepare and the read it keeps.
// cpu/ceiling/baseline_read.cpp registers it as cpu/baseline/read and says why each candidate is there.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cpu/parallel/balanced_chunks.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {

struct CeilingPolicy {
    // A candidate is timed by the median of `rounds` batches of calls, each batch at least
    // `batch_seconds` long (one call where one call is longer): the median, as the harness reports
    // (measurement_rules.hpp). The best batch kept whichever candidate met a fast moment: the
    // development VM's DRAM reads double for moments (a repetition at 82 GB/s among medians of 49
    // on two threads), and there the ceiling trailed cpu/tbb/reduce by a median 3.6% over 10 runs
    // at 2^27 on two threads.
    static constexpr int rounds = 7;  // odd: the median is one of them
    static constexpr double batch_seconds = 100e-6;
    // Pinned part counts go from T down; once one is this much slower than the best so far, fewer
    // parts only read slower (the input is past where dispatch matters) and the rest are not timed.
    static constexpr double give_up_ratio = 1.25;
};

// How a candidate spreads the read over threads.
enum class Schedule {
    pinned_parts,   // `threads` pinned threads, static parts read in balanced chunks
    work_stealing,  // oneTBB: `threads` unpinned threads stealing ranges, as cpu/tbb/reduce (tbb_threads.hpp)
};

struct Candidate {
    Schedule schedule;
    int threads;
    bool operator==(const Candidate&) const = default;
};

// Whether this build has oneTBB, and so the work_stealing schedule.
bool ceiling_can_steal();

class StealingThreads;  // oneTBB's arena (baseline_read.cpp, the one file built with oneTBB's headers)

class CeilingRead {
public:
    CeilingRead(int threads, const simd::Best& kernels);
    ~CeilingRead();

    // In prepare, before pick(): copy_part(k) on the pinned thread that reads part k of T.
    template <class CopyPart>
    void place(CopyPart& copy_part) {
        if (parts_) parts_->pool().run(copy_part);
        else copy_part(0);
    }

    // In prepare: keeps the candidate and loop that read x fastest.
    void pick(std::span<const float> x);

    // Reads with this candidate and loop (an index below loops()) from now on: what pick() keeps;
    // the tests try each. Throws std::logic_error for work_stealing without oneTBB.
    void use(const Candidate& candidate, std::size_t loop);
    std::size_t loops() const { return loops_.size(); }

    double operator()(std::span<const float> x);

    // The CSV's configuration column: "schedule=pinned parts=2 loop=avx512/f32+prefetch",
    // "schedule=tbb threads=16 loop=avx512/f32".
    std::string configuration() const;

private:
    // Float lanes, or each float widened to double lanes (the kernel the parallel backends run).
    using Kernel = std::variant<simd::SumToFloat, simd::SumToDouble>;
    struct Loop {
        std::string name;
        Kernel sum;
    };
    struct Timed;

    Timed time_loops(std::span<const float> x, const Candidate& candidate);
    void use_threads(const Candidate& candidate);
    void use_loop(std::size_t loop);
    double seconds_per_call(std::span<const float> x, int calls);

    int threads_;
    std::vector<Loop> loops_;  // the candidate loops
    std::size_t loop_ = 0;     // the one in use, for configuration()
    // The call reads its loop from a member beside the others, not from loops_' heap block: at the
    // L2's exact size (2^19 floats on the H200 machine's host) one more line a call may decide
    // whether the input stays in L2 (the one-thread ceiling read 58 GB/s where its own loop read 99
    // while it did; 133 and 134 once it did not).
    Kernel kernel_;  // loops_[loop_].sum
    Candidate candidate_;      // the one in use
    std::optional<ChunkedSum> parts_;           // pinned parts; empty with one part or stealing
    std::unique_ptr<StealingThreads> stealing_;  // work stealing; empty otherwise
    double timed_sum_ = 0;                      // where the timed calls' sums go
};

}  // namespace shootout
