// Quantized matmul kernel body, compiled once per instruction set.
//
// Each including translation unit defines QMM_VL (float lanes: 16 for AVX-512, 8 for AVX2,
// 4 for the portable build), QMM_ENTRY and QMM_PREP (the exported names), and is compiled with
// the matching -m flags. Everything else lives in an anonymous namespace so that the per-ISA copies
// never merge at link time.
//
// Layout (MLX's affine quantization, `mx.quantize`): w is uint32 [N, K * bits / 32], each word
// packs 32 / bits values, lowest bits first; scales and biases are float32 [N, K / group_size];
// w_hat[n, k] = scales[n, k / gs] * q[n, k] + biases[n, k / gs].
//
// 1-2 rows (tile_fold): out[m, n] = sum_g scales[n, g] * dot(x[m, g], q[n, g])
//                                    + biases[n, g] * sum(x[m, g])
// (the group sums of x computed once per call). 4+ rows (tile_deq): each weight vector is
// dequantized once, q * scale + bias, and used for 8 rows. Both use float FMAs on the unpacked
// integers, so the only difference from MLX's reference is the order of float sums.
// Speed on Zen 3 (one thread, weights in L2): ~1.5 cycles per 8 weights at 1 row (4 vector ops
// each: shift, mask, convert, FMA), ~70% of FMA peak at 8 rows.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "qmm_api.h"

// QMM_VEC_ONLY (tests): every helper takes its generic vector-extension form, so the logic
// of a wider build can be checked on a CPU without its instructions.
#ifdef QMM_VEC_ONLY
#define QMM_X 0
#else
#define QMM_X QMM_VL
#endif
#if QMM_X > 4
#include <immintrin.h>
#endif

#ifndef QMM_VL
#error "QMM_VL must be defined"
#endif

// Tile shapes (measured on Zen 3, AVX2): up to QMM_FOLD_ROWS activation rows use tile_fold over
// QMM_FOLD_NR weight rows at a time; more rows use tile_deq, one weight row at a time.
#ifndef QMM_FOLD_ROWS
#define QMM_FOLD_ROWS 2
#endif
#ifndef QMM_FOLD_NR
#define QMM_FOLD_NR 4
#endif
#ifndef QMM_FOLD_CHAINS
#define QMM_FOLD_CHAINS 2
#endif
#ifndef QMM_U8_SHIFT
#define QMM_U8_SHIFT 0
#endif
#ifndef QMM_PREFETCH
#define QMM_PREFETCH 1
#endif
#ifndef QMM_FOLD_NR2
#define QMM_FOLD_NR2 2
#endif
#ifndef QMM_LUT4
#define QMM_LUT4 0  // 4-bit codes to floats by a 16-entry permute (AVX-512 builds set it)
#endif
#ifndef QMM_KC
#define QMM_KC 512  // activation values per K chunk of tile_deq
#endif
#ifndef QMM_MASK4
#define QMM_MASK4 0  // one-row 4-bit codes by a mask alone, x scaled to match (AVX2 sets it)
#endif

