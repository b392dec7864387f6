#include "report/reporters.hpp"

#include "bench/cli.hpp"
#include "report/columns.hpp"
#include "report/size_text.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

namespace shootout {
namespace {

Measurement sample() {
    return {.timestamp = "2026-11-22T01:02:03Z", .host = "node1", .cpu = "Xeon, \"Sapphire\" Rapids", .gpu = "",
            .compiler = "GNU 12.2.0", .build = "Release", .backend = "cpu/serial/kahan", .device = "cpu",
            .threads = 1, .input = "uniform", .seed = 42, .n = 1 << 20, .bytes = 4 << 20,
            .gbps = 12.345678, .time_ns_median = 339.75, .time_ns_min = 300.25, .iterations = 1234,
            .result = 0.1 + 0.2, .exact = 1.0 / 3.0, .rel_error = 1.1102230246251565e-16, .peak_gbps = 0,
            .machine = "node1-3f2a91c0", .timing = "isolated", .batch = 1, .cache = "warm",
            .accumulator = "compensated_f32", .order = "sequential", .reproducibility = "any_thread_count",
            .role = "reduction", .reproducible = "yes", .gpus = 2, .ranks = 3, .pages = "huge",
            .configuration = "schedule=pinned parts=2 loop=avx512/f32+prefetch (2 of 3); schedule=tbb threads=2 loop=avx512/f32 (1 of 3)",
            .version = "2e5b06b-dirty"};
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> read_lines(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// A fresh directory per test, removed after it.
class Files : public ::testing::Test {
protected:
    std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                ("shootout_reporters_" + std::to_string(::getpid()) + "_" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return path(name);
    }
    std::vector<std::string> names_in_dir() const {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

template <class Reporter>
void expect_usage_error(const std::string& path, const std::string& needle) {
    try {
        Reporter reporter(path);
        ADD_FAILURE() << "accepted " << path;
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

// Lowers the file size limit, so that writes fail as on a full disk, for as long as it lives.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &original_);
        previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);  // else the write kills the process
        rlimit tight = original_;
        tight.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &tight);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &original_);
        std::signal(SIGXFSZ, previous_handler_);
    }

private:
    rlimit original_{};
    void (*previous_handler_)(int) = nullptr;
};

// Published columns keep their names and order; later ones are appended (report/columns.json and
// results/README.md list them all: cli.columns_in_step).
TEST(Csv, HeaderKeepsThePublishedColumnsInOrder) {
    const std::vector<std::string> published = split_csv_row(
        "timestamp,host,cpu,gpu,compiler,build,backend,device,threads,input,seed,n,bytes,gbps,"
        "time_ns_median,time_ns_min,iterations,result,exact,rel_error,peak_gbps,"
        "machine,timing,batch,cache,accumulator,order,reproducibility,role,reproducible,gpus,ranks,pages,configuration,dtype,os,"
        "energy_j,gb_per_j,version");
    const std::vector<std::string> header = split_csv_row(csv_header());
    ASSERT_GE(header.size(), published.size()) << csv_header();
    EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(published.size())), published);
}

// The headers older harnesses wrote end at columns of the table, each later than the one before.
TEST(Csv, OlderLayoutsArePrefixesOfTheColumns) {
    const std::vector<std::string> header = split_csv_row(csv_header());
    std::ptrdiff_t previous = -1;
    for (const CsvLayout& layout : csv_layouts()) {
        const std::ptrdiff_t at = std::find(header.begin(), header.end(), layout.last) - header.begin();
        ASSERT_LT(at, static_cast<std::ptrdiff_t>(header.size())) << layout.name << ": no column " << layout.last;
        EXPECT_GT(at, previous) << layout.name;
        previous = at;
    }
}

TEST(Csv, RowRoundTripsExactly) {
    const Measurement m = sample();
    const auto header = split_csv_row(csv_header());
    const auto fields = split_csv_row(csv_row(m));
    ASSERT_EQ(fields.size(), header.size());
    auto field = [&](const std::string& name) {
        return fields[std::find(header.begin(), header.end(), name) - header.begin()];
    };
    EXPECT_EQ(field("cpu"), m.cpu);  // quoted because of the comma and quotes
    EXPECT_EQ(field("backend"), m.backend);
    EXPECT_EQ(field("seed"), "42");
    EXPECT_EQ(field("n"), "1048576");
    EXPECT_EQ(std::stod(field("result")), m.result);  // %.17g gives back the same double
    EXPECT_EQ(std::stod(field("exact")), m.exact);
    EXPECT_EQ(std::stod(field("rel_error")), m.rel_error);
    EXPECT_EQ(field("gpu"), "");
    EXPECT_EQ(field("peak_gbps"), "");
    EXPECT_EQ(field("machine"), "node1-3f2a91c0");
    EXPECT_EQ(field("timing"), "isolated");
    EXPECT_EQ(field("batch"), "1");
    EXPECT_EQ(field("cache"), "warm");
    EXPECT_EQ(field("accumulator"), "compensated_f32");
    EXPECT_EQ(field("order"), "sequential");
    EXPECT_EQ(field("reproducibility"), "any_thread_count");
    EXPECT_EQ(field("role"), "reduction");
    EXPECT_EQ(field("reproducible"), "yes");
    EXPECT_EQ(field("gpus"), "2");
    EXPECT_EQ(field("ranks"), "3");
    EXPECT_EQ(field("pages"), "huge");
    EXPECT_EQ(field("configuration"), m.configuration);
    EXPECT_EQ(field("dtype"), "f32");
    EXPECT_EQ(field("os"), platform::os_name());
    EXPECT_EQ(field("energy_j"), "");  // no energy counter measured it
    EXPECT_EQ(field("gb_per_j"), "");
    EXPECT_EQ(field("version"), "2e5b06b-dirty");
}

// The energy per call, and the bytes read per joule derived from it (decimal GB, as gbps).
TEST(Csv, EnergyColumnsHoldJoulesPerCallAndGigabytesPerJoule) {
    Measurement m = sample();
    m.energy_j = 0.002;  // 4 MiB read for 2 mJ
    const auto header = split_csv_row(csv_header());
    const auto fields = split_csv_row(csv_row(m));
    auto field = [&](const std::string& name) { return fields[std::find(header.begin(), header.end(), name) - header.begin()]; };
    EXPECT_EQ(field("energy_j"), "0.002");
    EXPECT_EQ(field("gb_per_j"), "2.09715");
    EXPECT_NE(json_document({m}).find("\"energy_j\": 0.002, \"gb_per_j\": 2.0971519999999999, \"version\": \"2e5b06b-dirty\""), std::string::npos)
        << json_document({m});
    EXPECT_NE(progress_line(1, 1, m).find("  2.1 GB/J"), std::string::npos) << progress_line(1, 1, m);
}

TEST(Csv, NonFiniteErrorsAreWrittenAsNanAndInf) {
    Measurement m = sample();
    m.rel_error = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(split_csv_row(csv_row(m))[19], "nan");
    m.rel_error = std::numeric_limits<double>::infinity();
    EXPECT_EQ(split_csv_row(csv_row(m))[19], "inf");
}

TEST_F(Files, CsvAppendingWritesOneHeader) {
    const std::string csv = path("a.csv");
    CsvReporter(csv).report(sample());
    CsvReporter(csv).report(sample());
    const auto lines = read_lines(csv);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], csv_header());
    EXPECT_EQ(lines[1], lines[2]);
}

