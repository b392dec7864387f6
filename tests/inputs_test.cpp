#include "bench/inputs.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

#include "bench/system_info.hpp"

namespace shootout {
namespace {

std::vector<float> generate(Distribution d, std::uint64_t seed, std::size_t n) {
    std::vector<float> v(n);
    fill(v, d, seed);
    return v;
}

// float64 inputs: the same rule, drawn in double; 'wide' reaches every binade of the double range.
TEST(Inputs, Float64InputsAreDrawnInDouble) {
    InputSpec spec;
    std::vector<double> uniform(1 << 12);
    fill(std::span<double>(uniform), spec);
    EXPECT_TRUE(std::any_of(uniform.begin(), uniform.end(), [](double x) { return static_cast<double>(static_cast<float>(x)) != x; }))
        << "a uniform float64 input holds only floats";
    EXPECT_TRUE(std::all_of(uniform.begin(), uniform.end(), [](double x) { return x >= 0 && x < 1; }));
    spec.distribution = Distribution::wide;
    std::vector<double> wide(1 << 16);
    fill(std::span<double>(wide), spec);
    int lowest = 0, highest = 0;
    for (double x : wide)
        if (x != 0 && std::isfinite(x)) lowest = std::min(lowest, std::ilogb(x)), highest = std::max(highest, std::ilogb(x));
    EXPECT_LT(lowest, -1000);
    EXPECT_GT(highest, 1000);
    // A shard is the whole input's values there.
    spec.distribution = Distribution::normal;
    std::vector<double> whole(1000), part(100);
    fill(std::span<double>(whole), spec);
    fill(std::span<double>(part), spec, 1000, 500);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 500));
}

TEST(Inputs, SameSeedSameFloatsAnyThreadSplit) {
    // 2^22 elements are filled by several threads; the first 1000 by one. They must agree.
    const auto big = generate(Distribution::normal, 5, 1 << 22);
    const auto small = generate(Distribution::normal, 5, 1000);
    EXPECT_TRUE(std::equal(small.begin(), small.end(), big.begin()));
    EXPECT_NE(generate(Distribution::normal, 6, 1000), small);
}

// Shards tile the input: contiguous, in order, lengths within one of each other.
TEST(Inputs, ShardsTileTheInput) {
    for (std::uint64_t n : {0ull, 1ull, 5ull, 1000003ull, 1ull << 40})
        for (int parts : {1, 2, 3, 7, 4096}) {
            std::uint64_t next = 0, shortest = n, longest = 0;
            for (int part = 0; part < parts; ++part) {
                const Shard shard = shard_of(n, part, parts);
                EXPECT_EQ(shard.begin, next) << n << " " << part << "/" << parts;
                next = shard.end;
                shortest = std::min(shortest, shard.size());
                longest = std::max(longest, shard.size());
            }
            EXPECT_EQ(next, n) << parts;
            EXPECT_LE(longest - shortest, 1u) << n << " over " << parts;
        }
}

