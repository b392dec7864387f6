// The exact sum of floats or doubles in one launch, rounded once to double: exact/exact_accumulator.hpp's
// algorithm (the one the CPU and CUDA exact backends share) in OpenCL C, so that every backend
// returns the same bits. The number X, in units of the format's smallest subnormal, is kept as
// DIGITS signed 64-bit digits, X = sum digit[k] 2^(32 k): a value adds pieces below 2^32 to at most
// three digits, and normalize() carries. Integer additions are associative, so no launch shape or
// order of work-groups changes the result. Build options:
//   ELEMENT_F64  1: the input is doubles, read as their bits (the kernel needs no cl_khr_fp64);
//                0: floats (opencl/runtime/element_dispatch.hpp)
//   LOADS        16-byte loads a work-item keeps in flight (floats)
//   DIGITS       10 for floats, 67 for doubles (exact::kDigits)
//
//  1. Each work-item adds its grid-stride share into its own digits (private memory). Floats take
//     cuda/exact's fast path: inside the work-item's fixed-point window a float is an integer
//     multiple of 2^lsb, added to a 64-bit total with a multiply and a conversion; once per round of
//     256 floats the total is folded into the digits. Windows are tested on the bits of |x|, so a
//     device that flushes subnormals cannot drop one.
//  2. The work-group sums each normalized digit over its work-items and writes them, with the special
//     values seen, to its slot of `partial`; then it takes a ticket.
//  3. The work-group that draws the last ticket sums the slots digit by digit, rounds, writes the
//     double's bits to *out and resets the ticket.

#ifndef ELEMENT_F64
#error "ELEMENT_F64 is a build option: opencl/runtime/element_dispatch.hpp"
#endif

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