namespace {

typedef float vf __attribute__((vector_size(QMM_VL * 4)));
typedef float vf_u __attribute__((vector_size(QMM_VL * 4), aligned(4)));
typedef int32_t vi __attribute__((vector_size(QMM_VL * 4)));
typedef uint32_t vu __attribute__((vector_size(QMM_VL * 4)));
typedef uint32_t vu_u __attribute__((vector_size(QMM_VL * 4), aligned(4)));

constexpr int VL = QMM_VL;
#ifndef QMM_MB
#define QMM_MB 8
#endif
constexpr int MB = QMM_MB;  // activation rows handled per pass over a weight row

inline vf loadf(const float* p) {
  return *reinterpret_cast<const vf_u*>(p);
}

inline vu loadu(const uint32_t* p) {
  return *reinterpret_cast<const vu_u*>(p);
}

inline vf fmadd(vf a, vf b, vf c) {
#if QMM_X == 16
  return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif QMM_X == 8
  return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;
#endif
}

inline vf bcast(float f) {
#if QMM_X == 16
  return (vf)_mm512_set1_ps(f);
#elif QMM_X == 8
  return (vf)_mm256_set1_ps(f);
#else
  vf v;
  for (int i = 0; i < VL; ++i) v[i] = f;
  return v;
#endif
}

// VL float16 bit patterns as floats (exact).
inline vf loadh(const uint16_t* p) {
#if QMM_X == 16
  return (vf)_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
#elif QMM_X == 8
  return (vf)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#else
  vf v;
  for (int i = 0; i < VL; ++i) v[i] = half_to_float(p[i]);
  return v;
#endif
}

// One float16 bit pattern as a float (exact).
inline float half1(uint16_t h) {
#if QMM_X >= 8
  return _cvtsh_ss(h);
#else
  return half_to_float(h);
#endif
}

// Value i of a row of scales or biases, as a float (float16: exactly widened).
inline float val(const float* p, size_t i) {
  return p[i];
}
inline float val(const uint16_t* p, size_t i) {
  return half1(p[i]);
}

template <class S>
inline const S* scales_of(const QmmArgs& a) {
  if constexpr (std::is_same_v<S, float>) return a.scales;
  else return a.hscales;
}

template <class S>
inline const S* biases_of(const QmmArgs& a) {
  if constexpr (std::is_same_v<S, float>) return a.biases;
  else return a.hbiases;
}

inline float hsum(vf v) {
#if QMM_X == 8
  __m128 s = _mm_add_ps(_mm256_castps256_ps128((__m256)v), _mm256_extractf128_ps((__m256)v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
#else
  float s = 0.f;
  for (int i = 0; i < VL; ++i) s += v[i];
  return s;
#endif
}

// A unit is U = VL * P values of a weight row, unpacked into P vectors.
// 4 bits: one vector load of VL 32-bit words, 8 values each. Value j of every word (bits
// [4j, 4j + 4)) goes to vector j, so lane i of vector j is value 8i + j of the unit: a shift and
// a mask per vector, no shuffles; the activations are permuted once per call into that order
// (permute_x). 8 bits: vector j is bytes [j * VL, (j + 1) * VL) zero-extended (natural order,
// no permutation), P vectors making at most 32 values, so a unit never spans two groups.
// Planar 5 and 6 bits (qmm_api.h): the low nibbles are a 4-bit unit (same words, same order);
// the unit's high bits are HI bytes of the row's high plane, lane i's byte (5 bits) or 16-bit
// word (6 bits) holding the high bits of the lane's 8 codes.
template <int BITS>
struct Unit {
  static constexpr bool PLANAR = BITS == 5 || BITS == 6;
  static constexpr bool STRIDED = BITS != 8 || QMM_U8_SHIFT;  // else natural order
  static constexpr int P = BITS != 8 ? 8 : (QMM_U8_SHIFT || VL * 4 <= 32 ? 4 : 32 / VL);
  static constexpr int U = VL * P;
  static constexpr int WORDS = U * (PLANAR ? 4 : BITS) / 32;  // 32-bit words per unit (low plane)
  static constexpr uint32_t MASK = PLANAR ? 15u : (1u << BITS) - 1;
  static constexpr int HI = BITS == 5 ? VL : BITS == 6 ? 2 * VL : 0;  // high-plane bytes per unit
};

// The high plane of a row of K codes whose words start at w (nullptr: not planar).
template <int BITS>
inline const uint8_t* high_plane(const uint32_t* w, int K) {
  if constexpr (Unit<BITS>::PLANAR) return reinterpret_cast<const uint8_t*>(w) + K / 2;
  else return nullptr;
}

typedef uint8_t vb8_u __attribute__((vector_size(QMM_VL), aligned(1)));
typedef uint16_t vb16_u __attribute__((vector_size(QMM_VL * 2), aligned(1)));

// A planar unit's high bits for vector j, in place (bit 4, or bits 4-5): lane i's byte or word
// shifted so that code 8i + j's high bits land there, masked.
template <int BITS>
inline vu high_bits(const uint8_t* hu, int j) {  // j is a constant after unrolling
  if constexpr (BITS == 5) {
    const vu h = __builtin_convertvector(*reinterpret_cast<const vb8_u*>(hu), vu);
    return (j <= 4 ? h << (4 - j) : h >> (j - 4)) & 16u;
  } else {
    const vu h = __builtin_convertvector(*reinterpret_cast<const vb16_u*>(hu), vu);
    return (2 * j <= 4 ? h << (4 - 2 * j) : h >> (2 * j - 4)) & 48u;
  }
}

// Vector j of the unit whose words start at wu (v: those words, for 4 bits).
// hu: the unit's high-plane bytes (planar bits only).
template <int BITS>
inline vf qvec(const uint32_t* wu, vu v, int j, const uint8_t* hu = nullptr) {
  if constexpr (Unit<BITS>::PLANAR) {
    vu t = j == 0 ? v : v >> (4 * j);
    if (j != 7) t &= 15u;
    return __builtin_convertvector((vi)(t | high_bits<BITS>(hu, j)), vf);
  } else if constexpr (!Unit<BITS>::STRIDED) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(wu) + j * VL;
#if QMM_X == 16
    return (vf)_mm512_cvtepi32_ps(
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif QMM_X == 8
    return (vf)_mm256_cvtepi32_ps(
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#else
    vf q;
    for (int i = 0; i < VL; ++i) q[i] = float(p[i]);
    return q;
#endif
  } else {
    vu t = j == 0 ? v : v >> (BITS * j);
#if QMM_LUT4 && QMM_X == 16
    if constexpr (BITS == 4) {  // vpermps reads an index's low 4 bits: no mask, no convert
      const __m512 levels = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
      return (vf)_mm512_permutexvar_ps((__m512i)t, levels);
    }
#elif QMM_LUT4 && QMM_X == 8 && defined(__AVX512VL__)
    if constexpr (BITS == 4) {  // vpermt2ps: the same from two 8-entry tables
      const __m256 lo = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
      const __m256 hi = _mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15);
      return (vf)_mm256_permutex2var_ps(lo, (__m256i)t, hi);
    }
#endif
    if (j != Unit<BITS>::P - 1) t &= Unit<BITS>::MASK;
    return __builtin_convertvector((vi)t, vf);
  }
}

// Few rows with QMM_MASK4 (fold_masked): value j of every word masked in place, so vector j
// holds q * 16^j (exact in float: at most 4 significant bits) for j < 7, and the top value
// shifted down (q * 16^7 would not fit a signed lane); the activations of vector j are
// prepared times 16^-j (permute_x), so each product q * 16^j * x * 16^-j is q * x exactly and
// the sums are the same bits as qvec's (unless x * 16^-6 leaves float32's normal range, for
// |x| < 2^-102). One mask and one convert per 8 codes, no shift: on AMD Zen 1, whose vector
// shifts run on one pipe, a 4864 x 896 product at one row runs ~1.17x faster (with 2 weight
// rows per tile and one accumulator chain; BENCHMARKS.md, "AMD Zen 1").
inline vf qvec_masked(vu v, int j) {  // j is a constant after unrolling
  return __builtin_convertvector((vi)(j == 7 ? v >> 28 : v & (15u << (4 * j))), vf);
}
constexpr float kMaskStep[8] = {1.f, 0x1p-4f, 0x1p-8f, 0x1p-12f, 0x1p-16f, 0x1p-20f, 0x1p-24f,
                                1.f};

// Whether a call's 4-bit products take the masked codes: every row of it goes through
// tile_fold (at most QMM_FOLD_ROWS rows), in a build that sets QMM_MASK4.
inline bool fold_masked(const QmmArgs& a) {
  return QMM_MASK4 && a.bits == 4 && a.M <= QMM_FOLD_ROWS;
}

// The per-lane values (scales or biases) of unit u of a weight row whose group values are p.
// A unit spans one group when U <= GS; otherwise NG = U / GS groups of VL / NG lanes each.
// Value i of p in every lane.
inline vf bcast_val(const float* p, size_t i) {
  return bcast(p[i]);
}
inline vf bcast_val(const uint16_t* p, size_t i) {
#if QMM_X == 16
  return (vf)_mm512_cvtph_ps(_mm256_set1_epi16(short(p[i])));
#elif QMM_X == 8
  return (vf)_mm256_cvtph_ps(_mm_set1_epi16(short(p[i])));
#else
  return bcast(half_to_float(p[i]));
#endif
}

// NG (2 or 4) consecutive values from q, as floats in the low lanes.
#if QMM_X >= 8
template <int NG>
inline __m128 group_vals(const float* q) {
  return NG == 4 ? _mm_loadu_ps(q) : _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(q)));
}
template <int NG>
inline __m128 group_vals(const uint16_t* q) {
  uint64_t bits = 0;
  std::memcpy(&bits, q, sizeof(uint16_t) * NG);
  return _mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(bits)));
}
#endif

