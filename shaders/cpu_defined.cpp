// ---- gpuia: D3D's values where C++ leaves the result undefined (put before Slang's C++) ----
// gpuia.hlsl.cpu_defined rewrites Slang's output so that every integer division, remainder and
// shift and every conversion to a 32-bit integer calls a function of this file, and patches
// Slang's prelude so that its conversions and its vector, matrix and array subscripts do too.
// Overloads pick the operand types, so the rewrite needs none: float operations stay IEEE.
//   - float -> int/uint: D3D's ftoi/ftou (D3D11.3 spec 22.13.3-4): truncate, saturate to the
//     integer range, NaN -> 0.
//   - uint / 0 and uint % 0: 0xFFFFFFFF (udiv, 22.12.9).
//   - shifts: by the count's low 5 bits (ishl, ishr, ushr, 22.11.7-12); left shifts wrap.
//   - int / 0, int % 0, INT_MIN / -1, INT_MIN % -1: D3D leaves them undefined (no signed divide
//     in D3D11's instruction set; DXIL's sdiv/srem are LLVM's, undefined there): recorded in
//     gpuia_undefined, the run reports them, the value computed is 0 (never a trap).
//   - an array, vector or matrix subscript out of range: undefined for indexable temporaries
//     (7.3; DXIL: C-like) and a cbuffer reads whatever register lies there (7.5), which the CPU
//     reference does not reproduce: recorded, reads 0, writes go nowhere (never outside memory).
// Integer overflow wraps (-fwrapv: iadd, imul keep the low 32 bits).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

template<typename T, int N> struct Vector;
template<typename T, int R, int C> struct Matrix;

// What happened that D3D leaves undefined (gpuia.hlsl.cpu_defined.UNDEFINED names each bit);
// the runner copies it to the shared file's header after the run.
static uint64_t gpuia_undefined = 0;
const uint64_t GPUIA_UNDEFINED_DIVISION = 1;
const uint64_t GPUIA_UNDEFINED_INDEX = 2;

__attribute__((noinline, cold)) static void gpuia_note(uint64_t what) {
    __atomic_fetch_or(&gpuia_undefined, what, __ATOMIC_RELAXED);
}

// An out-of-range subscript: a zeroed element of this thread's own, so a read gives 0 and a
// write lands where nothing reads it.
template<typename T> __attribute__((noinline, cold)) T& gpuia_out_of_range() {
    gpuia_note(GPUIA_UNDEFINED_INDEX);
    static thread_local T sink;
    sink = T();
    return sink;
}
#define SLANG_BOUND_CHECK_FIXED_ARRAY(index, count) \
    if (__builtin_expect((index) >= (count), 0)) return gpuia_out_of_range<T>();

// ---- conversions ----
template<typename T, typename U> constexpr T gpuia_convert(U x) {
    if constexpr (std::is_floating_point<U>::value && std::is_integral<T>::value &&
                  !std::is_same<T, bool>::value) {
        // ftoi/ftou: NaN -> 0, clamped to the range, then truncated
        constexpr long double lo = (long double)std::numeric_limits<T>::min();
        constexpr long double hi = (long double)std::numeric_limits<T>::max() + 1.0L;
        if (!(x == x)) return T(0);
        if ((long double)x <= lo) return std::numeric_limits<T>::min();
        if ((long double)x >= hi) return std::numeric_limits<T>::max();
        return T(x);
    } else {
        return (T)x;
    }
}
template<typename U> constexpr int32_t gpuia_to_i32(U x) { return gpuia_convert<int32_t>(x); }
template<typename U> constexpr uint32_t gpuia_to_u32(U x) { return gpuia_convert<uint32_t>(x); }

// ---- scalar integer operations ----
template<typename A, typename B> constexpr auto gpuia_div_scalar(A a, B b) {
    using R = decltype(a / b);
    if constexpr (std::is_integral<R>::value) {
        const R x = R(a), y = R(b);
        if constexpr (std::is_signed<R>::value) {
            if (__builtin_expect(y == 0 || (x == std::numeric_limits<R>::min() && y == R(-1)), 0)) {
                gpuia_note(GPUIA_UNDEFINED_DIVISION);
                return R(0);
            }
        } else if (__builtin_expect(y == 0, 0)) {
            return std::numeric_limits<R>::max();  // udiv: 0xFFFFFFFF
        }
        return R(x / y);
    } else {
        return a / b;
    }
}
template<typename A, typename B> constexpr auto gpuia_rem_scalar(A a, B b) {
    using R = decltype(a % b);
    const R x = R(a), y = R(b);
    if constexpr (std::is_signed<R>::value) {
        if (__builtin_expect(y == 0 || (x == std::numeric_limits<R>::min() && y == R(-1)), 0)) {
            gpuia_note(GPUIA_UNDEFINED_DIVISION);
            return R(0);
        }
    } else if (__builtin_expect(y == 0, 0)) {
        return std::numeric_limits<R>::max();  // udiv's remainder: 0xFFFFFFFF
    }
    return R(x % y);
}
template<typename A, typename B> constexpr auto gpuia_shl_scalar(A a, B b) {
    using R = decltype(a << b);
    using U = typename std::make_unsigned<R>::type;
    constexpr unsigned mask = sizeof(R) * 8 - 1;  // 31: the count's low 5 bits
    return R(U(U(a) << (unsigned(b) & mask)));
}
template<typename A, typename B> constexpr auto gpuia_shr_scalar(A a, B b) {
    using R = decltype(a >> b);
    constexpr unsigned mask = sizeof(R) * 8 - 1;
    return R(R(a) >> (unsigned(b) & mask));  // arithmetic for signed (ishr), logical for unsigned
}