// Adds one float, given by its bits; returns the special value it is, else 0.
uint add_float(long* digits, uint bits) {
    const uint biased = (bits >> 23) & 0xffu, fraction = bits & 0x7fffffu;
    const int negative = bits >> 31;
    if (biased == 0xffu) return fraction != 0 ? NAN_SEEN : negative ? MINUS_INFINITY : PLUS_INFINITY;
    add_scaled(digits, fraction | (biased != 0 ? 0x800000u : 0u), biased != 0 ? (int)biased - 1 : 0, negative);
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

// Carries, so that every digit but the top one is in [0, 2^32); X is unchanged.
void normalize(long* digits) {
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

#if !ELEMENT_F64
// The fixed-point window (exact::Window, the constants of cuda/primitives/exact_digits.cuh):
// integers below 2^53, lsb from -126 up, so that 2^-lsb is a float; [lo, hi) as the bits of |x|.
#define WINDOW_TOP_BIT 53
#define WINDOW_LOWEST_LSB (-126)
#define WINDOW_HIGHEST_LSB 104
#define WINDOW_BINADES (WINDOW_TOP_BIT - 23)
// Loop passes per round: a round is 256 floats whatever LOADS is, and at most 256 + 4 (LOADS - 1) + 1
// floats (< 2^9) are added between folds, so a total stays below 2^62.
#define PASSES_PER_ROUND (64 / LOADS)
#define ROUNDS_PER_NORMALIZE (1u << 16)

typedef struct {
    uint lo, hi;  // bits of |x|: lo <= |x| < hi is inside
    float scale;  // 2^-lsb
    int lsb;
} Window;

// The lowest window whose top is above |x| (bits of |x|, 0 or +Inf), its lsb from -126 to 104.
Window window_for(uint magnitude) {
    int lsb = (int)(magnitude >> 23) - 126 - WINDOW_TOP_BIT;
    lsb = clamp(lsb, WINDOW_LOWEST_LSB, WINDOW_HIGHEST_LSB);
    const int top = lsb + WINDOW_TOP_BIT;
    Window w;
    w.lo = (uint)(lsb + 23 + 127) << 23;
    w.hi = top >= 128 ? 0x7f800000u : (uint)(top + 127) << 23;
    w.scale = as_float((uint)(127 - lsb) << 23);
    w.lsb = lsb;
    return w;
}

typedef struct {
    long digits[DIGITS];
    Window window;
    long total, total_below;  // the window's and the window below's integers since the last fold
    uint specials, rounds;
} FloatSum;

void fold(FloatSum* s) {
    if (s->total != 0) add_fixed(s->digits, s->total, s->window.lsb);
    if (s->total_below != 0) add_fixed(s->digits, s->total_below, s->window.lsb - WINDOW_BINADES);
    s->total = s->total_below = 0;
}

int add_inside(FloatSum* s, float x) {
    const uint magnitude = as_uint(x) & 0x7fffffffu;
    const int inside = magnitude >= s->window.lo && magnitude < s->window.hi;
    if (inside) s->total += convert_long(x * s->window.scale);  // exact: an integer below 2^53
    return inside;
}

int add_inside4(FloatSum* s, float4 v) {
    return add_inside(s, v.x) & add_inside(s, v.y) & add_inside(s, v.z) & add_inside(s, v.w);
}

// A float outside the window: into the window below it if it fits there, else into the digits; one
// above the window also moves the window up to it.
void add_outside(FloatSum* s, float x) {
    const uint magnitude = as_uint(x) & 0x7fffffffu;
    if (magnitude == 0) return;
    if (s->window.lsb - WINDOW_BINADES >= WINDOW_LOWEST_LSB && magnitude < s->window.lo &&
        magnitude >= s->window.lo - ((uint)WINDOW_BINADES << 23)) {
        s->total_below += convert_long(x * (s->window.scale * 0x1p30f));  // exact
        return;
    }
    s->specials |= add_float(s->digits, as_uint(x));
    if (magnitude >= s->window.hi && magnitude < 0x7f800000u) {
        fold(s);
        s->window = window_for(magnitude);
    }
}

void add_missed(FloatSum* s, float x, Window used) {
    const uint magnitude = as_uint(x) & 0x7fffffffu;
    if (!(magnitude >= used.lo && magnitude < used.hi)) add_outside(s, x);
}

void add_missed4(FloatSum* s, float4 v, Window used) {
    add_missed(s, v.x, used);
    add_missed(s, v.y, used);
    add_missed(s, v.z, used);
    add_missed(s, v.w, used);
}

// This work-item's share of in[0..n) into its digits (normalized); returns its specials.
uint add_thread_part(global const float* in, ulong n, long* digits_out) {
    FloatSum s;
    for (int k = 0; k < DIGITS; ++k) s.digits[k] = 0;
    s.window = window_for(0);
    s.total = s.total_below = 0;
    s.specials = s.rounds = 0;
    const ulong thread = get_global_id(0), threads = get_global_size(0);
    global const float4* body = (global const float4*)in;
    const ulong vectors = n / 4;
    ulong i = thread;
    while (i + (LOADS - 1) * threads < vectors) {
        for (int pass = 0; pass < PASSES_PER_ROUND && i + (LOADS - 1) * threads < vectors; ++pass, i += LOADS * threads) {
            float4 v[LOADS];
            for (int k = 0; k < LOADS; ++k) v[k] = body[i + k * threads];
            const Window used = s.window;
            int inside = 1;
            for (int k = 0; k < LOADS; ++k) inside &= add_inside4(&s, v[k]);
            if (!inside)
                for (int k = 0; k < LOADS; ++k) add_missed4(&s, v[k], used);
        }
        fold(&s);
        if (++s.rounds % ROUNDS_PER_NORMALIZE == 0) normalize(s.digits);
    }
    for (; i < vectors; i += threads) {
        const float4 v = body[i];
        const Window used = s.window;
        if (!add_inside4(&s, v)) add_missed4(&s, v, used);
    }
    if (thread < n % 4) {
        const float x = in[4 * vectors + thread];
        if (!add_inside(&s, x)) add_outside(&s, x);
    }
    fold(&s);
    normalize(s.digits);
    for (int k = 0; k < DIGITS; ++k) digits_out[k] = s.digits[k];
    return s.specials;
}
typedef float Element;
#else
// A double adds at most once to a digit: normalizing every 2^20 keeps the digits far below 2^63.
#define DOUBLES_PER_NORMALIZE (1u << 20)

uint add_thread_part(global const ulong* in, ulong n, long* digits) {
    for (int k = 0; k < DIGITS; ++k) digits[k] = 0;
    uint specials = 0, added = 0;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        specials |= add_double(digits, in[i]);
        if (++added % DOUBLES_PER_NORMALIZE == 0) normalize(digits);
    }
    normalize(digits);
    return specials;
}
typedef ulong Element;
#endif

// The sum of x over the work-group, valid in work-item 0. get_local_size(0) a power of two.
long group_sum(long x, local long* scratch) {
    const uint item = get_local_id(0);
    scratch[item] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = get_local_size(0) / 2; width > 0; width /= 2) {
        if (item < width) scratch[item] += scratch[item + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

// partial: DIGITS + 1 longs per work-group (its digits, then its specials). Normalized digits are
// below 2^32, so the sums over a group's work-items and over every group stay far below 2^63.
kernel void exact_sum(global const Element* in, ulong offset, ulong n, volatile global long* partial,
                      volatile global uint* ticket, global ulong* out, local long* scratch) {
    local uint specials, last;
    const uint item = get_local_id(0);
    if (item == 0) specials = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    long digits[DIGITS];
    const uint mine = add_thread_part(in + offset, n, digits);
    if (mine != 0) atomic_or(&specials, mine);
    volatile global long* slot = partial + (ulong)get_group_id(0) * (DIGITS + 1);
    for (int k = 0; k < DIGITS; ++k) {
        const long sum = group_sum(digits[k], scratch);
        if (item == 0) slot[k] = sum;
    }
    if (item == 0) {
        slot[DIGITS] = specials;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(ticket) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);

    // The last group: every slot, digit by digit, in group order.
    const uint groups = get_num_groups(0);
    uint seen = 0;
    for (uint g = item; g < groups; g += get_local_size(0)) seen |= (uint)partial[(ulong)g * (DIGITS + 1) + DIGITS];
    if (item == 0) specials = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (seen != 0) atomic_or(&specials, seen);
    for (int k = 0; k < DIGITS; ++k) {
        long sum = 0;
        for (uint g = item; g < groups; g += get_local_size(0)) sum += partial[(ulong)g * (DIGITS + 1) + k];
        digits[k] = group_sum(sum, scratch);
    }
    if (item == 0) {
        *out = round_to_double(digits, specials);
        *ticket = 0;
    }
}
