// Input memory: page-aligned mappings with transparent huge pages requested, and what backs them.
#include "platform/memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "bench/inputs.hpp"

namespace shootout {
namespace {

TEST(HostMemory, RegionIsHugePageAlignedRoundedUpAndZero) {
    const platform::HugePageRegion region(3 * platform::kHugePage + 5);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(region.data()) % platform::kHugePage, 0u);
    EXPECT_EQ(region.size(), 4 * platform::kHugePage);
    EXPECT_TRUE(std::all_of(region.data(), region.data() + region.size(), [](std::byte b) { return b == std::byte{0}; }));
    EXPECT_EQ(platform::HugePageRegion(0).data(), nullptr);
}

TEST(HostMemory, InputArraysStartOnAPage) {
    const HostArray values(1000);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.span().data()) % platform::kHugePage, 0u);
}

TEST(HostMemory, UntouchedMemoryHasNoBacking) {
    const platform::HugePageRegion region(platform::kHugePage);
    EXPECT_EQ(platform::page_backing(region.data()), platform::PageBacking::unknown);
}

TEST(HostMemory, HugePagesAreGrantedWhereTheKernelOffersThem) {
    if (!platform::huge_pages_available())
        GTEST_SKIP() << "no huge pages here (Linux: /sys/kernel/mm/transparent_hugepage/enabled is 'never'; Windows: no Lock pages in memory privilege)";
    platform::HugePageRegion region(8 * platform::kHugePage);
    std::memset(region.data(), 1, region.size());
    EXPECT_EQ(platform::page_backing(region.data()), platform::PageBacking::huge);
    EXPECT_EQ(platform::page_backing(region.data() + region.size() - 1), platform::PageBacking::huge);
}

TEST(HostMemory, OrdinaryHeapMemoryIsDescribedToo) {
    std::vector<char> heap(1 << 16, 1);
    EXPECT_NE(platform::page_backing(heap.data()), platform::PageBacking::unknown);
}

TEST(HostMemory, BackingNamesAreTheCsvValues) {
    EXPECT_EQ(to_string(platform::PageBacking::huge), "huge");
    EXPECT_EQ(to_string(platform::PageBacking::small), "4k");
    EXPECT_EQ(to_string(platform::PageBacking::mixed), "mixed");
    EXPECT_EQ(to_string(platform::PageBacking::unknown), "");
}

}  // namespace
}  // namespace shootout