#if QMM_X == 16
inline __m256 group_vals8(const float* q) {
  return _mm256_loadu_ps(q);
}
inline __m256 group_vals8(const uint16_t* q) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
}
#endif

template <int BITS, int GS, class T>
inline vf lane_vals(const T* p, int u) {
  constexpr int U = Unit<BITS>::U;
  if constexpr (U <= GS) {
    return bcast_val(p, size_t(u) * U / GS);
  } else {
    constexpr int NG = U / GS;
    const T* q = p + size_t(u) * NG;
#if QMM_X == 8
    static_assert(NG == 2 || NG == 4, "AVX2 units span at most 4 groups");
    if constexpr (NG == 4) {  // group size 16: two lanes a group
      const __m256i idx = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
      return (vf)_mm256_permutevar8x32_ps(_mm256_castps128_ps256(group_vals<4>(q)), idx);
    }
    __m128 two = group_vals<NG>(q);
    const __m256i idx = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    return (vf)_mm256_permutevar8x32_ps(_mm256_castps128_ps256(two), idx);
#elif QMM_X == 16
    static_assert(NG == 2 || NG == 4 || NG == 8, "AVX-512 units span at most 8 groups");
    if constexpr (NG == 8) {  // group size 16: two lanes a group
      const __m512i idx = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
      return (vf)_mm512_permutexvar_ps(idx, _mm512_castps256_ps512(group_vals8(q)));
    }
    __m128 v4 = group_vals<NG>(q);
    const __m512i idx = NG == 4
        ? _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)
        : _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    return (vf)_mm512_permutexvar_ps(idx, _mm512_castps128_ps512(v4));
#else
    vf v;
    for (int i = 0; i < VL; ++i) v[i] = val(q, i / (VL / NG));
    return v;
#endif
  }
}

