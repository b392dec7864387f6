// Thread level of vulkan/exact: an invocation's exact sum in registers, the GLSL twin of
// cuda/primitives/thread_window_sum.cuh (floats, bfloat16) and thread_half_sum.cuh (float16). A trip is kLoadsInFlight 16-byte vectors of input bits:
// begin_trip(), add_fast() of each, and only when end_trip() says a value missed the fast path,
// redo() of each through the slow path, which may touch the invocation's digits (digits.glsl).
// end_round() comes every 256 values; finish_thread() leaves the invocation's terms (what
// thread_terms() gives) and its digits, normalized, for the subgroup level. The rule: registers hold
// the sum exactly or the trip is redone; nothing is rounded.

uint specials_ = 0u;

#if ELEMENT_F32 || ELEMENT_BF16
// The fixed-point window (exact::Window with cuda/exact's constants): floats with lo <= |x| < hi are
// integers below 2^53 of 2^lsb, lsb from -126 (2^-lsb a float) to 104, its top a multiple of 4
// binades so that a subgroup's invocations mostly share it; judged on the bits of |x|.
const int kWindowTopBit = 53, kWindowLowestLsb = -126, kWindowHighestLsb = 104, kWindowAlign = 4;
const int kWindowBinades = kWindowTopBit - 23;
const int kNoWindow = -1024;  // no finite nonzero value yet: holds nothing
const uint kRoundsPerFold = 1u << 16;
const int kTerms = 4;

struct Window {
    uint lo, hi;  // bits of |x|
    float scale;  // 2^-lsb
    int lsb;
};

Window window_ = Window(0x7f800000u, 0u, 0.0, kNoWindow);
Window used_;
bool inside_ = true;
// The window's and the window below's integers this round; earlier rounds' as carry-save halves.
int64_t total_ = 0l, total_below_ = 0l, low_ = 0l, high_ = 0l, below_low_ = 0l, below_high_ = 0l;
uint rounds_ = 0u;

// The window whose top is above `magnitude` (bits of a finite nonzero |x|), aligned, clamped.
void move_window(uint magnitude) {
    int lsb = ((int(magnitude >> 23) - 126 + kWindowAlign - 1) & -kWindowAlign) - kWindowTopBit;
    lsb = clamp(lsb, kWindowLowestLsb, kWindowHighestLsb);
    const int top = lsb + kWindowTopBit;
    window_ = Window(uint(lsb + 23 + 127) << 23, top >= 128 ? 0x7f800000u : uint(top + 127) << 23, uintBitsToFloat(uint(127 - lsb) << 23), lsb);
}

void carry_save() {
    low_ += total_ & 0xffffffffl;
    high_ += total_ >> 32;
    below_low_ += total_below_ & 0xffffffffl;
    below_high_ += total_below_ >> 32;
    total_ = total_below_ = 0l;
}

int term_shift(int j) { return (j & 1) * 32 - (j >> 1) * kWindowBinades; }

int64_t thread_term(int j) { return j == 0 ? low_ : j == 1 ? high_ : j == 2 ? below_low_ : below_high_; }
int thread_lsb() { return window_.lsb; }

// Everything in registers into the digits, before the window moves.
void fold() {
    carry_save();
    for (int j = 0; j < kTerms; ++j)
        if (thread_term(j) != 0l) add_fixed(thread_term(j), window_.lsb + term_shift(j));
    low_ = high_ = below_low_ = below_high_ = 0l;
}

// x (its bits) into the window when inside: a multiply by 2^-lsb, exact, a conversion and an add.
bool add_inside(uint bits) {
    const uint magnitude = bits & 0x7fffffffu;
    const bool inside = magnitude >= window_.lo && magnitude < window_.hi;
    total_ += int64_t(inside ? uintBitsToFloat(bits) * window_.scale : 0.0);
    return inside;
}

// A float not yet added: into the window (which it starts if there is none), else the window just
// below it (lsb 30 lower, while that is not below -126), else the digits; one above the window moves
// it up, for the floats after.
void add_outside(uint bits) {
    const uint magnitude = bits & 0x7fffffffu;
    if (magnitude == 0u) return;
    if (window_.lsb == kNoWindow && magnitude < 0x7f800000u) move_window(magnitude);
    if (add_inside(bits)) return;
    if (window_.lsb - kWindowBinades >= kWindowLowestLsb && magnitude < window_.lo && magnitude >= window_.lo - (uint(kWindowBinades) << 23)) {
        total_below_ += int64_t(uintBitsToFloat(bits) * (window_.scale * 1073741824.0));  // exact
        return;
    }
    specials_ |= add_float_bits(bits);
    if (magnitude >= window_.hi && magnitude < 0x7f800000u) {
        fold();
        move_window(magnitude);
    }
}

