// Input memory: page-aligned mappings with transparent huge pages requested, and what backs them.
#include "bench/host_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "bench/inputs.hpp"

namespace shootout {
namespace {

TEST(HostMemory, RegionIsHugePageAlignedRoundedUpAndZero) {
    const HugePageRegion region(3 * kHugePage + 5);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(region.data()) % kHugePage, 0u);
    EXPECT_EQ(region.size(), 4 * kHugePage);
    EXPECT_TRUE(std::all_of(region.data(), region.data() + region.size(), [](std::byte b) { return b == std::byte{0}; }));
    EXPECT_EQ(HugePageRegion(0).data(), nullptr);
}

TEST(HostMemory, InputArraysStartOnAPage) {
    const HostArray values(1000);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.span().data()) % kHugePage, 0u);
}

TEST(HostMemory, UntouchedMemoryHasNoBacking) {
    const HugePageRegion region(kHugePage);
    EXPECT_EQ(page_backing(region.data()), PageBacking::unknown);
}

TEST(HostMemory, HugePagesAreGrantedWhereTheKernelOffersThem) {
    if (!huge_pages_available())
        GTEST_SKIP() << "no huge pages here (Linux: /sys/kernel/mm/transparent_hugepage/enabled is 'never'; Windows: no Lock pages in memory privilege)";
    HugePageRegion region(8 * kHugePage);
    std::memset(region.data(), 1, region.size());
    EXPECT_EQ(page_backing(region.data()), PageBacking::huge);
    EXPECT_EQ(page_backing(region.data() + region.size() - 1), PageBacking::huge);
}

TEST(HostMemory, OrdinaryHeapMemoryIsDescribedToo) {
    std::vector<char> heap(1 << 16, 1);
    EXPECT_NE(page_backing(heap.data()), PageBacking::unknown);
}

TEST(HostMemory, BackingNamesAreTheCsvValues) {
    EXPECT_EQ(to_string(PageBacking::huge), "huge");
    EXPECT_EQ(to_string(PageBacking::small), "4k");
    EXPECT_EQ(to_string(PageBacking::mixed), "mixed");
    EXPECT_EQ(to_string(PageBacking::unknown), "");
}

}  // namespace
}  // namespace shootout