inline vf loadv(const float* p) {
  return loadf(p);
}
inline vf loadv(const uint16_t* p) {
  return loadh(p);
}

template <class T>
inline float dotf(const T* a, const float* b, int n) {
  vf t = vf{};
  int i = 0;
  for (; i + VL <= n; i += VL) t = fmadd(loadv(a + i), loadf(b + i), t);
  float s = hsum(t);
  // the last few by explicit FMAs, so that float16 and float32 values give the same bits
  // whatever the compiler contracts or vectorizes (it did so differently with AVX-512 enabled)
  for (; i < n; ++i) s = std::fma(val(a, i), b[i], s);
  return s;
}

// Writes the lane sums of the R x NR accumulators to out[m0 + r, n + t] (four at a time).
template <int R, int NR>
inline void store_sums(const QmmArgs& a, int m0, int n, vf (&acc)[R][NR]) {
  float sums[R * NR];
  int i = 0;
#if QMM_X == 8
  for (; i + 4 <= R * NR; i += 4) {
    const __m256 t0 = _mm256_hadd_ps((__m256)acc[i / NR][i % NR], (__m256)acc[(i + 1) / NR][(i + 1) % NR]);
    const __m256 t1 = _mm256_hadd_ps((__m256)acc[(i + 2) / NR][(i + 2) % NR], (__m256)acc[(i + 3) / NR][(i + 3) % NR]);
    const __m256 t2 = _mm256_hadd_ps(t0, t1);
    _mm_storeu_ps(sums + i, _mm_add_ps(_mm256_castps256_ps128(t2), _mm256_extractf128_ps(t2, 1)));
  }
#endif
  for (; i < R * NR; ++i) sums[i] = hsum(acc[i / NR][i % NR]);
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) a.out[size_t(m0 + r) * a.N + n + t] = sums[r * NR + t];
}

