#include "bench/npy_header.hpp"

#include <optional>

namespace shootout {

namespace {

// Python's whitespace between the tokens of a bracketed expression.
constexpr std::string_view kSpace = " \t\n\r\f";

// One pass over the dict literal, left to right; each step fails naming what it found.
class DictReader {
public:
    DictReader(std::string_view text, int major_version) : text_(text), python2_numbers_(major_version < 3) {}

    NpyHeader read() {
        std::optional<std::string> descr;
        std::optional<bool> fortran_order;
        std::optional<NpyHeader> shape;
        expect('{', "does not start with a dict ('{')");
        while (!take('}')) {
            const std::string key = string_literal("a key");
            expect(':', "has no ':' after '" + key + "'");
            skip_space();
            if (key == "descr") set(descr, string_literal("'descr'"), key);
            else if (key == "fortran_order") set(fortran_order, boolean(), key);
            else if (key == "shape") set(shape, tuple(), key);
            else fail("holds the key '" + key + "'; NumPy's hold only 'descr', 'fortran_order' and 'shape'");
            if (take('}')) break;
            expect(',', "has no ',' or '}' after the value of '" + key + "'");
        }
        skip_space();
        if (at_ != text_.size()) fail("goes on after its dict's '}'");
        if (!descr) fail("has no 'descr'");
        if (!fortran_order) fail("has no 'fortran_order'");
        if (!shape) fail("has no 'shape'");
        NpyHeader header = std::move(*shape);
        header.descr = std::move(*descr);
        header.fortran_order = *fortran_order;
        return header;
    }

private:
    [[noreturn]] static void fail(const std::string& what) { throw NpyHeaderError(what); }

    void skip_space() {
        while (at_ < text_.size() && kSpace.find(text_[at_]) != std::string_view::npos) ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ == text_.size() || text_[at_] != c) return false;
        ++at_;
        return true;
    }
    void expect(char c, const std::string& what) {
        if (!take(c)) fail(what);
    }

    template <class T>
    static void set(std::optional<T>& slot, T value, const std::string& key) {
        if (slot) fail("gives '" + key + "' twice");
        slot = std::move(value);
    }

    // 'text' or "text", without backslash escapes or line breaks.
    std::string string_literal(const std::string& what) {
        skip_space();
        const char quote = at_ < text_.size() ? text_[at_] : '\0';
        if (quote != '\'' && quote != '"') fail("has " + what + " that is not a quoted string");
        for (std::size_t end = at_ + 1; end < text_.size(); ++end) {
            if (text_[end] == '\\') fail("has " + what + " with a backslash escape, which this reader does not take");
            if (text_[end] == '\n' || text_[end] == '\r') break;
            if (text_[end] == quote) {
                std::string value(text_.substr(at_ + 1, end - at_ - 1));
                at_ = end + 1;
                return value;
            }
        }
        fail("has " + what + " whose string does not end on its line");
    }

    bool boolean() {
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
            if (text_.substr(at_, word.size()) == word && !identifier_character(at_ + word.size())) {
                at_ += word.size();
                return value;
            }
        fail("has a 'fortran_order' that is not True or False");
    }

    bool identifier_character(std::size_t i) const {
        if (i >= text_.size()) return false;
        const char c = text_[i];
        return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    // "()", "(3,)", "(2, 3)", "(2, 3,)": the shape, its product, and its text. "(3)" is a number in
    // Python, not a tuple, and NumPy refuses it.
    NpyHeader tuple() {
        const std::size_t start = at_;
        const std::size_t close = text_.find(')', start);
        const std::string text(text_.substr(start, close == std::string_view::npos ? std::string_view::npos : close + 1 - start));
        const std::string refusal = "has a shape " + text + " that is not a tuple of sizes";
        NpyHeader header;
        header.shape_text = text;
        if (!take('(')) fail(refusal);
        bool comma = false;
        while (!take(')')) {
            skip_space();
            const std::optional<std::uint64_t> extent = whole_number();
            if (!extent) fail(refusal);
            if (__builtin_mul_overflow(header.values, *extent, &header.values)) fail("has a shape " + text + " of more than 2^64 values");
            header.shape.push_back(*extent);
            comma = take(',');
            if (!comma) {
                if (!take(')')) fail(refusal);
                break;
            }
        }
        if (header.shape.size() == 1 && !comma) fail(refusal + " (a tuple of one is written (N,))");
        return header;
    }

    // A decimal integer as Python writes one: no leading zeros (but 0 itself), '_' between digits,
    // and in versions 1 and 2 an 'L' after it (NumPy's _filter_header drops it).
    std::optional<std::uint64_t> whole_number() {
        const std::size_t start = at_;
        std::uint64_t value = 0;
        bool digit_last = false;
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c >= '0' && c <= '9') {
                if (__builtin_mul_overflow(value, 10u, &value) || __builtin_add_overflow(value, static_cast<unsigned>(c - '0'), &value))
                    return std::nullopt;
                digit_last = true;
            } else if (c == '_' && digit_last) {
                digit_last = false;
            } else {
                break;
            }
            ++at_;
        }
        if (!digit_last || (text_[start] == '0' && value != 0)) return std::nullopt;
        if (python2_numbers_ && at_ < text_.size() && text_[at_] == 'L') ++at_;
        if (identifier_character(at_)) return std::nullopt;
        return value;
    }

    std::string_view text_;
    std::size_t at_ = 0;
    bool python2_numbers_;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view dict, int major_version) { return DictReader(dict, major_version).read(); }

std::string npy_header_text(const NpyHeader& header) {
    const char quote = header.descr.find('\'') == std::string::npos ? '\'' : '"';  // as Python's repr() picks
    std::string shape;
    for (const std::uint64_t extent : header.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
    if (header.shape.size() == 1) shape += ',';
    return std::string("{'descr': ") + quote + header.descr + quote + ", 'fortran_order': " + (header.fortran_order ? "True" : "False") + ", 'shape': (" +
           shape + "), }";
}

}  // namespace shootout
