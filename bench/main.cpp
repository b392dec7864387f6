// accumulate_bench: the command-line front of the harness.
#include <benchmark/benchmark.h>

#include <iomanip>
#include <iostream>

#include "bench/cli.hpp"
#include "api/device_api.hpp"
#include "bench/input_export.hpp"
#include "api/mpi_world.hpp"
#include "bench/runner.hpp"
#include "bench/system_info.hpp"
#include "report/columns.hpp"

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

}  // namespace

int main(int argc, char** argv) {
    try {
        const shootout::Options options = shootout::parse_command_line({argv + 1, argv + argc});
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
        const auto backends = shootout::select_backends(options.backends);
        const shootout::mpi::Session mpi_session(backends);

        std::vector<std::string> args;
        try {
            args = shootout::benchmark_arguments(argv[0], options.benchmark_flags, shootout::mpi::world().size);
        } catch (const shootout::UsageError& e) {
            // Every rank refuses the same flags, so none waits for another, and MPI finalizes
            // (an exception leaving the session aborts the job, and the message with it).
            if (shootout::mpi::is_root()) std::cerr << "accumulate_bench: " << e.what() << '\n';
            return 2;
        }
        std::vector<char*> pointers;
        for (auto& arg : args) pointers.push_back(arg.data());
        int count = static_cast<int>(pointers.size());
        benchmark::Initialize(&count, pointers.data());
        if (count > 1) throw shootout::UsageError(std::string("unknown Google Benchmark flag '") + pointers[1] + "'");

        if (shootout::mpi::is_root()) return shootout::run_sweep(options, backends, std::cout, std::cerr);
        // The other ranks take part in every collective call but print and write nothing: rank 0
        // speaks for the run (README.md, "Running on a cluster").
        shootout::Options silent = options;
        silent.csv_path.clear();
        silent.json_path.clear();
        std::ostream nowhere(nullptr);
        return shootout::run_sweep(silent, backends, nowhere, nowhere);
    } catch (const shootout::UsageError& e) {
        std::cerr << "accumulate_bench: " << e.what() << '\n';
        return 2;
    } catch (const shootout::InputError& e) {
        std::cerr << "accumulate_bench: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "accumulate_bench: " << e.what() << '\n';
        return 1;
    }
}
