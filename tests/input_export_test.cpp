#include "bench/input_export.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/cli.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "report/reporters.hpp"

namespace shootout {
namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// --write-input: each input of the sweep as an .npy file the harness reads back to the values it
// generates, and a manifest with each one's exact sum (rounded and as digits) and the CSV columns.
TEST(InputExport, FilesHoldTheGeneratedValuesAndTheManifestTheirExactSums) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("input_export_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Options options = parse_command_line({"--write-input=" + dir.string(), "--sizes=1,1001", "--dtype=f32,f64",
                                                "--input=normal", "--seed=3"});
    std::ostringstream out, err;
    ASSERT_EQ(write_inputs(options, out, err), 0) << err.str();
    const std::string manifest = read_text(dir / kInputManifest);
    int index = 0;
    for (std::uint64_t n : {1, 1001})
        for (ElementType type : {ElementType::f32, ElementType::f64}) {
            const std::string name = "00" + std::to_string(index++) + "-" + std::string(to_string(type)) + "-n" + std::to_string(n) + ".npy";
            HostArray expected(type, n);
            fill(expected, options.input, n, 0);
            const HostArray written = read_float_file((dir / name).string());
            ASSERT_EQ(written.type(), type) << name;
            ASSERT_EQ(written.size(), n) << name;
            EXPECT_EQ(std::memcmp(written.elements().data(), expected.elements().data(), expected.elements().size_bytes()), 0) << name;
            const ExactAccumulator exact = exact_sum(expected.elements());
            std::string digits;
            for (int i = 0; i < ExactAccumulator::kDigits; ++i) {
                if (i) digits += ',';
                digits += std::to_string(exact.words()[i]);
            }
            const std::string entry = "{\"file\": \"" + name + "\", \"n\": " + std::to_string(n) + ", \"dtype\": \"" +
                                      std::string(to_string(type)) + "\", \"input\": \"normal\", \"seed\": 3, \"exact\": " +
                                      json_number(exact.round()) + ", \"exact_digits\": [" + digits + "]";
            EXPECT_NE(manifest.find(entry), std::string::npos) << entry << "\nnot in\n" << manifest;
        }
    std::size_t at = manifest.find("\"columns\"");
    for (const ColumnSchema& column : csv_schema()) {
        at = manifest.find("{\"name\": \"" + std::string(column.name) + "\", \"kind\": \"" + std::string(to_string(column.kind)), at);
        ASSERT_NE(at, std::string::npos) << column.name << " missing or out of order";
    }
    EXPECT_NE(manifest.find("\"exact_layout\": {\"digit_bits\": 32, \"lowest_bit\": -1074}"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// The names --write-input picks are new files in DIR: an entry already there under one of them is
// refused before any input is made, a link (which would have the input written through it, into the
// file it names) as much as a file or a directory.
TEST(InputExport, NoEntryInTheDirectoryIsReplacedOrWrittenThrough) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("input_export_taken_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "w");
    std::ofstream(dir / "victim") << "victim\n";
    auto expect_refused = [&](const std::string& name, const std::string& needle) {
        std::ostringstream out, err;
        try {
            write_inputs(parse_command_line({"--write-input=" + (dir / "w").string(), "--sizes=16,32"}), out, err);
            ADD_FAILURE() << "wrote the inputs beside " << name;
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find((dir / "w" / name).string() + "' already exists" + needle), std::string::npos) << e.what();
        }
        EXPECT_EQ(out.str(), "") << "an input was made before the check";
    };
#if !defined(_WIN32)
    std::filesystem::create_symlink("../victim", dir / "w" / "001-f32-n32.npy");
    expect_refused("001-f32-n32.npy", " (it is a symbolic link)");
    EXPECT_EQ(read_text(dir / "victim"), "victim\n");
    std::filesystem::remove(dir / "w" / "001-f32-n32.npy");
#endif
    std::filesystem::create_directory(dir / "w" / kInputManifest);
    expect_refused(kInputManifest, " (it is a directory)");
    std::filesystem::remove(dir / "w" / kInputManifest);
    std::ofstream(dir / "w" / "000-f32-n16.npy") << "a file of the user's";
    expect_refused("000-f32-n16.npy", "; it is not replaced");
    EXPECT_EQ(read_text(dir / "w" / "000-f32-n16.npy"), "a file of the user's");
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "w")) names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{"000-f32-n16.npy"});
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shootout
