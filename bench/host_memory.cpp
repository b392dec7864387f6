#include "bench/host_memory.hpp"

namespace shootout {

std::string_view to_string(PageBacking backing) {
    switch (backing) {
        case PageBacking::huge: return "huge";
        case PageBacking::small: return "4k";
        case PageBacking::mixed: return "mixed";
        case PageBacking::unknown: return "";
    }
    return "";
}

}  // namespace shootout
