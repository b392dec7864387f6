// Host memory for the arrays that are summed (platform/memory.hpp), under the names the harness
// uses, and the CSV's word for what backs it.
#pragma once

#include <string_view>

#include "platform/memory.hpp"

namespace shootout {

using platform::HugePageRegion;
using platform::huge_pages_available;
using platform::kHugePage;
using platform::kSmallPage;
using platform::page_backing;
using platform::PageBacking;

// The CSV's `pages` value: "huge", "4k", "mixed"; "" for unknown.
std::string_view to_string(PageBacking backing);

}  // namespace shootout
