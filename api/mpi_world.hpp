// The MPI ranks this process runs among: one rank (rank 0 of 1) unless the program was launched
// by mpirun (or an mpi/* backend was selected) in a build with MPI. The harness's only MPI calls
// are here and in the mpi/* backends: without MPI these are the one-rank answers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"

namespace shootout::mpi {

struct World {
    int rank = 0, size = 1;
    int local_rank = 0;  // rank among the ranks on this node: which GPU mpi/cuda takes
};

// Why this build cannot run the mpi/* backends ("built without MPI ..."), or nullopt.
std::optional<std::string> why_unavailable();

// Whether mpirun (OpenMPI's OMPI_COMM_WORLD_SIZE, a PMI's PMI_SIZE or PMIX_RANK) started us.
bool launched_by_mpirun();

// Calls MPI_Init when launched by mpirun or when one of the backends is distributed, and
// MPI_Finalize when the returned guard is destroyed. Without MPI, or otherwise, does nothing and
// world() stays one rank.
class Session {
public:
    explicit Session(const std::vector<const Backend*>& selected);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

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

// Ends every rank's process: for a failure inside a collective call, where the other ranks would
// otherwise wait for ever. Prints the message with the rank first.
[[noreturn]] void abort(const std::string& message);

}  // namespace shootout::mpi
