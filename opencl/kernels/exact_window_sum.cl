// Thread level of opencl/exact for floats and bfloat16 (every bfloat16 a float), as
// cuda/primitives/thread_window_sum.cuh: a work-item's exact sum in registers through a fixed-point
// window, the values outside it into the work-item's digits. A float inside the window costs two
// compares, a multiply, a conversion to long and a 64-bit add, without a branch; the first trip
// starts the window at its largest value. A trip with any value outside is redone value by value,
// judged by the window the fast step used: into the window just below (a second register total),
// else into the digits (one above the window also moves the window up to it; NaN and Inf are
// specials). Every round the register totals go carry-save into two halves per window. Comparisons
// are of floats against normal bounds (lo >= 2^-103), so a device that flushes subnormals sends them
// to the digits, added from their bits, and loses none. bfloat16: a trip whose values all lie in
// the float window's top 15 binades adds them as int32 at a coarser lsb, an FMA and a subtraction a
// value, judged at once by their 16-bit keys (exact::BfloatWindow); any other trip goes through the
// float path value by value.

// Window integers below 2^53, lsb from -126 up (2^-lsb is a float), top a multiple of 4 binades
// (cuda/primitives/exact_digits.cuh's constants: the group's items mostly share a window).
// An ItemTotal's terms at fixed offsets from p[0] (exact_group.cl): lsb, lsb + 32, lsb - 30, lsb + 2.
#define TERMS_AT_FIXED_OFFSETS 1
#define WINDOW_TOP_BIT 53
#define WINDOW_LOWEST_LSB (-126)
#define WINDOW_HIGHEST_LSB 104
#define WINDOW_ALIGN 4
#define WINDOW_BINADES (WINDOW_TOP_BIT - 23)
#define NO_WINDOW (-1024)
// A round adds below 2^9 floats (256 a round and the leftovers), so a total stays below 2^62; a
// half takes below 2^32 a round, and the halves fold into the digits every 2^16 rounds.
#define ROUNDS_PER_NORMALIZE (1u << 16)

#ifdef INPUT_BF16
#define VALUES_PER_VECTOR 8
// exact::BfloatWindow<WINDOW_TOP_BIT>: integers of 2^(lsb + BFLOAT_SHIFT) below 2^22.
#define BFLOAT_SHIFT (WINDOW_TOP_BIT - 22)
#define BFLOAT_MAGIC 0x1.8p23f
#define BFLOAT_MAGIC_BITS 0x4b400000u
#else
#define VALUES_PER_VECTOR 4
#endif

typedef struct {
    float lo, hi, scale;  // lo <= |x| < hi is inside; x * scale = x 2^-lsb
    int lsb;
    long total, total_below;                 // the two windows' integers this round
    long low, high, below_low, below_high;   // earlier rounds', carry-save
#ifndef INPUT_BF16
    float used_lo, used_hi;                  // the window the trip's fast step used
    int inside;                              // whether every value of the trip was inside it
#else
    float bfloat_scale;                      // 2^-(lsb + BFLOAT_SHIFT)
    int bfloat_lowest;                       // the least signed key the bfloat16 window takes
    uint bfloat_highest;                     // above every unsigned key it takes
    int trip_total;                          // the trip's integers, below 2^6 x 2^22
    uint signed_min, unsigned_max;           // the trip's keys' per-lane minimum and maximum
#endif
    uint specials, rounds;
    int digits_used;
} ThreadSum;

void thread_init(ThreadSum* s) {
    s->lo = INFINITY;
    s->hi = 0.0f;  // holds nothing
    s->scale = 0.0f;
    s->lsb = NO_WINDOW;
    s->total = s->total_below = s->low = s->high = s->below_low = s->below_high = 0;
    s->specials = s->rounds = 0;
    s->digits_used = 0;
#ifdef INPUT_BF16
    s->bfloat_scale = 0.0f;
    s->bfloat_lowest = 0x7fff;  // only zeros
    s->bfloat_highest = 0x10000u;
#endif
}

