// What the mpi/* backends share. Each rank prepares a local reduction of its own shard (the runner
// hands prepare() that shard: bench/runner.cpp); every call is collective: a barrier, the local sum,
// the combination of the ranks' partials, and the slowest rank's time.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "api/mpi_world.hpp"

#ifdef SHOOTOUT_HAVE_MPI
#include <mpi.h>
#endif

namespace shootout::mpi {

using MakeReduction = std::function<std::unique_ptr<Reduction>(Elements shard, const PrepareOptions&)>;

struct DistributedSpec {
    std::string name, description;
    Device device = Device::cpu;
    Cache cache = Cache::warm;  // the local backend's rule
    int devices = 0;            // accelerators each rank uses
    Traits traits;
    std::vector<ElementType> element_types = {ElementType::f32};
    bool parallel = false;  // honours PrepareOptions::threads on every rank
    std::function<std::optional<std::string>()> unavailable_reason = {};  // besides "built without MPI"
    MakeReduction make;
    std::function<DeviceInfo()> device_info = {};  // a GPU backend's device (each rank's, one model)
};

#ifdef SHOOTOUT_HAVE_MPI

// The timing rule (results/README.md, "mpi/* rows"): every rank waits at a barrier, reads its wall
// clock around `call` (its local sum and its part of the combination), and the call's time is the
// slowest rank's, agreed by an all-reduce(MAX). Every rank returns the same seconds, so Google
// Benchmark, which sizes its loops by them (manual time), makes the same number of calls on every
// rank and the collectives stay matched. A rank whose call fails ends the job (mpi::abort()): the
// others would wait for it for ever. On one rank (the program not started by mpirun, or -np 1)
// there is nothing to wait for or combine, and no MPI call is made: the backends then also work
// in-process, as the test suites use them, without MPI_Init.
template <class Call>
double timed_collective(const std::string& name, Call&& call) {
    if (world().size == 1) {
        const auto start = std::chrono::steady_clock::now();
        call();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    try {
        call();
    } catch (const std::exception& e) {
        abort(name + ": " + e.what());
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    return max(took.count());
}

// Prepares on every rank; when one rank fails, every rank throws (ResourceExhausted if that is
// what any rank ran into), naming the first rank that failed and why, so that all skip the case
// together instead of waiting for the one that left.
inline std::unique_ptr<Reduction> prepare_on_every_rank(const std::string& name, const MakeReduction& make,
                                                        Elements shard, const PrepareOptions& options) {
    if (world().size == 1) return make(shard, options);
    std::unique_ptr<Reduction> local;
    std::string failure;
    int exhausted = 0;
    try {
        local = make(shard, options);
    } catch (const ResourceExhausted& e) {
        failure = e.what();
        exhausted = 1;
    } catch (const std::exception& e) {
        failure = e.what();
    }
    // The lowest failing rank's message, sent to every rank.
    const int mine = failure.empty() ? world().size : world().rank;
    int first = 0, any_exhausted = 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == world().size) return local;
    MPI_Allreduce(&exhausted, &any_exhausted, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int length = static_cast<int>(failure.size());
    MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
    failure.resize(static_cast<std::size_t>(length));
    MPI_Bcast(failure.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
    const std::string message = name + ": rank " + std::to_string(first) + ": " + failure;
    if (any_exhausted) throw ResourceExhausted(message);
    throw std::runtime_error(message);
}

inline double sum_over_ranks(double partial) {
    if (world().size == 1) return partial;
    double total = 0;
    MPI_Allreduce(&partial, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

#endif

// Registers an mpi/* backend: distributed, self-timed by timed_collective(), listed as unavailable
// in a build without MPI. Returns true.
inline bool register_distributed_backend(DistributedSpec spec) {
    auto shared = std::make_shared<const DistributedSpec>(std::move(spec));
    return register_backend({
        .name = shared->name,
        .device = shared->device,
        .description = shared->description,
        .timing = Timing::device_events,
        .cache = shared->cache,
        .devices = shared->devices,
        .parallel = shared->parallel,
        .distributed = true,
        .traits = shared->traits,
        .element_types = shared->element_types,
        .unavailable_reason = [shared]() -> std::optional<std::string> {
            if (auto reason = why_unavailable()) return reason;
            return shared->unavailable_reason ? shared->unavailable_reason() : std::nullopt;
        },
        .prepare = [shared](Elements shard, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
#ifdef SHOOTOUT_HAVE_MPI
            return prepare_on_every_rank(shared->name, shared->make, shard, options);
#else
            (void)shard, (void)options;
            throw std::logic_error(shared->name + ": prepared, but this build has no MPI");
#endif
        },
        .device_info = shared->device_info,
    });
}

// The mpi/* backends that sum their shard with a registered one-process backend (`local`), a double
// partial per rank, and add the partials with one MPI_Allreduce(MPI_SUM).
inline MakeReduction combining(std::string local) {
#ifdef SHOOTOUT_HAVE_MPI
    class Combined final : public Reduction {
    public:
        Combined(std::string name, std::unique_ptr<Reduction> local) : name_(std::move(name)), local_(std::move(local)) {}
        std::optional<double> run() override {
            return timed_collective(name_, [&] {
                local_->run();  // a device backend's own time is not the row's: the rule above is
                total_ = sum_over_ranks(local_->result());
            });
        }
        double result() override { return total_; }
        // The local backend's own copy of the shard (placed_input.hpp), for the pages column.
        Elements host_input() const override { return local_->host_input(); }

    private:
        std::string name_;
        std::unique_ptr<Reduction> local_;
        double total_ = 0;
    };
    return [local = std::move(local)](Elements shard, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
        const Backend* backend = find_backend(local);
        if (!backend) throw std::logic_error("the local backend " + local + " is not registered");
        return std::make_unique<Combined>("mpi over " + local, backend->prepare(shard, options));
    };
#else
    (void)local;
    return {};
#endif
}

}  // namespace shootout::mpi