// A rank that makes only its shard makes the same floats as the whole input holds there, for
// the distributions whose elements depend on n too (ill:C pairs i with n - 1 - i).
TEST(Inputs, AShardIsFilledWithTheGlobalInputsFloats) {
    for (Distribution d : {Distribution::normal, Distribution::ill_conditioned, Distribution::cancel, Distribution::wide}) {
        InputSpec spec;
        spec.distribution = d;
        spec.seed = 11;
        spec.condition = 1e12;
        std::vector<float> whole(100003);
        fill(whole, spec);
        for (int parts : {2, 3}) {
            std::vector<float> joined;
            for (int part = 0; part < parts; ++part) {
                const Shard shard = shard_of(whole.size(), part, parts);
                std::vector<float> piece(shard.size());
                fill(piece, spec, whole.size(), shard.begin);
                joined.insert(joined.end(), piece.begin(), piece.end());
            }
            EXPECT_EQ(joined, whole) << spec.label() << ", " << parts << " shards";
        }
    }
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
    static std::string npy(const std::string& descr, const std::string& data, const std::string& shape = "(3,)") {
        std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
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

// The .npy descriptor sets the element type; a --dtype that differs is refused, naming both.
TEST_F(InputFiles, NpyFloat64SetsTheTypeAndAMismatchIsAnError) {
    std::string data(3 * sizeof(double), '\0');
    const double values[] = {1.0, 0x1p-1074, -3.5};
    std::memcpy(data.data(), values, sizeof values);
    const std::string path = write("d.npy", npy("<f8", data));
    const HostArray read = read_float_file(path);
    ASSERT_EQ(read.type(), ElementType::f64);
    EXPECT_EQ(std::vector<double>(read.values<double>().begin(), read.values<double>().end()), std::vector<double>(values, values + 3));
    EXPECT_EQ(read_float_file(path, ElementType::f64).size(), 3u);
    try {
        read_float_file(path, ElementType::f32);
        ADD_FAILURE() << "a float32 read of a float64 .npy file was not refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("holds f64 values (its .npy header says so) but --dtype=f32 was asked for"),
                  std::string::npos) << e.what();
    }
    // A raw file holds what --dtype says: 24 bytes are three doubles or six floats.
    const std::string raw = write("d.f64", data);
    EXPECT_EQ(read_float_file(raw, ElementType::f64).values<double>()[2], -3.5);
    EXPECT_EQ(read_float_file(raw).size(), 6u);
}

TEST_F(InputFiles, ReadsOnlyItsShard) {
    const std::string raw = write("s.f32", floats({1, 2, 3, 4, 5}));
    const std::string with_header = write("s.npy", npy("<f4", floats({1, 2, 3, 4, 5}), "(5,)"));
    for (const std::string& path : {raw, with_header}) {
        std::vector<float> joined;
        for (int part = 0; part < 3; ++part) {
            const auto shard = read_float_file(path, std::nullopt, part, 3);
            joined.insert(joined.end(), shard.span().begin(), shard.span().end());
        }
        EXPECT_EQ(joined, (std::vector<float>{1, 2, 3, 4, 5})) << path;
        EXPECT_EQ(read_float_file(path, std::nullopt, 1, 3).size(), shard_of(5, 1, 3).size());
    }
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

// float16 .npy files ('<f2') set their type; bfloat16 has no .npy descriptor, so it comes raw, and
// asking for it from an .npy file says so.
TEST_F(InputFiles, Float16FromNpyAndBFloat16FromRawFiles) {
    const std::uint16_t halves[] = {0x3c00, 0x0001, 0xfbff};  // 1, 2^-24, -65504
    std::string data(sizeof halves, '\0');
    std::memcpy(data.data(), halves, sizeof halves);
    const std::string path = write("h.npy", npy("<f2", data));
    const HostArray read = read_float_file(path);
    ASSERT_EQ(read.type(), ElementType::f16);
    const std::span<const Float16> values = read.values<Float16>();
    EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{1.0f, 0x1p-24f, -65504.0f}));
    try {
        read_float_file(path, ElementType::bf16);
        ADD_FAILURE() << "a bfloat16 read of a float16 .npy file was not refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("holds f16 values (its .npy header says so) but --dtype=bf16 was asked for "
                                             "(bfloat16 has no .npy dtype: give it as a raw file)"),
                  std::string::npos) << e.what();
    }
    // The same 6 bytes, raw: three bfloat16 values (1.0 is 0x3f80 there), or one and a half floats.
    const std::uint16_t brains[] = {0x3f80, 0x0001, 0xff7f};  // 1, 2^-133, -(2 - 2^-7) 2^127
    std::memcpy(data.data(), brains, sizeof brains);
    const std::string raw = write("h.bf16", data);
    const HostArray raw_read = read_float_file(raw, ElementType::bf16);
    ASSERT_EQ(raw_read.type(), ElementType::bf16);
    const std::span<const BFloat16> b = raw_read.values<BFloat16>();
    EXPECT_EQ(std::vector<float>(b.begin(), b.end()), (std::vector<float>{1.0f, 0x1p-133f, -0x1.fep127f}));
    expect_error(raw, "6 data bytes is not a whole number of float32 values");
}

