// Primitives of opencl/exact (the layer of cuda/primitives/exact_digits.cuh): the superaccumulator
// digits of exact/exact_accumulator.hpp in OpenCL C, and a work-item's total as integer terms at
// known powers of two. The number X, in units of the digits' format's smallest subnormal (2^-149 for
// floats and the 16-bit types, whose every value is a float; 2^-1074 for doubles), is kept as DIGITS
// signed 64-bit digits, X = sum digit[k] 2^(32 k): a value adds pieces below 2^32 to at most three
// digits, and normalize() carries. The rule every level follows: a value leaves its format only as
// integers at known powers of two, so every later addition is an integer one, exact in any order.

#define DIGIT_BITS 32
#define NAN_SEEN 1u
#define PLUS_INFINITY 2u
#define MINUS_INFINITY 4u

#if ELEMENT_F64
#define UNIT_EXPONENT (-1074)
#else
#define UNIT_EXPONENT (-149)
#endif

// Adds magnitude 2^p (p counted from the unit), negated if `negative`, in 32-bit pieces.
void add_scaled(long* digits, ulong magnitude, int p, int negative) {
    const int k = p / DIGIT_BITS, shift = p % DIGIT_BITS;
    const ulong low = magnitude << shift, high = shift != 0 ? magnitude >> (64 - shift) : 0;
    const long s = -(long)(negative != 0);
    digits[k] += ((long)(low & 0xffffffffUL) ^ s) - s;
    digits[k + 1] += ((long)(low >> 32) ^ s) - s;
    if (high != 0) digits[k + 2] += ((long)high ^ s) - s;
}

// The special value a float is (by its bits), else 0.
uint float_special(uint bits) {
    if ((bits & 0x7f800000u) != 0x7f800000u) return 0;
    return (bits & 0x7fffffu) != 0 ? NAN_SEEN : (bits >> 31) != 0 ? MINUS_INFINITY : PLUS_INFINITY;
}

// Adds one float, given by its bits; returns the special value it is, else 0 (adding nothing).
uint add_float(long* digits, uint bits) {
    const uint biased = (bits >> 23) & 0xffu, fraction = bits & 0x7fffffu;
    if (biased == 0xffu) return float_special(bits);
    add_scaled(digits, fraction | (biased != 0 ? 0x800000u : 0u), biased != 0 ? (int)biased - 1 : 0, bits >> 31);
    return 0;
}

// Adds one double, given by its bits.
uint add_double(long* digits, ulong bits) {
    const ulong biased = (bits >> 52) & 0x7ffUL, fraction = bits & 0xfffffffffffffUL;
    const int negative = bits >> 63;
    if (biased == 0x7ffUL) return fraction != 0 ? NAN_SEEN : negative ? MINUS_INFINITY : PLUS_INFINITY;
    add_scaled(digits, fraction | (biased != 0 ? 0x10000000000000UL : 0UL), biased != 0 ? (int)biased - 1 : 0, negative);
    return 0;
}

// Adds value 2^lsb.
void add_fixed(long* digits, long value, int lsb) {
    const ulong magnitude = value < 0 ? 0 - (ulong)value : (ulong)value;
    add_scaled(digits, magnitude, lsb - UNIT_EXPONENT, value < 0);
}

// Carries, so that every digit but the top one is in [0, 2^32); X is unchanged. Kept a loop (as is
// the negation below): unrolled, NVIDIA's compiler loads all 67 of a double's digits at once, and
// those registers cap the whole kernel's occupancy for a step that is off the fast path.
void normalize(long* digits) {
#pragma unroll 1
    for (int k = 0; k + 1 < DIGITS; ++k) {
        const long carry = digits[k] >> DIGIT_BITS;
        digits[k] &= 0xffffffffL;
        digits[k + 1] += carry;
    }
}