// The values past the last whole unit (K % U, a multiple of 32), one by one, in x's order.
// sc, bi: row n's scales and biases.
template <int BITS, class T>
inline float tail(const QmmArgs& a, int m, int n, int k0, const T* sc, const T* bi) {
  const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) + size_t(n) * (a.K * BITS / 8);
  const int G = a.K / a.group_size;
  const float* x = a.x + size_t(m) * a.K;
  float s = 0.f;
  for (int k = k0; k < a.K; ++k) {
    const int q = int(qmm_code(wrow, a.K, BITS, k));
    const int g = k / a.group_size;
    s = std::fma(x[k], std::fma(val(sc, g), float(q), val(bi, g)), s);
  }
  return s;
}

// Few rows (decode): out[m, n] = sum_u scales_u * dot(x_u, q_u) + sum_g biases[g] * xsum[g],
// the scale folded in once per unit; NR weight rows at a time share each activation load and
// give R * NR * QMM_FOLD_CHAINS independent FMA chains.
template <int BITS, int GS, int R, int NR, class S, bool MASKED = false>
inline void tile_fold(const QmmArgs& a, int m0, int n) {
  using F = Unit<BITS>;
  const int K = a.K, G = K / GS, NU = K / F::U, words = K * BITS / 32;
  const uint32_t* w[NR];
  const uint8_t* h[NR];  // high planes (planar bits)
  // float16 scales and biases are widened where used (exactly), so the sums are the float32
  // copy's bits
  const S* s[NR];
  const S* b[NR];
  for (int t = 0; t < NR; ++t) {
    w[t] = a.w + size_t(n + t) * words;
    h[t] = high_plane<BITS>(w[t], K);
    s[t] = scales_of<S>(a) + size_t(n + t) * G;
    b[t] = biases_of<S>(a) + size_t(n + t) * G;
  }
  vf acc[R][NR];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) acc[r][t] = vf{};
  // the scale is folded in once per UPF units: a group, or one unit spanning several groups
  constexpr int UPF = F::U < GS ? GS / F::U : 1;
  for (int u0 = 0; u0 + UPF <= NU; u0 += UPF) {
    vf d0[R][NR], d1[R][NR];
    for (int r = 0; r < R; ++r)
      for (int t = 0; t < NR; ++t) d0[r][t] = d1[r][t] = vf{};
    for (int u = u0; u < u0 + UPF; ++u) {
      vu v[NR];
      for (int t = 0; t < NR; ++t) v[t] = F::STRIDED ? loadu(w[t] + size_t(u) * F::WORDS) : vu{};
      if (QMM_PREFETCH)  // the same place in the next tile's rows (hardware prefetchers lose
        for (int t = 0; t < NR; ++t)  // NR interleaved streams once the weights leave the L3)
          __builtin_prefetch(w[t] + size_t(u) * F::WORDS + size_t(NR) * words);
#pragma GCC unroll 8
      for (int j = 0; j < F::P; j += 2) {
        for (int t = 0; t < NR; ++t) {
          const uint32_t* wu = w[t] + size_t(u) * F::WORDS;
          const uint8_t* hu = F::PLANAR ? h[t] + size_t(u) * F::HI : nullptr;
          vf q0, q1;
          if constexpr (MASKED) {
            q0 = qvec_masked(v[t], j);
            q1 = qvec_masked(v[t], j + 1);
          } else {
            q0 = qvec<BITS>(wu, v[t], j, hu);
            q1 = qvec<BITS>(wu, v[t], j + 1, hu);
          }
          for (int r = 0; r < R; ++r) {
            const float* xr =
                a.xp + size_t(m0 + r) * qmm_xp_stride(K) + size_t(u) * F::U + j * VL;
            d0[r][t] = fmadd(loadf(xr), q0, d0[r][t]);
            if (QMM_FOLD_CHAINS == 2)
              d1[r][t] = fmadd(loadf(xr + VL), q1, d1[r][t]);
            else
              d0[r][t] = fmadd(loadf(xr + VL), q1, d0[r][t]);
          }
        }
      }
    }
    for (int t = 0; t < NR; ++t) {
      const vf sv = lane_vals<BITS, GS>(s[t], u0);
      for (int r = 0; r < R; ++r) acc[r][t] = fmadd(sv, d0[r][t] + d1[r][t], acc[r][t]);
    }
  }
  store_sums<R, NR>(a, m0, n, acc);
  // the tail's values come with their biases; the whole units' biases come from the group sums
  const int GU = NU * F::U / GS;
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) {
      float& o = a.out[size_t(m0 + r) * a.N + n + t];
      o += dotf(b[t], a.xsum + size_t(m0 + r) * G, GU);
      if (NU * F::U < K) o += tail<BITS>(a, m0 + r, n + t, NU * F::U, s[t], b[t]);
    }
}

