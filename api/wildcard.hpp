// Shell-style wildcards, as POSIX fnmatch() with no flags reads them, in portable C++ (Windows' C
// library has no fnmatch): '*' any run of characters, '/' included; '?' one character; "[a-c]" one of
// a set, "[!a-c]" or "[^a-c]" one outside it; '\' takes the next character literally.
#pragma once

#include <string_view>

namespace shootout {

namespace detail {
// Whether c is in the set that starts after '[' at pattern[0]; `length` receives the set's length
// through its ']'. false with length 0 when the set is not closed: then '[' is literal.
inline bool in_set(std::string_view pattern, char c, std::size_t& length) {
    std::size_t i = 0;
    const bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
    if (negated) ++i;
    bool found = false;
    for (bool first = true; i < pattern.size(); first = false) {
        if (pattern[i] == ']' && !first) {
            length = i + 1;
            return found != negated;
        }
        const char low = pattern[i];
        if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
            found = found || (low <= c && c <= pattern[i + 2]);
            i += 3;
        } else {
            found = found || c == low;
            ++i;
        }
    }
    length = 0;
    return false;
}
}  // namespace detail

// Whether the whole of name matches pattern.
inline bool wildcard_match(std::string_view pattern, std::string_view name) {
    std::size_t p = 0, n = 0;
    std::size_t star = std::string_view::npos, resume = 0;  // the last '*' and where its match ends
    while (n < name.size()) {
        if (p < pattern.size()) {
            const char c = pattern[p];
            if (c == '*') {
                star = p++;
                resume = n;
                continue;
            }
            std::size_t set_length = 0;
            if (c == '[') {
                const bool in = detail::in_set(pattern.substr(p + 1), name[n], set_length);
                if (set_length > 0 && in) {
                    p += 1 + set_length;
                    ++n;
                    continue;
                }
            }
            if (set_length == 0) {
                const bool escaped = c == '\\' && p + 1 < pattern.size();
                const char literal = escaped ? pattern[p + 1] : c;
                if (c == '?' || literal == name[n]) {
                    p += escaped ? 2 : 1;
                    ++n;
                    continue;
                }
            }
        }
        if (star == std::string_view::npos) return false;
        p = star + 1;  // let the last '*' take one more character
        n = ++resume;
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

}  // namespace shootout