TEST_F(Files, CsvWithAnotherHeaderIsRefusedAndLeftAlone) {
    const std::string old_schema = "timestamp,host,cpu\n2026-01-01T00:00:00Z,vm,Xeon\n";
    const std::string csv = write("old.csv", old_schema);
    expect_usage_error<CsvReporter>(csv, "has a different header from the one this version writes");
    expect_usage_error<CsvReporter>(csv, "give --csv another path");
    // Today's header plus a column is another header too.
    expect_usage_error<CsvReporter>(write("longer.csv", csv_header() + ",extra\n"), "different header");
    EXPECT_EQ(read_text(csv), old_schema);
}

TEST_F(Files, CsvWithoutAFinalNewlineGetsOneBeforeTheRow) {
    const std::string row = csv_row(sample());
    const std::string csv = write("cut.csv", csv_header() + "\n" + row);  // saved without a final newline
    CsvReporter(csv).report(sample());
    EXPECT_EQ(read_text(csv), csv_header() + "\n" + row + "\n" + row + "\n");
    const std::string header_only = write("header_only.csv", csv_header());
    CsvReporter(header_only).report(sample());
    EXPECT_EQ(read_text(header_only), csv_header() + "\n" + row + "\n");
    const std::string empty = write("empty.csv", "");
    CsvReporter(empty).report(sample());
    EXPECT_EQ(read_text(empty), csv_header() + "\n" + row + "\n");
}