// More rows: each weight vector is dequantized once (q * scale + bias, one FMA) and then
// multiplies R activation rows; no per-group work, no bias sums. Adds units [u0, u1) of weight
// row n to acc.
// row n to acc.
template <int BITS, int GS, int R, class S>
inline void tile_deq(const QmmArgs& a, int m0, int n, int u0, int u1, vf (&acc)[R][1]) {
  using F = Unit<BITS>;
  const int K = a.K, G = K / GS;
  const uint32_t* w = a.w + size_t(n) * (K * BITS / 32);
  const uint8_t* h = high_plane<BITS>(w, K);
  const S* s = scales_of<S>(a) + size_t(n) * G;
  const S* b = biases_of<S>(a) + size_t(n) * G;
  for (int u = u0; u < u1; ++u) {
    const vu v = F::STRIDED ? loadu(w + size_t(u) * F::WORDS) : vu{};
    const uint8_t* hu = F::PLANAR ? h + size_t(u) * F::HI : nullptr;
    const vf sv = lane_vals<BITS, GS>(s, u), bv = lane_vals<BITS, GS>(b, u);
#pragma GCC unroll 8
    for (int j = 0; j < F::P; ++j) {
      const vf wv = fmadd(qvec<BITS>(w + size_t(u) * F::WORDS, v, j, hu), sv, bv);
      for (int r = 0; r < R; ++r) {
        const float* xr =
            a.xp + size_t(m0 + r) * qmm_xp_stride(K) + size_t(u) * F::U + j * VL;
        acc[r][0] = fmadd(loadf(xr), wv, acc[r][0]);
      }
    }
  }
}

template <int BITS, int GS, int R, class S>
void block(const QmmArgs& a, int m0, int n0, int n1) {
  using F = Unit<BITS>;
  const int K = a.K, NU = K / F::U, G = K / GS;
  if constexpr (R <= QMM_FOLD_ROWS) {
    constexpr int NR = R == 1 ? QMM_FOLD_NR : QMM_FOLD_NR2;
    int n = n0;
    if (fold_masked(a)) {  // 4 bits only
      for (; n + NR <= n1; n += NR) tile_fold<BITS, GS, R, NR, S, BITS == 4>(a, m0, n);
      for (; n < n1; ++n) tile_fold<BITS, GS, R, 1, S, BITS == 4>(a, m0, n);
      return;
    }
    for (; n + NR <= n1; n += NR) tile_fold<BITS, GS, R, NR, S>(a, m0, n);
    for (; n < n1; ++n) tile_fold<BITS, GS, R, 1, S>(a, m0, n);
  } else {
    // K in chunks of QMM_KC values over CB columns at a time, so that the R activation rows'
    // chunk stays in L1 while CB weight rows stream past it (partial sums kept in part)
    constexpr int CB = 16;
    constexpr int KCU = QMM_KC / F::U > 0 ? QMM_KC / F::U : 1;
    vf part[CB][R][1];
    for (int nb = n0; nb < n1; nb += CB) {
      const int ne = n1 < nb + CB ? n1 : nb + CB;
      for (int u0 = 0; u0 < NU || u0 == 0; u0 += KCU) {
        const int u1 = NU < u0 + KCU ? NU : u0 + KCU;
        for (int n = nb; n < ne; ++n) {
          if (u0 == 0)
            for (int r = 0; r < R; ++r) part[n - nb][r][0] = vf{};
          tile_deq<BITS, GS, R, S>(a, m0, n, u0, u1, part[n - nb]);
        }
      }
      for (int n = nb; n < ne; ++n) {
        store_sums<R, 1>(a, m0, n, part[n - nb]);
        if (NU * F::U < K) {
          const S* sr = scales_of<S>(a) + size_t(n) * G;
          const S* br = biases_of<S>(a) + size_t(n) * G;
          for (int r = 0; r < R; ++r)
            a.out[size_t(m0 + r) * a.N + n] += tail<BITS>(a, m0 + r, n, NU * F::U, sr, br);
        }
      }
    }
  }
}