// The lowest window whose top is above `magnitude` (finite, nonzero) and a multiple of 4 binades.
void move_window(ThreadSum* s, float magnitude) {
    const int biased = (int)(as_uint(magnitude) >> 23);
    const int lsb = clamp(((biased - 126 + WINDOW_ALIGN - 1) & -WINDOW_ALIGN) - WINDOW_TOP_BIT, WINDOW_LOWEST_LSB, WINDOW_HIGHEST_LSB);
    const int top = lsb + WINDOW_TOP_BIT;
    s->lo = as_float((uint)(lsb + 23 + 127) << 23);
    s->hi = top >= 128 ? INFINITY : as_float((uint)(top + 127) << 23);
    s->scale = as_float((uint)(127 - lsb) << 23);
    s->lsb = lsb;
#ifdef INPUT_BF16
    // The window's top 15 binades as bfloat16 keys (exact::BfloatWindow::below_top_of).
    const int bfloat_lsb = lsb + BFLOAT_SHIFT;
    s->bfloat_scale = as_float((uint)(127 - bfloat_lsb) << 23);
    s->bfloat_lowest = (int)((uint)(bfloat_lsb + 7 + 127) << 7) - 1 - 0x8000;
    s->bfloat_highest = 0x8000u + (as_uint(s->hi) >> 16) - 1;
#endif
}

long* used_digits(ThreadSum* s, long* digits) {
    if (!s->digits_used)
        for (int k = 0; k < DIGITS; ++k) digits[k] = 0;
    s->digits_used = 1;
    return digits;
}

void carry_save(ThreadSum* s) {
    s->low += s->total & 0xffffffffL;
    s->high += s->total >> 32;
    s->below_low += s->total_below & 0xffffffffL;
    s->below_high += s->total_below >> 32;
    s->total = s->total_below = 0;
}

// Everything in registers into the digits, before the window moves.
void fold(ThreadSum* s, long* digits) {
    carry_save(s);
    if ((s->low | s->high | s->below_low | s->below_high) == 0) return;
    used_digits(s, digits);
    add_fixed(digits, s->low, s->lsb);
    add_fixed(digits, s->high, s->lsb + 32);
    add_fixed(digits, s->below_low, s->lsb - WINDOW_BINADES);
    add_fixed(digits, s->below_high, s->lsb - WINDOW_BINADES + 32);
    s->low = s->high = s->below_low = s->below_high = 0;
}

int add_inside(ThreadSum* s, float x) {
    const int inside = fabs(x) >= s->lo && fabs(x) < s->hi;
    s->total += inside ? convert_long(x * s->scale) : 0;  // exact: an integer below 2^53
    return inside;
}

// A float not yet added: into the window (which it starts if there is none), else the window just
// below, else the digits; a float above the window also moves the window up to it.
void add_outside(ThreadSum* s, long* digits, float x) {
    const float magnitude = fabs(x);
    if (as_uint(magnitude) == 0) return;
    if (s->lsb == NO_WINDOW && as_uint(magnitude) < 0x7f800000u) move_window(s, magnitude);
    if (add_inside(s, x)) return;
    if (magnitude < s->lo && magnitude >= s->lo * 0x1p-30f && s->lsb - WINDOW_BINADES >= WINDOW_LOWEST_LSB) {
        s->total_below += convert_long(x * (s->scale * 0x1p30f));  // exact
        return;
    }
    s->specials |= add_float(used_digits(s, digits), as_uint(x));
    if (magnitude >= s->hi && as_uint(magnitude) < 0x7f800000u) {
        fold(s, digits);
        move_window(s, magnitude);
    }
}

void add(ThreadSum* s, long* digits, float x) {
    if (!add_inside(s, x)) add_outside(s, digits, x);
}

// Quad q of a vector's values as floats (a bfloat16 is the top half of a float's bits).
float4 quad(uint4 v, int q) {
#ifdef INPUT_BF16
    const uint2 w = q == 0 ? v.xy : v.zw;
    return (float4)(as_float(w.x << 16), as_float(w.x & 0xffff0000u), as_float(w.y << 16), as_float(w.y & 0xffff0000u));
#else
    return as_float4(v);
#endif
}

// The trip's steps, which the agent drives (exact_agent.cl): the first trip starts the window at
// the trip's largest value (an infinity counts as FLT_MAX; NaN is passed over), so most values take
// the fast step from the start.
void begin_trip(ThreadSum* s, const uint4* v, int valid) {
    if (s->lsb == NO_WINDOW) {
        float largest = 0.0f;
        for (int k = 0; k < valid; ++k)
            for (int q = 0; q < VALUES_PER_VECTOR / 4; ++q) {
                const float4 f = fabs(quad(v[k], q));
                largest = fmax(largest, fmax(fmax(f.x, f.y), fmax(f.z, f.w)));
            }
        largest = fmin(largest, FLT_MAX);
        if (largest > 0.0f) move_window(s, largest);
    }
#ifdef INPUT_BF16
    s->trip_total = 0;
    s->signed_min = 0x7fff7fffu;
    s->unsigned_max = 0;
#else
    s->used_lo = s->lo;
    s->used_hi = s->hi;
    s->inside = 1;
#endif
}