// Another run holds the lock while it finds the file empty and writes the header: this run must wait
// for it, then see the header and write none. Without the lock, both would write a header. It says
// that it waits, and for whom (the lock's holder is this test's process, on Linux named by pid).
TEST_F(Files, CsvAppendWaitsForAnotherRunsLockAndSaysSo) {
    const std::string csv = path("shared.csv");
    CsvReporter reporter(csv);
    const int other_run = ::open(csv.c_str(), O_RDWR | O_CREAT | O_APPEND, 0644);
    ASSERT_GE(other_run, 0);
    ASSERT_EQ(::flock(other_run, LOCK_EX), 0);
    std::ostringstream said;
    std::streambuf* const stderr_buffer = std::cerr.rdbuf(said.rdbuf());
    std::thread this_run([&] { reporter.report(sample()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(std::filesystem::file_size(csv), 0u) << "wrote while another run held the lock";
    const std::string others = csv_header() + "\n" + csv_row(sample()) + "\n";
    ASSERT_EQ(::write(other_run, others.data(), others.size()), static_cast<ssize_t>(others.size()));
    ::flock(other_run, LOCK_UN);
    ::close(other_run);
    this_run.join();
    std::cerr.rdbuf(stderr_buffer);
    const auto lines = read_lines(csv);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), csv_header()), 1);
#if defined(__linux__)
    const std::string holder = "another process (pid " + std::to_string(::getpid()) + ")";
#else
    const std::string holder = "another process";
#endif
    EXPECT_EQ(said.str(), "--csv: " + holder + " holds the lock on '" + csv + "'; waiting for it to finish writing\n");
}

// Each append lands at the file's end, a file this run has just created too: another run may have
// appended between the creation and the lock.
TEST_F(Files, AppendsLandAtTheEndOfAFileTheRunCreated) {
    const OutputFile csv("--csv", path("new.csv"), OutputWrite::append);
    const FileDescriptor file = csv.open_locked(std::cerr);
    std::ofstream(dir / "new.csv", std::ios::app) << "another run's row\n";
    ASSERT_TRUE(write_all(file.get(), "this run's row\n"));
    EXPECT_EQ(read_text(dir / "new.csv"), "another run's row\nthis run's row\n");
}

// A link is followed where the user named it, to a file that exists: a dangling one is refused, and
// neither the link nor the name it holds is written.
TEST_F(Files, ADanglingLinkIsRefusedNotCreated) {
    std::filesystem::create_symlink("nowhere.csv", dir / "dangling.csv");
    std::filesystem::create_symlink("nowhere.json", dir / "dangling.json");
    expect_usage_error<CsvReporter>(path("dangling.csv"), "is a symbolic link to 'nowhere.csv', which does not exist");
    expect_usage_error<JsonReporter>(path("dangling.json"), "a dangling link is not a name to create");
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{"dangling.csv", "dangling.json"}));
}

// Mode 0444 says no one writes the file: refused for root too, whom the system lets write it.
TEST_F(Files, AFileNoOneMayWriteIsRefusedRootToo) {
    for (const std::string name : {"read-only.csv", "read-only.json"}) {
        write(name, "");
        std::filesystem::permissions(dir / name, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                                     std::filesystem::perms::others_read);
    }
    expect_usage_error<CsvReporter>(path("read-only.csv"), "--csv: cannot write '" + path("read-only.csv") + "': it is read-only (mode 0444)");
    expect_usage_error<JsonReporter>(path("read-only.json"), "it is read-only (mode 0444), to root too");
}

// Replacing a file makes a new one, which its creator owns: root replacing another user's JSON
// gives the new file that user's owner and group.
TEST_F(Files, AReplacedFileKeepsItsOwner) {
    if (::geteuid() != 0) GTEST_SKIP() << "only root can make a file another user owns";
    const std::string json = write("theirs.json", "{}");
    ASSERT_EQ(::chown(json.c_str(), 12345, 12346), 0);
    JsonReporter(json).report(sample());
    struct stat after {};
    ASSERT_EQ(::stat(json.c_str(), &after), 0);
    EXPECT_EQ(after.st_uid, 12345u);
    EXPECT_EQ(after.st_gid, 12346u);
    EXPECT_EQ(read_text(json), json_document({sample()}));
}

