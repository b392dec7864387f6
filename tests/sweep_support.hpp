// The whole pipeline in-process for a test: parse a command line, run the sweep, read its CSV back.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "report/reporters.hpp"
#include "bench/runner.hpp"

namespace shootout {

struct SweepResult {
    int status;
    std::string out, err;
    std::vector<std::map<std::string, std::string>> rows;
};

inline SweepResult sweep(std::vector<std::string> args) {
    static bool initialised = [] {
        // The rules' defaults, as accumulate_bench sets them (interleaving included), made quick.
        std::vector<std::string> flags = benchmark_arguments("sweep_test", {"--benchmark_repetitions=3", "--benchmark_min_time=0.001"}, 1);
        std::vector<char*> argv;
        for (auto& f : flags) argv.push_back(f.data());
        int argc = static_cast<int>(argv.size());
        benchmark::Initialize(&argc, argv.data());
        return true;
    }();
    (void)initialised;
    const auto csv = std::filesystem::temp_directory_path() / ("shootout_sweep_" + std::to_string(::getpid()) + ".csv");
    std::filesystem::remove(csv);
    args.push_back("--csv=" + csv.string());
    const Options options = parse_command_line(args);
    std::ostringstream out, err;
    SweepResult r{run_sweep(options, select_backends(options.backends), out, err), out.str(), err.str(), {}};
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    const auto header = split_csv_row(line);
    while (std::getline(in, line)) {
        const auto fields = split_csv_row(line);
        auto& row = r.rows.emplace_back();
        for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = fields.at(i);
    }
    in.close();  // Windows removes no file that is open
    std::filesystem::remove(csv);
    return r;
}

}  // namespace shootout