TEST_F(InputFiles, BadFilesAreNamedWithWhatIsWrong) {
    expect_error((dir / "missing.f32").string(), "cannot be opened");
    expect_error(dir.string(), "is a directory");
    expect_error(write("empty.f32", ""), "holds no float32 values");
    expect_error(write("odd.f32", "abcdef"), "6 data bytes is not a whole number of float32 values");
    expect_error(write("i4.npy", npy("<i4", std::string(12, '\0'))),
                 "holds dtype '<i4'; one of '<f4', '<f8', '<f2' (little-endian) is needed (bfloat16 has no .npy dtype");
    expect_error(write("big.npy", npy(">f8", std::string(24, '\0'))), "holds dtype '>f8'");
    expect_error(write("fake.npy", "not numpy at all"), "not a .npy file");
    expect_error(write("FAKE.NPY", floats({1.0f, 2.0f})), "is named .npy but is not a .npy file");
}

std::vector<float> read_values(const std::string& path) {
    const auto values = read_float_file(path);
    return {values.span().begin(), values.span().end()};
}

TEST_F(InputFiles, NpyIsRecognisedByItsMagicWhateverItsName) {
    const std::string data = npy("<f4", floats({1.0f, 2.0f, 4.0f}));
    for (const std::string name : {"data.bin", "DATA.NPY", "no_extension"})
        EXPECT_EQ(read_values(write(name, data)), (std::vector<float>{1.0f, 2.0f, 4.0f})) << name;
}

TEST_F(InputFiles, NpyShapeMustMatchItsData) {
    expect_error(write("short.npy", npy("<f4", floats({1.0f, 2.0f}))), "shape (3,) holds 3 values but its data holds 2");
    expect_error(write("long.npy", npy("<f4", floats({1.0f, 2.0f, 4.0f, 8.0f}))), "shape (3,) holds 3 values but its data holds 4");
    expect_error(write("matrix.npy", npy("<f4", floats({1.0f, 2.0f, 4.0f}), "(2, 2)")), "shape (2, 2) holds 4 values but its data holds 3");
    expect_error(write("bad_shape.npy", npy("<f4", floats({1.0f}), "(x,)")), "shape (x,) that is not a tuple of sizes");
    EXPECT_EQ(read_values(write("matrix_ok.npy", npy("<f4", floats({1, 2, 3, 4, 5, 6}), "(2, 3)"))).size(), 6u);
    EXPECT_EQ(read_values(write("scalar.npy", npy("<f4", floats({7.0f}), "()"))), std::vector<float>{7.0f});
}

// A format 2.0 header may run to 4 GiB: reading one of a megabyte, all of it inside the 'shape'
// tuple or the 'descr' string, is a scan of its length (a regular expression overflowed the stack).
TEST_F(InputFiles, NpyHeadersOfAMegabyteAreRead) {
    auto npy2 = [](const std::string& header, const std::string& data) {
        const std::uint32_t length = static_cast<std::uint32_t>(header.size());
        return std::string("\x93NUMPY\x02\x00", 8) + std::string(reinterpret_cast<const char*>(&length), 4) + header + data;
    };
    const std::string wide_shape = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::string(1 << 20, ' ') + "3,), }\n";
    EXPECT_EQ(read_values(write("wide_shape.npy", npy2(wide_shape, floats({1.0f, 2.0f, 4.0f})))),
              (std::vector<float>{1.0f, 2.0f, 4.0f}));
    const std::string long_descr = "{'descr': '" + std::string(1 << 20, 'f') + "', 'fortran_order': False, 'shape': (1,), }\n";
    expect_error(write("long_descr.npy", npy2(long_descr, floats({1.0f}))), "holds dtype 'fff");
}

