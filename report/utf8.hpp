// Text as the result files carry it: valid UTF-8, so that every reader (pandas, a browser, a JSON
// parser) takes the whole file, whatever bytes a file name, a host or a driver's device name holds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shootout {

// The length of the well-formed UTF-8 sequence that starts at text[i] (Unicode's table 3-7), or 0
// when none does: a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// text with each byte that is not part of valid UTF-8 replaced by U+FFFD: what the CSV and the JSON
// write for a text field (the same text in both).
std::string valid_utf8(std::string_view text);

// A name (a file's path) as one line of valid UTF-8 that gives the name back: a backslash is
// written "\\", and each control character (below 0x20, and 0x7f) and each byte that is not part of
// valid UTF-8 "\xNN" (two lowercase hex digits). Names of printable UTF-8 without a backslash stay
// as they are; two names never share an escape.
std::string escape_name(std::string_view name);

}  // namespace shootout
