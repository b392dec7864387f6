#include "report/utf8.hpp"

#include <cstdio>

namespace shootout {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char second_low = 0x80, second_high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead == 0xe0) length = 3, second_low = 0xa0;
    else if (lead >= 0xe1 && lead <= 0xef) length = 3, second_high = lead == 0xed ? 0x9f : 0xbf;
    else if (lead == 0xf0) length = 4, second_low = 0x90;
    else if (lead >= 0xf1 && lead <= 0xf3) length = 4;
    else if (lead == 0xf4) length = 4, second_high = 0x8f;
    else return 0;
    if (i + length > text.size() || byte(i + 1) < second_low || byte(i + 1) > second_high) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
    return length;
}

std::string valid_utf8(std::string_view text) {
    std::string valid;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8_sequence_length(text, i);
        valid.append(length ? text.substr(i, length) : std::string_view("\xef\xbf\xbd"));  // U+FFFD
        i += length ? length : 1;
    }
    return valid;
}

std::string escape_name(std::string_view name) {
    std::string escaped;
    for (std::size_t i = 0; i < name.size();) {
        const auto c = static_cast<unsigned char>(name[i]);
        const std::size_t length = utf8_sequence_length(name, i);
        if (c == '\\') {
            escaped += "\\\\";
        } else if (length == 0 || c < 0x20 || c == 0x7f) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(c));
            escaped += escape;
        } else {
            escaped.append(name.substr(i, length));
            i += length;
            continue;
        }
        ++i;
    }
    return escaped;
}

}  // namespace shootout
