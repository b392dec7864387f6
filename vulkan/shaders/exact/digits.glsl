// Digit level of vulkan/exact: exact/exact_accumulator.hpp's superaccumulator in GLSL, so that every
// exact backend returns the same bits. The number X, in units of 2^UNIT_EXPONENT (the format's
// smallest subnormal), is DIGITS signed 64-bit digits, X = sum digit[k] 2^(32 k): a value adds pieces
// below 2^32 to at most three digits, and normalize() carries. Values leave their format only as
// integers read from their bits, so a device that flushes subnormals cannot change a sum. The
// including shader defines DIGITS and UNIT_EXPONENT.

const int kDigitBits = 32;
const uint kNan = 1u, kPlusInfinity = 2u, kMinusInfinity = 4u;

// This invocation's digits, zeroed on first use (most invocations never touch them).
int64_t digits[DIGITS];
bool digits_used = false;

void use_digits() {
    if (digits_used) return;
    for (int k = 0; k < DIGITS; ++k) digits[k] = 0;
    digits_used = true;
}

// Adds magnitude 2^p (p counted from the unit), negated if `negative`, in 32-bit pieces to digits
// p / 32, p / 32 + 1 and, when the shifted magnitude passes 64 bits, p / 32 + 2.
void add_scaled(uint64_t magnitude, int p, bool negative) {
    use_digits();
    const int k = p / kDigitBits, shift = p % kDigitBits;
    const uint64_t low = magnitude << shift, high = shift != 0 ? magnitude >> (64 - shift) : 0ul;
    const int64_t s = negative ? -1l : 0l;
    digits[k] += (int64_t(low & 0xfffffffful) ^ s) - s;
    digits[k + 1] += (int64_t(low >> 32) ^ s) - s;
    if (high != 0ul) digits[k + 2] += (int64_t(high) ^ s) - s;
}

// A finite float32, given by its bits, as its integer significand and p (counted from 2^-149).
void float_parts(uint bits, out uint64_t m, out int p) {
    const uint biased = (bits >> 23) & 0xffu;
    m = uint64_t((bits & 0x7fffffu) | (biased != 0u ? 0x800000u : 0u));
    p = biased != 0u ? int(biased) - 1 : 0;
}
// Adds one float32 given by its bits; returns the special value it is (NaN, +Inf, -Inf), else 0, and
// then adds nothing.
uint add_float_bits(uint bits) {
    if ((bits & 0x7f800000u) == 0x7f800000u) return (bits & 0x7fffffu) != 0u ? kNan : (bits >> 31) != 0u ? kMinusInfinity : kPlusInfinity;
    uint64_t m;
    int p;
    float_parts(bits, m, p);
    if (m != 0ul) add_scaled(m, p, (bits >> 31) != 0u);
    return 0u;
}
// Adds value 2^lsb (value != 0, lsb at or above the unit).
void add_fixed(int64_t value, int lsb) {
    add_scaled(value < 0 ? uint64_t(-value) : uint64_t(value), lsb - UNIT_EXPONENT, value < 0);
}

// Carries, so that every digit but the top one is in [0, 2^32); X is unchanged.
void normalize() {
    for (int k = 0; k + 1 < DIGITS; ++k) {
        const int64_t carry = digits[k] >> kDigitBits;
        digits[k] &= 0xffffffffl;
        digits[k + 1] += carry;
    }
}

// Bits [32 d, 32 d + 32) of |value| 2^p (p counted from the unit), with value's sign; the top digit
// takes every bit from 32 d up (cuda/primitives/exact_digits.cuh's digit_piece).
int64_t digit_piece(int64_t value, int p, int d) {
    const uint64_t magnitude = value < 0 ? uint64_t(-value) : uint64_t(value);
    const int shift = p - d * kDigitBits;
    uint64_t bits = shift >= 0 ? (shift < 64 ? magnitude << shift : 0ul) : (shift > -64 ? magnitude >> -shift : 0ul);
    if (d + 1 < DIGITS) bits &= 0xfffffffful;
    return value < 0 ? -int64_t(bits) : int64_t(bits);
}

int leading_zeros(uint64_t x) {  // x != 0
    const uvec2 halves = unpackUint2x32(x);
    return halves.y != 0u ? 31 - findMSB(halves.y) : 63 - findMSB(halves.x);
}

// X (the digits) correctly rounded to double, to nearest with ties to even, as the double's bits
// (exact::round_to_double); NaN if a NaN or both infinities were added, else the infinity if one was.
uint64_t round_to_double(uint specials) {
    if ((specials & kNan) != 0u || ((specials & kPlusInfinity) != 0u && (specials & kMinusInfinity) != 0u)) return 0x7ff8000000000000ul;
    if ((specials & kPlusInfinity) != 0u) return 0x7ff0000000000000ul;
    if ((specials & kMinusInfinity) != 0u) return 0xfff0000000000000ul;
    normalize();
    const bool negative = digits[DIGITS - 1] < 0;
    if (negative) {
        for (int k = 0; k < DIGITS; ++k) digits[k] = -digits[k];
        normalize();
    }
    int top = DIGITS - 1;
    while (top >= 0 && digits[top] == 0) --top;
    if (top < 0) return 0ul;
    const int leading = top * kDigitBits + 63 - leading_zeros(uint64_t(digits[top]));
    const int subnormal_lsb = -1074 - UNIT_EXPONENT;
    const int kept = max(leading - 52, subnormal_lsb);
    const int lowest = leading - 63;
    uint64_t head = 0ul;
    bool sticky = false;
    for (int k = 0; k <= top; ++k) {
        const uint64_t d = uint64_t(digits[k]);
        const int at = k * kDigitBits - lowest;
        if (at >= 0) {
            head |= at < 64 ? d << at : 0ul;
        } else {
            head |= -at < 64 ? d >> -at : 0ul;
            sticky = sticky || (-at < 64 ? d & ((1ul << -at) - 1ul) : d) != 0ul;
        }
    }
    const int drop = kept - lowest;  // in [11, 63]
    uint64_t significand = head >> drop;
    const bool round_bit = ((head >> (drop - 1)) & 1ul) != 0ul;
    sticky = sticky || (head & ((1ul << (drop - 1)) - 1ul)) != 0ul;
    int exponent = kept + UNIT_EXPONENT;
    if (round_bit && (sticky || (significand & 1ul) != 0ul)) {
        if (++significand == 1ul << 53) {
            significand >>= 1;
            ++exponent;
        }
    }
    const uint64_t sign = negative ? 1ul << 63 : 0ul;
    if (significand < 1ul << 52) return sign | significand;
    if (exponent + 52 > 1023) return sign | 0x7ff0000000000000ul;
    return sign | uint64_t(exponent + 52 + 1023) << 52 | (significand & ((1ul << 52) - 1ul));
}
