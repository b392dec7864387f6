// libFuzzer target: parse_npy_header() on any text, as the header of a format 1 and of a format 3
// file. A header is refused with NpyHeaderError or read; a header read has a shape whose product is
// its value count, and written back as NumPy writes it (npy_header_text) reads back to the same
// descr, order and shape. Anything else (a crash, another exception, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/npy_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view dict(reinterpret_cast<const char*>(data), size);
    for (const int version : {1, 3}) {
        try {
            const shootout::NpyHeader header = shootout::parse_npy_header(dict, version);
            std::uint64_t values = 1;
            for (const std::uint64_t extent : header.shape) values *= extent;
            if (values != header.values) __builtin_trap();
            const shootout::NpyHeader again = shootout::parse_npy_header(shootout::npy_header_text(header), version);
            if (again.descr != header.descr || again.fortran_order != header.fortran_order || again.shape != header.shape)
                __builtin_trap();
        } catch (const shootout::NpyHeaderError&) {
        }
    }
    return 0;
}