// What the write would fail at fails before anything is measured: a name whose temporary
// (".NAME.XXXXXX") is longer than the 255 bytes a name may have, though the name itself fits.
TEST_F(Files, AWriteThatWouldFailIsRefusedBeforeMeasuring) {
    for (const std::size_t length : {248u, 249u})
        expect_usage_error<JsonReporter>(path(std::string(length - 5, 'n') + ".json"), "creating a temporary file beside it failed: File name too long");
    EXPECT_TRUE(names_in_dir().empty());
}

// A stop signal removes the temporary files and lock files a process holds, then ends it as the
// signal would have. (SIGINT too, in tests/output_files_test.py: a shell's background job may
// start with it ignored, and an ignored signal stays so.)
TEST_F(Files, AStopSignalRemovesTemporariesAndLocks) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        const JsonReporter holds_a_lock(path("out.json"));
        TemporaryFile temporary;
        const FileDescriptor written(temporary.create([&](std::string& name) {
            name = path(".out.json.temporary");
            return platform::create_new_file(name);
        }));
        if (written.get() >= 0) ::raise(SIGTERM);
        ::_exit(1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
    EXPECT_TRUE(names_in_dir().empty()) << "left " << testing::PrintToString(names_in_dir());
}

TEST_F(Files, OutputsMustBeRegularFilesOrNew) {
    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_usage_error<CsvReporter>(fifo, "--csv: '" + fifo + "' is a FIFO, not a regular file");  // would block
    expect_usage_error<JsonReporter>(fifo, "--json: '" + fifo + "' is a FIFO, not a regular file");
    expect_usage_error<CsvReporter>("/dev/null", "is a character device, not a regular file");
    expect_usage_error<JsonReporter>("/dev/full", "is a character device, not a regular file");
    expect_usage_error<CsvReporter>(dir.string(), "is a directory");
    expect_usage_error<CsvReporter>("/nonexistent/dir/out.csv", "--csv: cannot write '/nonexistent/dir/out.csv': its directory '/nonexistent/dir' does not exist");
    expect_usage_error<JsonReporter>("/nonexistent/dir/out.json", "--json: cannot write '/nonexistent/dir/out.json'");
    expect_usage_error<JsonReporter>(write("file", "") + "/out.json", "Not a directory");
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{"fifo", "file"}));  // nothing created
}

TEST_F(Files, CsvWriteErrorsNameThePathAndLeaveNoHalfRow) {
    const std::string before = csv_header() + "\n" + csv_row(sample()) + "\n";
    for (const std::string& contents : {std::string(), before}) {
        const std::string csv = write("full.csv", contents);
        CsvReporter reporter(csv);
        {
            const FileSizeLimit disk_full(contents.size() + 100);  // room for part of the next row
            try {
                reporter.report(sample());
                ADD_FAILURE() << "a failed write went unnoticed";
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find("--csv: writing '" + csv + "' failed: File too large"), std::string::npos)
                    << e.what();
            }
        }
        EXPECT_EQ(read_text(csv), contents);
    }
}

TEST(Json, NonFiniteNumbersAreStringsAndStringsAreEscaped) {
    Measurement m = sample();
    m.rel_error = std::numeric_limits<double>::infinity();
    m.result = std::numeric_limits<double>::quiet_NaN();
    m.exact = -std::numeric_limits<double>::infinity();
    const std::string text = json_document({m, sample()});
    EXPECT_NE(text.find("\"rel_error\": \"inf\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"result\": \"nan\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"exact\": \"-inf\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"cpu\": \"Xeon, \\\"Sapphire\\\" Rapids\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"peak_gbps\": null"), std::string::npos) << text;
    EXPECT_NE(text.find("\"machine\": \"node1-3f2a91c0\", \"timing\": \"isolated\", \"batch\": 1, \"cache\": \"warm\", "
                        "\"accumulator\": \"compensated_f32\", \"order\": \"sequential\", "
                        "\"reproducibility\": \"any_thread_count\", \"role\": \"reduction\", \"reproducible\": \"yes\", "
                        "\"gpus\": 2, \"ranks\": 3, \"pages\": \"huge\", "
                        "\"configuration\": \"schedule=pinned parts=2 loop=avx512/f32+prefetch (2 of 3); schedule=tbb threads=2 loop=avx512/f32 (1 of 3)\", \"dtype\": \"f32\", "
                        "\"os\": \"" + std::string(platform::os_name()) + "\", \"energy_j\": null, \"gb_per_j\": null, "
                        "\"version\": \"2e5b06b-dirty\""),
              std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '{'), 3);
    EXPECT_EQ(text.back(), '\n');
}

