// Runs a sweep: for each size, makes the input and its exact sum once, then times every selected
// backend on it through Google Benchmark and hands each finished measurement to the reporters.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "bench/options.hpp"

namespace shootout {

// The "unavailable here" lines for (name, reason) pairs in selection order: one line per reason, in
// the order first seen. A reason one backend has keeps "unavailable here: NAME: REASON"; one shared
// names them all and counts them, a first path component as "cuda/*" where every name of
// `registered` under it shares the reason: "unavailable here: cuda/*, nccl/* (29 backends): REASON".
std::vector<std::string> unavailable_lines(const std::vector<std::pair<std::string, std::string>>& unavailable,
                                           const std::vector<std::string>& registered);

// The progress line's estimate of the time a sweep has left: each finished size's cases cost
// a + b x bytes seconds each, fitted by least squares over the sizes done (the mean time per case
// while fewer than two sizes are done, or where the fit gives a negative a or b).
class ProgressEstimate {
public:
    void size_done(std::uint64_t bytes, std::size_t cases, double seconds);
    // Seconds left for `cases` more cases of `bytes` each; none before any size is done.
    std::optional<double> seconds_for(std::uint64_t bytes, std::size_t cases) const;

private:
    struct Size {
        double bytes, cases, seconds;
    };
    std::vector<Size> done_;
};

// "12/714 cases, 1m05s elapsed, about 6m40s left": the stderr progress line.
std::string progress_estimate_line(std::size_t done, std::size_t total, double elapsed, std::optional<double> left);

// Returns the exit status: 0 when everything ran, 1 when something was skipped or failed.
int run_sweep(const Options& options, const std::vector<const Backend*>& backends, std::ostream& out,
              std::ostream& err);

}  // namespace shootout
