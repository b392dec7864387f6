// The header of an .npy file, read as NumPy's own reader reads it (numpy/lib/format.py,
// _read_array_header: ast.literal_eval of the text, then its checks): a Python dict literal with
// exactly the keys 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple of whole
// numbers), in single or double quotes, with whitespace and trailing commas where Python takes them,
// and, in format versions 1 and 2, Python 2's 'L' after a number. Beyond NumPy: a key given twice is
// refused (Python keeps the last value, a reader that keeps the first would sum other data), and
// strings with backslash escapes, and numbers other than plain decimal ones, are not read.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace shootout {

struct NpyHeader {
    std::string descr;  // "<f4"
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
    std::uint64_t values = 1;  // the product of shape
    std::string shape_text;    // the tuple as written, "(2, 3)", for messages
};

// What is wrong with a header, in words that follow "the .npy header ".
class NpyHeaderError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The header's dict (the text after the length field) of a file of format `major_version`.
// Throws NpyHeaderError.
NpyHeader parse_npy_header(std::string_view dict, int major_version);

// The dict as NumPy writes it: "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".
std::string npy_header_text(const NpyHeader& header);

}  // namespace shootout
