#include "inputs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

namespace shootout {
namespace {

std::vector<float> generate(Distribution d, std::uint64_t seed, std::size_t n) {
    std::vector<float> v(n);
    fill(v, d, seed);
    return v;
}

TEST(Inputs, SameSeedSameFloatsAnyThreadSplit) {
    // 2^22 elements are filled by several threads; the first 1000 by one. They must agree.
    const auto big = generate(Distribution::normal, 5, 1 << 22);
    const auto small = generate(Distribution::normal, 5, 1000);
    EXPECT_TRUE(std::equal(small.begin(), small.end(), big.begin()));
    EXPECT_NE(generate(Distribution::normal, 6, 1000), small);
}

TEST(Inputs, UniformValuesArePinnedAcrossMachines) {
    // Integer hashing and an exact scaling: these floats must never change, or results/ stop lining up.
    const auto v = generate(Distribution::uniform, 42, 4);
    EXPECT_EQ(v[0] * 16777216.0f, std::floor(v[0] * 16777216.0f));
    const std::vector<float> pinned = {0.343291879f, 0.950438082f, 0.446587861f, 0.977776766f};
    EXPECT_EQ(v, pinned);
}

TEST(Inputs, DistributionsHaveTheirMoments) {
    const std::size_t n = 1 << 20;
    const auto ones = generate(Distribution::ones, 1, n);
    EXPECT_TRUE(std::all_of(ones.begin(), ones.end(), [](float x) { return x == 1.0f; }));
    for (auto [d, mean, variance] : {std::tuple{Distribution::uniform, 0.5, 1.0 / 12}, std::tuple{Distribution::normal, 0.0, 1.0}}) {
        const auto v = generate(d, 9, n);
        const double m = std::accumulate(v.begin(), v.end(), 0.0) / n;
        double var = 0;
        for (float x : v) var += (x - m) * (x - m);
        var /= n;
        EXPECT_NEAR(m, mean, 0.005);
        EXPECT_NEAR(var, variance, variance * 0.01);
        if (d == Distribution::uniform) {
            EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x >= 0.0f && x < 1.0f; }));
        }
    }
}

class InputFiles : public ::testing::Test {
protected:
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("shootout_inputs_" + std::to_string(::getpid()));
    void SetUp() override { std::filesystem::create_directories(dir); }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string write(const std::string& name, const std::string& bytes) {
        const auto path = dir / name;
        std::ofstream(path, std::ios::binary) << bytes;
        return path.string();
    }
    static std::string floats(std::initializer_list<float> values) {
        return {reinterpret_cast<const char*>(values.begin()), values.size() * sizeof(float)};
    }
    static std::string npy(const std::string& descr, const std::string& data) {
        std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (3,), }";
        header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10 - 1, ' ');
        header += '\n';
        return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
               static_cast<char>(header.size() >> 8) + header + data;
    }
};

TEST_F(InputFiles, ReadsRawFloat32) {
    const auto values = read_float_file(write("a.f32", floats({1.5f, -2.0f, 3.25f})));
    EXPECT_EQ(std::vector<float>(values.span().begin(), values.span().end()), (std::vector<float>{1.5f, -2.0f, 3.25f}));
}

TEST_F(InputFiles, ReadsNpyFloat32) {
    const auto values = read_float_file(write("a.npy", npy("<f4", floats({1.0f, 2.0f, 4.0f}))));
    EXPECT_EQ(std::vector<float>(values.span().begin(), values.span().end()), (std::vector<float>{1.0f, 2.0f, 4.0f}));
}

void expect_error(const std::string& path, const std::string& needle) {
    try {
        read_float_file(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST_F(InputFiles, BadFilesAreNamedWithWhatIsWrong) {
    expect_error((dir / "missing.f32").string(), "cannot be opened");
    expect_error(dir.string(), "is a directory");
    expect_error(write("empty.f32", ""), "holds no float32 values");
    expect_error(write("odd.f32", "abcdef"), "6 data bytes is not a whole number of float32 values");
    expect_error(write("f64.npy", npy("<f8", std::string(24, '\0'))), "holds dtype '<f8'");
    expect_error(write("fake.npy", "not numpy at all"), "not a .npy file");
}

}  // namespace
}  // namespace shootout