template <int BITS, int GS, class S>
void rows(const QmmArgs& a, int n0, int n1) {
  int m = 0;
  for (; m + MB <= a.M; m += MB) block<BITS, GS, MB, S>(a, m, n0, n1);
  if (a.M - m >= 4) {
    block<BITS, GS, 4, S>(a, m, n0, n1);
    m += 4;
  }
  if (a.M - m >= 2) {
    block<BITS, GS, 2, S>(a, m, n0, n1);
    m += 2;
  }
  if (a.M - m >= 1) block<BITS, GS, 1, S>(a, m, n0, n1);
}

template <int BITS>
void permute_x(const QmmArgs& a, float* xp) {
  using F = Unit<BITS>;
  const int NU = a.K / F::U, ld = qmm_xp_stride(a.K);
  for (int m = 0; m < a.M; ++m) {
    const float* x = a.x + size_t(m) * a.K;
    float* o = xp + size_t(m) * ld;
    if (!F::STRIDED) {
      std::memcpy(o, x, sizeof(float) * a.K);
      continue;
    }
    const bool masked = fold_masked(a);
    for (int u = 0; u < NU; ++u)
      for (int j = 0; j < F::P; ++j) {
        const float step = masked ? kMaskStep[j] : 1.f;  // a power of two: exact
        for (int i = 0; i < VL; ++i)
          o[u * F::U + j * VL + i] = x[u * F::U + i * F::P + j] * step;
      }
    for (int k = NU * F::U; k < a.K; ++k) o[k] = x[k];
  }
}

// Weight rows [n0, n0 + rows) dequantized into dst ([rows, K] floats), each unit in this
// kernel's order of x (QMM_PREP's: a product with the permuted x is the same dot product),
// each value q * scale + bias by one FMA like tile_deq; the tail past the last whole unit in
// natural order, like the permuted x.
template <int BITS, int GS, class S>
void deq_rows(const QmmArgs& a, int n0, int rows, float* dst) {
  using F = Unit<BITS>;
  const int K = a.K, G = K / GS, NU = K / F::U, words = K * BITS / 32;
  for (int r = 0; r < rows; ++r) {
    const int n = n0 + r;
    const uint32_t* w = a.w + size_t(n) * words;
    const uint8_t* h = high_plane<BITS>(w, K);
    const S* s = scales_of<S>(a) + size_t(n) * G;
    const S* b = biases_of<S>(a) + size_t(n) * G;
    float* o = dst + size_t(r) * K;
    for (int u = 0; u < NU; ++u) {
      const vu v = F::STRIDED ? loadu(w + size_t(u) * F::WORDS) : vu{};
      const uint8_t* hu = F::PLANAR ? h + size_t(u) * F::HI : nullptr;
      const vf sv = lane_vals<BITS, GS>(s, u), bv = lane_vals<BITS, GS>(b, u);
#pragma GCC unroll 8
      for (int j = 0; j < F::P; ++j)
        *reinterpret_cast<vf_u*>(o + size_t(u) * F::U + j * VL) =
            fmadd(qvec<BITS>(w + size_t(u) * F::WORDS, v, j, hu), sv, bv);
    }
    const uint8_t* wb = reinterpret_cast<const uint8_t*>(w);
    for (int k = NU * F::U; k < K; ++k) {
      const int q = int(qmm_code(wb, K, BITS, k));
      o[k] = val(s, k / GS) * float(q) + val(b, k / GS);
    }
  }
}

