// accumulate_bench: the command-line front of the harness.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>

#include "bench/cli.hpp"
#include "api/device_api.hpp"
#include "api/launch_tuning.hpp"
#include "bench/input_export.hpp"
#include "api/mpi_world.hpp"
#include "bench/runner.hpp"
#include "report/columns.hpp"
#include "bench/system_info.hpp"

namespace {

void list_backends(std::ostream& out) {
    for (const auto& backend : shootout::registered_backends()) {
        const auto reason = backend.why_unavailable();
        out << std::left << std::setw(36) << backend.name << ' ' << std::setw(5) << shootout::to_string(backend.device)
            << ' ' << (reason ? "unavailable" : "available  ") << "  " << backend.description << '\n';
        if (reason) out << std::setw(44) << "" << "why unavailable: " << *reason << '\n';
        const shootout::Traits& t = backend.traits;
        out << std::setw(44) << "" << "accumulator=" << shootout::to_string(t.accumulator)
            << " order=" << shootout::to_string(t.order) << " reproducibility=" << shootout::to_string(t.reproducibility)
            << " role=" << shootout::to_string(t.role) << " dtype=";
        for (std::size_t k = 0; k < backend.element_types.size(); ++k)
            out << (k ? "," : "") << shootout::to_string(backend.element_types[k]);
        out << '\n';
        if (!reason)
            for (const shootout::ElementType type : backend.element_types)
                if (const auto why = backend.why_type_unavailable(type))
                    out << std::setw(44) << "" << "why not " << shootout::to_string(type) << " here: " << *why << '\n';
    }
    for (const shootout::DeviceApi& api : shootout::device_apis()) {
        if (!api.unbuilt) continue;
        std::string patterns;
        for (const std::string& pattern : api.backend_patterns) patterns += (patterns.empty() ? "" : ", ") + pattern;
        out << std::left << std::setw(36) << patterns << ' ' << std::setw(5) << api.device.name() << " unavailable  " << *api.unbuilt
            << '\n';
    }
}

// Every action: the whole command line is checked first, by one pass that every rank makes, so that
// a usage error stops every action, and every rank, with exit status 2 before anything runs.
int run(const std::string& program, const std::vector<std::string>& args, shootout::mpi::Session& session) {
    shootout::Options options;
    std::vector<const shootout::Backend*> backends;
    shootout::mpi::agree([&] {
        options = shootout::parse_command_line(args);
        if (options.help) return;  // answered whatever else is given
        if (options.max_noise && shootout::mpi::world().size > 1)
            throw shootout::UsageError("--max-noise under mpirun with " + std::to_string(shootout::mpi::world().size) +
                                       " ranks: each rank would decide alone when a case stops, and wait in another's collectives");
        backends = shootout::select_backends(options.backends);
        shootout::initialize_benchmark(program, options.benchmark_flags, shootout::mpi::world().size);
    });
    if (options.help) {
        std::cout << shootout::usage();
        return 0;
    }
    if (options.list) {
        list_backends(std::cout);
        return 0;
    }
    if (options.machine) {
        std::cout << shootout::machine_identity() << '\n';
        return 0;
    }
    if (options.version) {
        std::cout << shootout::build_version() << '\n';
        return 0;
    }
    if (options.columns) {
        std::cout << shootout::columns_document();
        return 0;
    }
    if (!options.write_input.empty()) return shootout::write_inputs(options, std::cout, std::cerr);
    // The program tunes unless told not to; the library (tests) runs the defaults unless told to.
    if (options.tune) shootout::set_tune_mode(*options.tune);
    else if (!std::getenv("SHOOTOUT_TUNE")) shootout::set_tune_mode(shootout::TuneMode::auto_tune);
    session.start_for(backends);
    if (shootout::mpi::is_root()) return shootout::run_sweep(options, backends, std::cout, std::cerr);
    // The other ranks take part in every collective call but print and write nothing: rank 0
    // speaks for the run (README.md, "Running on a cluster").
    shootout::Options silent = options;
    silent.csv_path.clear();
    silent.json_path.clear();
    std::ostream nowhere(nullptr);
    return shootout::run_sweep(silent, backends, nowhere, nowhere);
}

// Standard output is the run's report: a write to it that failed (a full disk, a closed pipe) fails
// the run. Checked here, at the one exit, once everything has been written.
int with_output_checked(int status) {
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (std::cout && flushed && !std::ferror(stdout)) return status;
    std::cerr << "accumulate_bench: writing standard output failed" << (flushed ? "" : std::string(": ") + std::strerror(error))
              << '\n';
    return std::max(status, 1);
}

}  // namespace

int main(int argc, char** argv) {
    int status = 0;
    try {
        // Under mpirun MPI starts before the command line is read, so that the ranks can agree on it.
        shootout::mpi::Session session;
        try {
            status = run(argv[0], {argv + 1, argv + argc}, session);
        } catch (const shootout::UsageError& e) {  // on every rank, by agreement: rank 0 says why
            if (shootout::mpi::is_root()) std::cerr << "accumulate_bench: " << e.what() << '\n';
            status = 2;
        } catch (const shootout::InputError& e) {
            if (shootout::mpi::is_root()) std::cerr << "accumulate_bench: " << e.what() << '\n';
            status = 2;
        } catch (const std::exception& e) {
            // One rank's failure would leave the others waiting in a collective call: it ends the job.
            if (shootout::mpi::world().size > 1) shootout::mpi::abort(e.what());
            std::cerr << "accumulate_bench: " << e.what() << '\n';
            status = 1;
        }
    } catch (const std::exception& e) {  // MPI could not start as mpirun asked
        std::cerr << "accumulate_bench: " << e.what() << '\n';
        status = 1;
    }
    return with_output_checked(status);
}