TEST(Json, ControlCharactersAndInvalidUtf8AreEscaped) {
    Measurement m = sample();
    // a newline, a tab, a 0xFF byte, a valid "é" and "€", a stray continuation byte, an overlong '/',
    // a UTF-8 surrogate, and a sequence cut short at the end
    m.input = std::string("file:a\nb\tc\xff" "d\xc3\xa9\xe2\x82\xac\x80\xc0\xaf\xed\xa0\x80\xe2\x82");
    const std::string text = json_document({m});
    EXPECT_NE(text.find("\"input\": \"file:a\\u000ab\\u0009c\\ufffdd\xc3\xa9\xe2\x82\xac\\ufffd\\ufffd\\ufffd"
                        "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""),
              std::string::npos) << text;
}

TEST_F(Files, JsonLeavesAnExistingFileAloneUntilTheFirstMeasurement) {
    const std::string json = write("kept.json", "a user's document");
    JsonReporter reporter(json);
    EXPECT_EQ(read_text(json), "a user's document");
}

// Rewriting the file in place left it empty when the run was interrupted between truncating and
// writing; renaming a finished file over it never does. A hard link taken before the write keeps
// the old contents only if the file was replaced, not rewritten.
TEST_F(Files, JsonIsReplacedWholeNotRewrittenInPlace) {
    const std::string json = path("out.json");
    JsonReporter reporter(json);
    reporter.report(sample());
    const std::string first = read_text(json);
    std::filesystem::create_hard_link(json, dir / "before.json");
    reporter.report(sample());
    EXPECT_EQ(read_text(dir / "before.json"), first);
    EXPECT_EQ(read_text(json), json_document({sample(), sample()}));
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{".out.json.lock", "before.json", "out.json"}));  // the run's lock, no temporary
}

// A second run writing one JSON path would replace the first run's document with its own: it is
// refused before it measures, whatever name it reaches the file by, until the first run ends.
TEST_F(Files, JsonRefusesAPathAnotherRunIsWriting) {
    const std::string json = path("out.json");
    std::filesystem::create_symlink(json, dir / "link.json");
    {
        JsonReporter first(json);
        first.report(sample());
        for (const std::string& name : {json, path("link.json"), (dir / "." / "out.json").string()})
            expect_usage_error<JsonReporter>(name, "--json: another accumulate_bench run is writing '" + name + "'");
        EXPECT_EQ(read_text(json), json_document({sample()}));
    }
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{"link.json", "out.json"}));  // the lock goes with the run
    JsonReporter(json).report(sample());
}

// Something else where the lock file goes is named, not waited on (a FIFO would block the open).
TEST_F(Files, JsonLockThatIsNotAFileIsRefused) {
    ASSERT_EQ(::mkfifo(path(".out.json.lock").c_str(), 0600), 0);
    expect_usage_error<JsonReporter>(path("out.json"), "--json: cannot lock '" + path("out.json") + "': its lock file '" +
                                                           path(".out.json.lock") + "' is a FIFO, not a regular file");
}

// The kernel drops a killed process's flock(): the lock file it leaves behind blocks no later run.
TEST_F(Files, JsonLockLeftByAKilledRunBlocksNoOne) {
    const std::string json = path("out.json");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        try {
            const JsonReporter killed(json);
            ::raise(SIGKILL);
        } catch (...) {
        }
        ::_exit(1);  // no reporter: the parent sees an exit, not a kill
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    ASSERT_TRUE(std::filesystem::exists(dir / ".out.json.lock"));
    JsonReporter(json).report(sample());
    EXPECT_EQ(read_text(json), json_document({sample()}));
}

TEST_F(Files, JsonKeepsTheModeOfTheFileItReplaces) {
    const std::string json = write("mode.json", "{}");
    std::filesystem::permissions(json, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                           std::filesystem::perms::group_read);
    JsonReporter(json).report(sample());
    EXPECT_EQ(std::filesystem::status(json).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read);
}