// ---- the same on vectors and matrices, per component, and on floats (% is fmod) ----
template<typename T> struct gpuia_is_aggregate : std::false_type {};
template<typename T, int N> struct gpuia_is_aggregate<Vector<T, N>> : std::true_type {};
template<typename T, int R, int C> struct gpuia_is_aggregate<Matrix<T, R, C>> : std::true_type {};

#define GPUIA_COMPONENTWISE(NAME, SCALAR)                                                   \
    template<typename A, typename B,                                                       \
             typename std::enable_if<!gpuia_is_aggregate<A>::value &&                      \
                                     !gpuia_is_aggregate<B>::value, int>::type = 0>        \
    constexpr auto NAME(A a, B b) { return SCALAR(a, b); }                                 \
    template<typename T, typename U, int N>                                                \
    Vector<T, N> NAME(const Vector<T, N>& a, const Vector<U, N>& b) {                      \
        Vector<T, N> r;                                                                    \
        for (int i = 0; i < N; i++) r[i] = NAME(a[i], b[i]);                               \
        return r;                                                                          \
    }                                                                                      \
    template<typename T, typename U, int N,                                                \
             typename std::enable_if<!gpuia_is_aggregate<U>::value, int>::type = 0>        \
    Vector<T, N> NAME(const Vector<T, N>& a, U b) {                                        \
        Vector<T, N> r;                                                                    \
        for (int i = 0; i < N; i++) r[i] = NAME(a[i], b);                                  \
        return r;                                                                          \
    }                                                                                      \
    template<typename T, typename U, int N,                                                \
             typename std::enable_if<!gpuia_is_aggregate<T>::value, int>::type = 0>        \
    Vector<U, N> NAME(T a, const Vector<U, N>& b) {                                        \
        Vector<U, N> r;                                                                    \
        for (int i = 0; i < N; i++) r[i] = NAME(a, b[i]);                                  \
        return r;                                                                          \
    }                                                                                      \
    template<typename T, typename U, int R, int C>                                         \
    Matrix<T, R, C> NAME(const Matrix<T, R, C>& a, const Matrix<U, R, C>& b) {             \
        Matrix<T, R, C> r;                                                                 \
        for (int i = 0; i < R; i++) r.rows[i] = NAME(a.rows[i], b.rows[i]);                \
        return r;                                                                          \
    }                                                                                      \
    template<typename T, typename U, int R, int C,                                         \
             typename std::enable_if<!gpuia_is_aggregate<U>::value, int>::type = 0>        \
    Matrix<T, R, C> NAME(const Matrix<T, R, C>& a, U b) {                                  \
        Matrix<T, R, C> r;                                                                 \
        for (int i = 0; i < R; i++) r.rows[i] = NAME(a.rows[i], b);                        \
        return r;                                                                          \
    }

// % of floats: Slang emits F32_fmod for scalars, the prelude's fmod for vectors: the same here.
template<typename A, typename B> auto gpuia_fmod_or_rem(A a, B b) {
    using R = decltype(a + b);
    if constexpr (std::is_same<R, float>::value) {
        return __builtin_fmodf(a, b);
    } else if constexpr (std::is_floating_point<R>::value) {
        return __builtin_fmod(a, b);
    } else {
        return gpuia_rem_scalar(a, b);
    }
}

GPUIA_COMPONENTWISE(gpuia_div, gpuia_div_scalar)
GPUIA_COMPONENTWISE(gpuia_rem, gpuia_fmod_or_rem)
GPUIA_COMPONENTWISE(gpuia_shl, gpuia_shl_scalar)
GPUIA_COMPONENTWISE(gpuia_shr, gpuia_shr_scalar)
#undef GPUIA_COMPONENTWISE

// Called by Slang's C++ for sign() of an int, which its prelude does not define.
static inline int32_t I32_sign(int32_t v) { return (v > 0) - (v < 0); }
// ---- end of gpuia's part; Slang's C++ follows ----