// The header is read as NumPy reads it: keys in double quotes are keys, and a key given twice is
// refused (NumPy takes its last value: a reader taking the first would sum the data as float64).
TEST_F(InputFiles, NpyHeadersAreReadAsNumPyReadsThem) {
    auto npy_with = [](const std::string& dict, const std::string& data) {
        std::string header = dict;
        header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10 - 1, ' ');
        header += '\n';
        return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
               static_cast<char>(header.size() >> 8) + header + data;
    };
    EXPECT_EQ(read_values(write("double_quoted.npy", npy_with("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}",
                                                              floats({1.0f, 2.0f})))),
              (std::vector<float>{1.0f, 2.0f}));
    expect_error(write("twice.npy", npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'descr': '<f4'}",
                                             floats({1.0f, 2.0f}))),
                 "the .npy header gives 'descr' twice");
}

// Two files of one name in two folders are two inputs, and one file is one input however its path
// is spelled: the label is the absolute path, links resolved, each byte kept (escaped where it is
// not printable UTF-8).
TEST_F(InputFiles, FileLabelsNameOneFileEach) {
    std::filesystem::create_directories(dir / "a");
    std::filesystem::create_directories(dir / "b");
    InputSpec a, b, relative, linked, odd;
    a.file = write("a/same.f32", floats({1.0f}));
    b.file = write("b/same.f32", floats({2.0f}));
    EXPECT_NE(a.label(), b.label());
    EXPECT_EQ(a.label(), "file:" + std::filesystem::weakly_canonical(a.file).generic_string());
    EXPECT_TRUE(a.label().ends_with("/a/same.f32")) << a.label();
    relative.file = std::filesystem::relative(a.file).string();
    EXPECT_EQ(relative.label(), a.label()) << relative.file;
    linked.file = (dir / "link.f32").string();
    std::filesystem::create_symlink(a.file, linked.file);
    EXPECT_EQ(linked.label(), a.label());
    odd.file = write("odd\xff\\name\n.f32", floats({3.0f}));
    EXPECT_TRUE(odd.label().ends_with("/odd\\xff\\\\name\\x0a.f32")) << odd.label();
}

TEST_F(InputFiles, OnlyRegularFilesAreRead) {
    const std::string fifo = (dir / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_error(fifo, "is a FIFO, not a regular file");  // opening it would wait for a writer for ever
    expect_error("/dev/zero", "is a character device, not a regular file");
}

TEST_F(InputFiles, AFileLargerThanMemoryIsSkippedWithTheSizeMessage) {
    const std::string path = write("huge.f32", "");
    std::filesystem::resize_file(path, std::uint64_t{1} << 42);  // sparse: takes no disk
    if (platform::available_memory_bytes() >= (std::uint64_t{1} << 42)) GTEST_SKIP() << "this machine has 4 TiB free";
    try {
        read_float_file(path);
        ADD_FAILURE() << "a 4 TiB file was read";
    } catch (const InputTooLarge& e) {
        EXPECT_NE(std::string(e.what()).find("skipping input file '" + path + "': it needs 4096.0 GiB of host memory and "),
                  std::string::npos) << e.what();
    }
}

// The memory estimate can be too high (an address-space or cgroup limit it does not see): a failed
// allocation gets the same message, not a bare std::bad_alloc.
TEST_F(InputFiles, AFailedAllocationIsSkippedWithTheSizeMessage) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer aborts on a failed allocation instead of returning null";
#else
    const std::string path = write("large.f32", "");
    std::filesystem::resize_file(path, 512u << 20);
    rlimit original{};
    ASSERT_EQ(::getrlimit(RLIMIT_AS, &original), 0);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    rlimit tight = original;
    tight.rlim_cur = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) + (64u << 20);  // room for 64 MiB more
    ASSERT_EQ(::setrlimit(RLIMIT_AS, &tight), 0);
    std::string message;
    try {
        read_float_file(path);
    } catch (const InputTooLarge& e) {
        message = e.what();
    } catch (const std::bad_alloc&) {
        message = "std::bad_alloc";
    }
    ::setrlimit(RLIMIT_AS, &original);
    EXPECT_NE(message.find("skipping input file '" + path + "': it needs 0.5 GiB of host memory"), std::string::npos) << message;
#endif
}

}  // namespace
}  // namespace shootout