TEST_F(Files, JsonThroughASymbolicLinkReplacesTheFileNotTheLink) {
    const std::string target = write("target.json", "{}");
    std::filesystem::create_symlink(target, dir / "link.json");
    JsonReporter(path("link.json")).report(sample());
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
    EXPECT_EQ(read_text(target), json_document({sample()}));
}

TEST_F(Files, JsonWriteErrorsNameThePathKeepTheOldFileAndLeaveNoTemporary) {
    const std::string json = write("full.json", "the previous run's document");
    JsonReporter reporter(json);
    {
        const FileSizeLimit disk_full(100);
        try {
            reporter.report(sample());
            ADD_FAILURE() << "a failed write went unnoticed";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("--json: writing '" + json + "' failed: File too large"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(read_text(json), "the previous run's document");
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{".full.json.lock", "full.json"}));  // the run's lock, no temporary
}

TEST_F(Files, JsonRenameErrorsNameThePathAndLeaveNoTemporary) {
    const std::string json = path("taken.json");
    JsonReporter reporter(json);
    std::filesystem::create_directory(json);  // rename() cannot replace a directory by a file
    try {
        reporter.report(sample());
        ADD_FAILURE() << "a failed rename went unnoticed";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("--json: replacing '" + json + "' failed: Is a directory"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{".taken.json.lock", "taken.json"}));  // the run's lock, no temporary
}

OutputPaths outputs(std::vector<std::string> args) {
    const Options options = parse_command_line(args);
    return {.csv = options.csv_path, .json = options.json_path, .input = options.input.file};
}

void expect_refused(const OutputPaths& paths, const std::string& needle) {
    try {
        open_reporters(paths);
        ADD_FAILURE() << "opened " << paths.csv << " and " << paths.json;
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

// Two spellings of one new path: the same directory and name once each is resolved.
TEST_F(Files, TwoSpellingsOfANewPathAreOneFile) {
    const std::filesystem::path before = std::filesystem::current_path();
    std::filesystem::create_directory(dir / "d");
    std::filesystem::current_path(dir);
    expect_refused(outputs({"--csv=./a", "--json=a"}), "--csv and --json both name './a' (as 'a')");
    std::filesystem::current_path(dir / "d");
    expect_refused(outputs({"--csv=n1", "--json=../d/n1"}), "--csv and --json both name 'n1' (as '../d/n1')");
    expect_refused(outputs({"--input=file:../d/n1", "--csv=n1"}), "--csv: 'n1' is the input file");
    std::filesystem::current_path(before);
    EXPECT_EQ(names_in_dir(), std::vector<std::string>{"d"});
    EXPECT_TRUE(std::filesystem::is_empty(dir / "d"));
}

TEST_F(Files, OutputsThatWouldDestroyEachOtherOrTheInputAreRefused) {
    const std::string out = path("out");
    expect_refused(outputs({"--csv=" + out, "--json=" + out}), "--csv and --json both name '" + out + "'");
    expect_refused(outputs({"--csv=" + out, "--json=" + path(".") + "/out"}), "--csv and --json both name");
    const std::string input = write("input.f32", std::string(8, '\0'));
    std::filesystem::create_hard_link(input, dir / "link.f32");
    expect_refused(outputs({"--input=file:" + input, "--csv=" + path("link.f32")}), "--csv: '" + path("link.f32") + "' is the input file");
    expect_refused(outputs({"--input=file:" + input, "--json=" + input}), "--json: '" + input + "' is the input file");
    EXPECT_EQ(names_in_dir(), (std::vector<std::string>{"input.f32", "link.f32"}));
    EXPECT_EQ(read_text(input), std::string(8, '\0'));
    EXPECT_EQ(open_reporters(outputs({"--csv=" + path("a.csv"), "--json=" + path("a.json")})).size(), 2u);
    EXPECT_TRUE(open_reporters(outputs({})).empty());
}

TEST(Progress, NamesSizeInElementsAndBytes) {
    EXPECT_EQ(describe_size(1 << 20), "2^20 (4 MiB)");
    EXPECT_EQ(describe_size(1000003), "1000003 (3.8 MiB)");
    EXPECT_NE(progress_line(3, 40, sample()).find("[3/40] cpu/serial/kahan"), std::string::npos);
}

}  // namespace
}  // namespace shootout
