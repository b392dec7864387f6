// The MPI ranks this process runs among: one rank (rank 0 of 1) unless the program was launched
// by mpirun (or an mpi/* backend was selected) in a build with MPI. The harness's only MPI calls
// are here and in the mpi/* backends: without MPI these are the one-rank answers.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "api/errors.hpp"

namespace shootout::mpi {

struct World {
    int rank = 0, size = 1;
    int local_rank = 0;  // rank among the ranks on this node: which GPU mpi/cuda takes
};

// Why this build cannot run the mpi/* backends ("built without MPI ..."), or nullopt.
std::optional<std::string> why_unavailable();

// Whether mpirun (OpenMPI's OMPI_COMM_WORLD_SIZE, a PMI's PMI_SIZE or PMIX_RANK) started us.
bool launched_by_mpirun();

// MPI_Init when launched by mpirun, from the first check of the command line on (every rank then
// agrees on a usage error, below), or when a distributed backend is selected (start_for); and
// MPI_Finalize when the guard is destroyed. Without MPI, or otherwise, does nothing and world()
// stays one rank.
class Session {
public:
    Session();
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // MPI_Init now, where it has not run and one of `selected` is distributed: an mpi/* backend
    // without mpirun runs as one rank.
    void start_for(const std::vector<const Backend*>& selected);

private:
    [[maybe_unused]] bool initialised_ = false;  // read only in a build with MPI
};

const World& world();
inline bool is_root() { return world().rank == 0; }

// Collectives over every rank (identities on one rank). Every rank must call them, in one order.
bool all(bool ok);                                  // true when ok on every rank
std::uint64_t sum(std::uint64_t value);             // exact integer sum
double max(double value);
void sum(std::span<std::int64_t> words);            // in place: each word summed over the ranks, exactly

// Collective, where every rank checks the same thing: `mine` is the usage or input error this rank
// found there (its message), if any. Returns the message of the lowest rank that found one, "rank R: "
// first where R is not 0, on every rank; nullopt when none did.
std::optional<std::string> first_error(const std::optional<std::string>& mine);

// Runs step() on every rank, then agrees: when it threw a UsageError or an InputError on any rank,
// every rank throws one (its own where it threw one, else a UsageError with the lowest such rank's
// message), so that all stop with exit status 2, rank 0 saying why, and none waits in a collective
// call for a rank that has stopped.
template <class Step>
void agree(Step&& step) {
    std::exception_ptr thrown;
    std::optional<std::string> message;
    try {
        step();
    } catch (const UsageError& e) {
        thrown = std::current_exception();
        message = e.what();
    } catch (const InputError& e) {
        thrown = std::current_exception();
        message = e.what();
    }
    const std::optional<std::string> first = first_error(message);
    if (thrown) std::rethrow_exception(thrown);
    if (first) throw UsageError(*first);
}

// Ends every rank's process: for a failure inside a collective call, where the other ranks would
// otherwise wait for ever. Prints the message with the rank first.
[[noreturn]] void abort(const std::string& message);

}  // namespace shootout::mpi