#ifdef INPUT_BF16
// A bfloat16 (widened) as an integer of 2^(lsb + BFLOAT_SHIFT), exact when the trip's keys hold:
// x 2^-(lsb + shift) + 1.5 x 2^23 is exact and in [2^23, 2^24), where a float's low bits are it.
int bfloat_integer(const ThreadSum* s, float x) { return (int)(as_uint(fma(x, s->bfloat_scale, BFLOAT_MAGIC)) - BFLOAT_MAGIC_BITS); }
// Per lane (b | 0x8000) - 1: 0x7fff for a zero of either sign, 0x8000 + |b| - 1 otherwise.
uint bfloat_key(uint word) { return (word | 0x80008000u) - 0x00010001u; }

void add_fast(ThreadSum* s, uint4 v) {
    const uint words[4] = {v.x, v.y, v.z, v.w};
    for (int w = 0; w < 4; ++w) {
        s->trip_total += bfloat_integer(s, as_float(words[w] << 16)) + bfloat_integer(s, as_float(words[w] & 0xffff0000u));
        const uint key = bfloat_key(words[w]);
        s->signed_min = as_uint(min(as_short2(s->signed_min), as_short2(key)));
        s->unsigned_max = as_uint(max(as_ushort2(s->unsigned_max), as_ushort2(key)));
    }
}

// Whether every value of the trip was in the bfloat16 window: then its integers are added; else the
// trip is redone through the float path.
int end_trip(ThreadSum* s) {
    const short2 least = as_short2(s->signed_min);
    const ushort2 most = as_ushort2(s->unsigned_max);
    const int holds = min(least.x, least.y) >= s->bfloat_lowest && max(most.x, most.y) < s->bfloat_highest;
    if (holds) s->total += (long)s->trip_total << BFLOAT_SHIFT;
    return holds;
}

void redo(ThreadSum* s, long* digits, uint4 v) {
    for (int q = 0; q < 2; ++q) {
        const float4 f = quad(v, q);
        add(s, digits, f.x);
        add(s, digits, f.y);
        add(s, digits, f.z);
        add(s, digits, f.w);
    }
}
#else
void add_fast(ThreadSum* s, uint4 v) {
    const float4 f = as_float4(v);
    s->inside &= add_inside(s, f.x) & add_inside(s, f.y) & add_inside(s, f.z) & add_inside(s, f.w);
}

int end_trip(ThreadSum* s) { return s->inside; }

void add_missed(ThreadSum* s, long* digits, float x) {
    if (!(fabs(x) >= s->used_lo && fabs(x) < s->used_hi)) add_outside(s, digits, x);
}

void redo(ThreadSum* s, long* digits, uint4 v) {
    const float4 f = as_float4(v);
    add_missed(s, digits, f.x);
    add_missed(s, digits, f.y);
    add_missed(s, digits, f.z);
    add_missed(s, digits, f.w);
}
#endif

// One value of the head or tail, by its bits.
void add_one(ThreadSum* s, long* digits, InElement bits) {
#ifdef INPUT_BF16
    const float x = as_float((uint)bits << 16);
#else
    const float x = as_float(bits);
#endif
    add(s, digits, x);
}

void end_round(ThreadSum* s, long* digits) {
    carry_save(s);
    if (++s->rounds % ROUNDS_PER_NORMALIZE == 0) {
        fold(s, digits);
        if (s->digits_used) normalize(digits);
    }
}

ItemTotal thread_finish(ThreadSum* s, long* digits) {
    carry_save(s);
    if (s->digits_used) normalize(digits);
    ItemTotal t;
    const int p = s->lsb - UNIT_EXPONENT;
    t.value[0] = s->low;
    t.p[0] = p;
    t.value[1] = s->high;
    t.p[1] = p + 32;
    t.value[2] = s->below_low;
    t.p[2] = p - WINDOW_BINADES;
    t.value[3] = s->below_high;
    t.p[3] = p - WINDOW_BINADES + 32;
    t.specials = s->specials;
    t.digits_used = s->digits_used;
    return t;
}