void add_one(uint bits) {
    if (!add_inside(bits)) add_outside(bits);
}

void add_missed(uint bits) {
    const uint magnitude = bits & 0x7fffffffu;
    if (!(magnitude >= used_.lo && magnitude < used_.hi)) add_outside(bits);
}

// The float bits of a vector's lanes: four floats, or a word's two bfloat16 (the low one first).
#if ELEMENT_F32
const int kVectorValues = 4;
uint value_bits(uvec4 v, int i) { return v[i]; }
#else
const int kVectorValues = 8;
uint value_bits(uvec4 v, int i) { return (i & 1) == 0 ? v[i >> 1] << 16 : v[i >> 1] & 0xffff0000u; }
#endif

// The first trip starts the window at its largest magnitude (an infinity or NaN counts as FLT_MAX:
// where it starts decides only how many values take the fast path).
void begin_trip() {
    if (window_.lsb == kNoWindow) {
        uint largest = 0u;
        [[unroll]] for (int k = 0; k < kLoadsInFlight; ++k)
            [[unroll]] for (int i = 0; i < kVectorValues; ++i) largest = max(largest, min(value_bits(trip_[k], i) & 0x7fffffffu, 0x7f7fffffu));
        if (largest != 0u) move_window(largest);
    }
    used_ = window_;
    inside_ = true;
}
void add_fast(uvec4 v) {
    bool all = true;
    [[unroll]] for (int i = 0; i < kVectorValues; ++i) all = add_inside(value_bits(v, i)) && all;
    inside_ = inside_ && all;
}
bool end_trip() { return inside_; }
void redo(uvec4 v) {
    for (int i = 0; i < kVectorValues; ++i) add_missed(value_bits(v, i));
}
void end_round() {
    carry_save();
    if (++rounds_ % kRoundsPerFold == 0u) {
        fold();
        if (digits_used) normalize();
    }
}
void finish_thread() {
    carry_save();
    if (digits_used) normalize();
}

#elif ELEMENT_F16
// float16: every finite value times 2^24 is an integer below 2^40, so an invocation adds them as
// int64 at lsb -24, read from the bits, with no window; NaN and Inf add 0 there and are named by one
// test a trip. A round adds below 2^8 x 2^40, carry-saved: the halves stay below 2^48.
const int kTerms = 2;
const int kHalfLsb = -24;
int64_t total_ = 0l, low_ = 0l, high_ = 0l;
uint special_lanes_ = 0u;

int64_t half_integer(uint h) {
    const uint e = (h >> 10) & 31u;
    const int64_t m = int64_t(e != 0u ? (h & 0x3ffu) | 0x400u : h & 0x3ffu) << max(int(e) - 1, 0);
    const int64_t v = e == 31u ? 0l : m;
    return (h & 0x8000u) != 0u ? -v : v;
}
uint half_special(uint h) {
    if ((h & 0x7c00u) != 0x7c00u) return 0u;
    return (h & 0x3ffu) != 0u ? kNan : (h & 0x8000u) != 0u ? kMinusInfinity : kPlusInfinity;
}
void add_one(uint h) {
    total_ += half_integer(h);
    specials_ |= half_special(h);
}

void begin_trip() {}
void add_fast(uvec4 v) {
    [[unroll]] for (int i = 0; i < 4; ++i) total_ += half_integer(v[i] & 0xffffu) + half_integer(v[i] >> 16);
    // Bit 15 of a half's (|bits| + 0x0400) is set exactly when its exponent is all ones.
    [[unroll]] for (int i = 0; i < 4; ++i) special_lanes_ |= (v[i] & 0x7fff7fffu) + 0x04000400u;
}
bool end_trip() {
    const bool clean = (special_lanes_ & 0x80008000u) == 0u;
    special_lanes_ = 0u;
    return clean;
}
// The trip's values are in the total (NaN and Inf as 0): only the specials are left to name.
void redo(uvec4 v) {
    [[unroll]] for (int i = 0; i < 4; ++i) specials_ |= half_special(v[i] & 0xffffu) | half_special(v[i] >> 16);
}
void end_round() {
    low_ += total_ & 0xffffffffl;
    high_ += total_ >> 32;
    total_ = 0l;
}
void finish_thread() { end_round(); }
int64_t thread_term(int j) { return j == 0 ? low_ : high_; }
int thread_lsb() { return kHalfLsb; }
int term_shift(int j) { return j * 32; }

#endif
