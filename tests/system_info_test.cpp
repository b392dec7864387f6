#include "bench/system_info.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>

#include "platform/atomic_wait.hpp"
#include "platform/cpu_info.hpp"
#include "platform/joining_thread.hpp"
#include "platform/shared_library.hpp"

namespace shootout {
namespace {

TEST(MachineIdentity, IsTheHostNameAndEightHexDigits) {
    const std::string identity = machine_identity();
    const std::string prefix = host_name() + "-";
    ASSERT_EQ(identity.size(), prefix.size() + 8) << identity;
    EXPECT_TRUE(identity.starts_with(prefix)) << identity;
    EXPECT_EQ(identity.find_first_not_of("0123456789abcdef", prefix.size()), std::string::npos) << identity;
    EXPECT_EQ(machine_identity(), identity);
}

TEST(MachineIdentity, TellsApartMachinesThatShareAHostName) {
    const std::string xeon = machine_identity("vm", "Intel(R) Xeon(R) Platinum 8481C", "0f1e", {});
    EXPECT_EQ(xeon, "vm-8f495724");  // pinned (computed apart from this code): results files are named by it
    EXPECT_NE(machine_identity("vm", "AMD EPYC 9B14", "0f1e", {}), xeon);
    EXPECT_NE(machine_identity("vm", "Intel(R) Xeon(R) Platinum 8481C", "a7c3", {}), xeon);
    EXPECT_NE(machine_identity("vm", "Intel(R) Xeon(R) Platinum 8481C", "0f1e", {"NVIDIA H200"}), xeon);
    EXPECT_NE(machine_identity("vm", "Intel(R) Xeon(R) Platinum 8481C", "0f1e", {"NVIDIA H200"}),
              machine_identity("vm", "Intel(R) Xeon(R) Platinum 8481C", "0f1e", {"NVIDIA H100 80GB HBM3"}));
    // Each fact ends in a 0 byte, so moving text from one fact to the next changes the hash.
    EXPECT_NE(machine_identity("vm", "ab", "c", {}), machine_identity("vm", "a", "bc", {}));
}

TEST(CpuModel, X86ModelName) {
    std::istringstream cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n");
    EXPECT_EQ(cpu_model(cpuinfo), "Intel(R) Xeon(R) CPU @ 2.20GHz");
}

TEST(CpuModel, ArmHasNoModelNameButItsImplementerAndPart) {
    std::istringstream neoverse("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                                "CPU variant\t: 0x1\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\nprocessor\t: 1\n"
                                "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
    EXPECT_EQ(cpu_model(neoverse), "Neoverse N1");
    std::istringstream grace("CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n");
    EXPECT_EQ(cpu_model(grace), "Neoverse V2");
    std::istringstream apple("CPU implementer\t: 0x61\nCPU part\t: 0x022\n");
    EXPECT_EQ(cpu_model(apple), "Apple M1 Icestorm");
    std::istringstream unknown_part("CPU implementer\t: 0x41\nCPU part\t: 0xfff\n");
    EXPECT_EQ(cpu_model(unknown_part), "ARM implementer 0x41 part 0xfff");
    std::istringstream nothing("processor\t: 0\n");
    EXPECT_EQ(cpu_model(nothing), "unknown");
}

// Where there is no /proc/cpuinfo the CPU names itself: on x86, cpuid's brand string, which is also
// what Linux puts in /proc/cpuinfo's "model name".
TEST(SystemInfo, TheCpuNamesItselfWhereTheSystemDoesNot) {
#if defined(__x86_64__)
    EXPECT_NE(platform::cpu_brand(), "unknown");
    if (platform::proc_cpuinfo()) {
        EXPECT_EQ(platform::cpu_brand(), cpu_model());
    }
#endif
    EXPECT_FALSE(cpu_model().empty());
}

TEST(SystemInfo, TheOsIsTheOneBuiltFor) {
#if defined(_WIN32)
    EXPECT_STREQ(platform::os_name(), "windows");
#elif defined(__APPLE__)
    EXPECT_STREQ(platform::os_name(), "macos");
#else
    EXPECT_STREQ(platform::os_name(), "linux");
#endif
    EXPECT_NE(platform::available_memory_bytes(), 0u);
}

// Two threads hand a word back and forth, each asleep in atomic_wait until the other's notify: a
// lost wake-up leaves both asleep, and ctest stops the test.
TEST(AtomicWait, EveryNotifyWakesTheSleeper) {
    constexpr std::uint32_t kRounds = 20000;
    std::atomic<std::uint32_t> turn{0};
    auto play = [&](std::uint32_t first) {
        for (std::uint32_t mine = first; mine < 2 * kRounds; mine += 2) {
            for (std::uint32_t now = turn.load(); now != mine; now = turn.load()) platform::atomic_wait(turn, now);
            turn.store(mine + 1);
            platform::atomic_notify_one(turn);
        }
    };
    {
        platform::JoiningThread other(play, 1u);
        play(0);
    }
    EXPECT_EQ(turn.load(), 2 * kRounds);
}

TEST(SharedLibrary, AMissingOneIsRefusedNamingTheFile) {
    const std::string file = "/nonexistent/" + platform::versioned_library_file("shootout_missing", 1);
    std::string error;
    EXPECT_EQ(platform::open_library(file, error), nullptr);
    EXPECT_NE(error.find(file), std::string::npos) << error;
}

}  // namespace
}  // namespace shootout