// X correctly rounded to double, to nearest with ties to even, as the double's bits (a port of
// exact::round_to_double).
ulong round_to_double(long* x, uint specials) {
    if ((specials & NAN_SEEN) || ((specials & PLUS_INFINITY) && (specials & MINUS_INFINITY))) return 0x7ff8000000000000UL;
    if (specials & PLUS_INFINITY) return 0x7ff0000000000000UL;
    if (specials & MINUS_INFINITY) return 0xfff0000000000000UL;
    normalize(x);
    const int negative = x[DIGITS - 1] < 0;
    if (negative) {
#pragma unroll 1
        for (int k = 0; k < DIGITS; ++k) x[k] = -x[k];
        normalize(x);
    }
    int top = DIGITS - 1;
    while (top >= 0 && x[top] == 0) --top;
    if (top < 0) return 0;
    const int leading = top * DIGIT_BITS + 63 - (int)clz((ulong)x[top]);
    const int subnormal_lsb = -1074 - UNIT_EXPONENT;
    const int kept = leading - 52 > subnormal_lsb ? leading - 52 : subnormal_lsb;
    const int lowest = leading - 63;
    ulong head = 0;
    int sticky = 0;
    for (int k = 0; k <= top; ++k) {
        const ulong d = (ulong)x[k];
        const int at = k * DIGIT_BITS - lowest;
        if (at >= 0) head |= at < 64 ? d << at : 0;
        else {
            head |= -at < 64 ? d >> -at : 0;
            sticky |= (-at < 64 ? d & ((1UL << -at) - 1) : d) != 0;
        }
    }
    const int drop = kept - lowest;
    ulong significand = head >> drop;
    const int round_bit = (head >> (drop - 1)) & 1UL;
    sticky |= (head & ((1UL << (drop - 1)) - 1)) != 0;
    int exponent = kept + UNIT_EXPONENT;
    if (round_bit && (sticky || (significand & 1UL))) {
        if (++significand == 1UL << 53) {
            significand >>= 1;
            ++exponent;
        }
    }
    const ulong sign = negative ? 1UL << 63 : 0;
    if (significand < 1UL << 52) return sign | significand;
    if (exponent + 52 > 1023) return sign | 0x7ff0000000000000UL;
    return sign | (ulong)(exponent + 52 + 1023) << 52 | (significand & ((1UL << 52) - 1));
}

// A work-item's total when its part is added: ITEM_TERMS signed integers (the thread level's, zeros
// past those it uses), term j worth value[j] 2^p[j] (p counted from the unit), and, if digits_used,
// its digits (normalized); the specials it saw.
#define ITEM_TERMS 4
typedef struct {
    long value[ITEM_TERMS];
    int p[ITEM_TERMS];
    uint specials;
    int digits_used;
} ItemTotal;

// Bits [32 d, 32 d + 32) of |value| 2^p, with value's sign; the top digit takes every bit from 32 d
// up. Summed over d, times 2^(32 d), they give value 2^p exactly (cuda/primitives/exact_digits.cuh's
// digit_piece).
long digit_piece(long value, int p, int d) {
    if (value == 0) return 0;
    const ulong magnitude = value < 0 ? 0 - (ulong)value : (ulong)value;
    const int shift = p - d * DIGIT_BITS;
    ulong bits = shift >= 0 ? (shift < 64 ? magnitude << shift : 0) : (shift > -64 ? magnitude >> -shift : 0);
    if (d + 1 < DIGITS) bits &= 0xffffffffUL;
    return value < 0 ? -(long)bits : (long)bits;
}

// The digits an item's total reaches: [*lo, *hi], empty (lo > hi) for a zero total.
void item_digit_range(const ItemTotal* t, int* lo, int* hi) {
    *lo = t->digits_used ? 0 : DIGITS;
    *hi = t->digits_used ? DIGITS - 1 : -1;
    for (int j = 0; j < ITEM_TERMS; ++j) {
        if (t->value[j] == 0) continue;
        const ulong magnitude = t->value[j] < 0 ? 0 - (ulong)t->value[j] : (ulong)t->value[j];
        *lo = min(*lo, t->p[j] / DIGIT_BITS);
        *hi = max(*hi, min((t->p[j] + 63 - (int)clz(magnitude)) / DIGIT_BITS, DIGITS - 1));
    }
}

// An item's total's part of digit d (0 past the top): below 2^34 in magnitude but in the top digit.
long item_digit(const ItemTotal* t, const long* digits, int d) {
    if (d >= DIGITS) return 0;
    long s = t->digits_used ? digits[d] : 0;
    for (int j = 0; j < ITEM_TERMS; ++j) s += digit_piece(t->value[j], t->p[j], d);
    return s;
}
