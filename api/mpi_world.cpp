#include "api/mpi_world.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <iostream>

#ifdef SHOOTOUT_HAVE_MPI
#include <mpi.h>
#endif

namespace shootout::mpi {

namespace {
World& mutable_world() {
    static World world;
    return world;
}
}  // namespace

const World& world() { return mutable_world(); }

bool launched_by_mpirun() {
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(variable)) return true;
    return false;
}


#ifdef SHOOTOUT_HAVE_MPI

std::optional<std::string> why_unavailable() { return std::nullopt; }

namespace {
void initialise(bool& initialised) {
    if (initialised) return;
    MPI_Init(nullptr, nullptr);
    initialised = true;
    World& w = mutable_world();
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    // The ranks that share this node's memory, hence its GPUs: the portable form of OpenMPI's
    // OMPI_COMM_WORLD_LOCAL_RANK.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &w.local_rank);
    MPI_Comm_free(&node);
}
}  // namespace

Session::Session() {
    if (launched_by_mpirun()) initialise(initialised_);
}

void Session::start_for(const std::vector<const Backend*>& selected) {
    for (const Backend* backend : selected)
        if (backend->distributed) initialise(initialised_);
}

Session::~Session() {
    if (!initialised_) return;
    // Left by an exception: the other ranks may be waiting in a collective call that this rank will
    // never make, and MPI_Finalize would wait for them.
    if (std::uncaught_exceptions() > 0) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
}

bool all(bool ok) {
    if (world().size == 1) return ok;
    int mine = ok, every = 0;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return every != 0;
}

std::uint64_t sum(std::uint64_t value) {
    if (world().size == 1) return value;
    std::uint64_t total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

double max(double value) {
    if (world().size == 1) return value;
    double most = 0;
    MPI_Allreduce(&value, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

void sum(std::span<std::int64_t> words) {
    if (world().size == 1) return;
    MPI_Allreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

std::optional<std::string> first_error(const std::optional<std::string>& mine) {
    if (world().size == 1) return mine;
    const int me = world().rank;
    int first = mine ? me : world().size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == world().size) return std::nullopt;
    std::uint64_t length = first == me ? mine->size() : 0;
    MPI_Bcast(&length, 1, MPI_UINT64_T, first, MPI_COMM_WORLD);
    std::string message = first == me ? *mine : std::string(length, '\0');
    MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, MPI_COMM_WORLD);
    return first == 0 ? message : "rank " + std::to_string(first) + ": " + message;
}

void abort(const std::string& message) {
    std::cerr << "accumulate_bench (rank " << world().rank << " of " << world().size << "): " << message << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return; the compiler does not know that
}

#else

std::optional<std::string> why_unavailable() {
    return "built without MPI (no MPI found at configure time: apt-get install libopenmpi-dev)";
}

namespace {
// The rank count mpirun announced; 1 when none.
int launched_ranks() {
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* value = std::getenv(variable)) return std::max(1, std::atoi(value));
    return 1;
}
}  // namespace

// Under mpirun every rank would run the whole sweep as a rank 0 of its own and write every row.
Session::Session() {
    if (launched_ranks() > 1)
        throw std::runtime_error("started by mpirun with " + std::to_string(launched_ranks()) + " ranks, but " +
                                 *why_unavailable() + ": each rank would run the whole sweep; rebuild with MPI");
}
Session::~Session() = default;
void Session::start_for(const std::vector<const Backend*>&) {}

bool all(bool ok) { return ok; }
std::uint64_t sum(std::uint64_t value) { return value; }
double max(double value) { return value; }
void sum(std::span<std::int64_t>) {}
std::optional<std::string> first_error(const std::optional<std::string>& mine) { return mine; }

void abort(const std::string& message) {
    std::cerr << "accumulate_bench: " << message << std::endl;
    std::abort();
}

#endif

}  // namespace shootout::mpi