// float32 lanes -> bfloat16, round to nearest even (finite values; dequantized weights are)
typedef uint16_t vh_u __attribute__((vector_size(QMM_VL * 2), aligned(2)));
inline void store_bf16(uint16_t* p, vf v) {
  const vu b = (vu)v;
  const vu r = (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
  *reinterpret_cast<vh_u*>(p) = __builtin_convertvector(r, vh_u);
}

// deq_rows in bfloat16, laid out for AMX tiles: the same values rounded to bfloat16, weight
// row r's values k..k+31 (k a multiple of 32) at dst[(k / 32) * 32 * 32 + r * 32], so a tile of
// 16 rows x 32 values is 1 KiB in one piece (rows <= 32: a panel of qmm_amx.cpp)
template <int BITS, int GS, class S>
void deq_rows_bf16(const QmmArgs& a, int n0, int rows, uint16_t* dst) {
  using F = Unit<BITS>;
  const int K = a.K, G = K / GS, NU = K / F::U, words = K * BITS / 32;
  auto at = [&](int r, int k) { return dst + size_t(k >> 5) * 1024 + r * 32 + (k & 31); };
  for (int r = 0; r < rows; ++r) {
    const int n = n0 + r;
    const uint32_t* w = a.w + size_t(n) * words;
    const uint8_t* h = high_plane<BITS>(w, K);
    const S* s = scales_of<S>(a) + size_t(n) * G;
    const S* b = biases_of<S>(a) + size_t(n) * G;
    for (int u = 0; u < NU; ++u) {
      const vu v = F::STRIDED ? loadu(w + size_t(u) * F::WORDS) : vu{};
      const uint8_t* hu = F::PLANAR ? h + size_t(u) * F::HI : nullptr;
      const vf sv = lane_vals<BITS, GS>(s, u), bv = lane_vals<BITS, GS>(b, u);
#pragma GCC unroll 8
      for (int j = 0; j < F::P; ++j)
        store_bf16(at(r, u * F::U + j * VL),
                   fmadd(qvec<BITS>(w + size_t(u) * F::WORDS, v, j, hu), sv, bv));
    }
    const uint8_t* wb = reinterpret_cast<const uint8_t*>(w);
    for (int k = NU * F::U; k < K; ++k) {
      const int q = int(qmm_code(wb, K, BITS, k));
      *at(r, k) = float_to_bf16(val(s, k / GS) * float(q) + val(b, k / GS));
    }
  }
}

}  // namespace

#ifdef QMM_GEMM
#include "qmm_gemm.h"

void QMM_GEMM(const float* x, int ldx, int M, const float* w, int K, int nb, float* out,
              int ldo) {
  gemm_rows(x, ldx, M, w, K, nb, out, ldo);
}
#endif

#ifdef QMM_PANELS
#include "qmm_panels.h"

void QMM_PANEL_PACK(const QmmArgs& a, int p, float* panels) {
  if (a.bits == 8)  // planar bits: the 4-bit order
    pack_panel<8>(a, p, panels);
  else
    pack_panel<4>(a, p, panels);
}

void QMM_PANELS(const float* panels, int M, int K, const float* w, int nb, float* out, int ldo) {
  panel_rows(panels, M, K, w, nb, out, ldo);
}
#endif

#ifdef QMM_DEQ
void QMM_DEQ(const QmmArgs& a, int n0, int rows, float* dst) {
  qmm_dispatch<true>(a, [&](auto bits, auto gs) {
    if (a.hscales)
      deq_rows<decltype(bits)::value, decltype(gs)::value, uint16_t>(a, n0, rows, dst);
    else
      deq_rows<decltype(bits)::value, decltype(gs)::value, float>(a, n0, rows, dst);
  });
}
#endif

#ifdef QMM_DEQ_BF16
void QMM_DEQ_BF16(const QmmArgs& a, int n0, int rows, uint16_t* dst) {
  qmm_dispatch<true>(a, [&](auto bits, auto gs) {
    if (a.hscales)
      deq_rows_bf16<decltype(bits)::value, decltype(gs)::value, uint16_t>(a, n0, rows, dst);
    else
      deq_rows_bf16<decltype(bits)::value, decltype(gs)::value, float>(a, n0, rows, dst);
  });
}
#endif

void QMM_PREP(const QmmArgs& a, float* xp) {
  if (a.bits == 8)  // planar bits: the 4-bit order
    permute_x<8>(a, xp);
  else
    permute_x<4>(a, xp);
}

void QMM_ENTRY(const QmmArgs& a, int n0, int n1) {
  qmm_dispatch<true>(a, [&](auto bits, auto gs) {
    if (a.hscales)
      rows<decltype(bits)::value, decltype(gs)::value, uint16_t>(a, n0, n1);
    else
      rows<decltype(bits)::value, decltype(gs)::value, float>(a, n0, n1);
  });
}
