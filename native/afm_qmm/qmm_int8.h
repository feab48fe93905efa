// Quantized weights times int8 activations: the kernel body, compiled once per instruction set.
//
// The including translation unit defines QMM_I8_VNNI (1: VPDPBUSD, AVX-512 VNNI on 256-bit
// vectors, compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma; 0: the same sums
// from AVX2 multiply-adds, compiled with -mavx2 -mfma) and QMM_I8_ENTRY / QMM_I8_QUANT (the
// exported names).
//
// The activations are rounded to int8 once per call, per group of the weights' group size:
// xq = round(x / xd) with xd = max|x| / 127 over the group (QMM_I8_QUANT). Then, per group g of
// a weight row n, the unsigned weight codes q (0..15 or 0..255) are multiplied with the signed xq
// and summed in int32 lanes, with no intermediate saturation:
//   out[m, n] = sum_g scales[n, g] * xd[m, g] * dot(q[n, g], xq[m, g])
//             + sum_g biases[n, g] * xd[m, g] * sum(xq[m, g])
// which is x_hat @ dequantize(w).T for the rounded x_hat = xq * xd: an error of at most xd / 2
// per activation (like llama.cpp's Q8_0 x Q8_0 with 32-value blocks, or its K-quants with
// 256-value Q8_K blocks). The bias term takes the sums of the rounded values on purpose: with the
// exact sums the error would be sum(scales * q * (x_hat - x)), and the codes q are not centred
// (0..255), so the rounding errors' plain sum, times about half the group's range, would come in
// (4x the error on normal weights). VNNI: one 32-byte load of weights and one instruction feed
// 32 (8-bit) or 64 (4-bit) multiply-adds per activation row, against 8 for the float path.
// AVX2: 8-bit codes and xq are widened to int16 for VPMADDWD; 4-bit codes (at most 15) go
// straight into VPMADDUBSW, whose int16 pair sums cannot saturate (2 * 15 * 127).
// Only a group's total matters, so which int32 lane a product lands in does not.
// Scales and biases are read as stored, float32 or float16 (QmmArgs::hscales: widened 8 at a
// time by VCVTPH2PS, exactly, so both give the same bits).
//
// Digit planes (the *_x3 entries, QmmArgs::planes = 3): each row of x as three int8 rows at
// per-group scales d, d / 254 and d / 254^2 (plane 0 as above, each next plane the rounding of
// what the planes before it left over), so x = d * (q0 + q1 / 254 + q2 / 254^2) to within
// d / 254^2 / 2 = max|x| / 16.4M per value: the int8 rounding error is gone to float32's own
// precision (2^-24 of the group's largest value), and each plane's integer dot products are
// exact. One weight load feeds all three planes' dot products (three VNNI instructions where
// the float path needs 3 per 8 weights), and per group the planes' integer sums combine into
// one float (S_0 + S_1 / 254 + S_2 / 254^2) before the fold, so the per-group work and the
// bias term are one row's. Both builds have them (vnni-int8x3, avx2-int8x3); the AVX2 one runs
// three multiply chains of VPMADDUBSW (4 bits) or VPMADDWD (8 bits), which lose to the float
// path where integer multiplies are slow (AMD Zen 1), so the load-time timing decides.
//
// Planar 5- and 6-bit weights (qmm_api.h; group sizes 32 and 16, K a multiple of 64) unpack
// their low nibbles as 4-bit ones do and OR each code's high bits in as bit 4 (and 5) of its
// byte, from a byte broadcast of the row's high plane (dot64's `high`). Codes of at most 63 keep
// VPMADDUBSW's pair sums unsaturated, both halves' included (2 * 2 * 63 * 127 < 32768).
//
// xq order: 8-bit weights take x in natural order. 4-bit weights are unpacked as the low
// nibbles (values 2i) and the high nibbles (values 2i + 1) of a run of bytes, so xq holds each
// chunk of 64 values as its even values, then its odd ones (a last 32 values likewise).
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "qmm_api.h"

#ifndef QMM_I8_VNNI
#error "QMM_I8_VNNI must be defined"
#endif

#ifndef QMM_I8_AHEAD
#define QMM_I8_AHEAD 4096
#endif

namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline __m256i load32(const void* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// acc + the products of 32 unsigned 8-bit codes w with 32 signed xq values x.
inline __m256i dot8(__m256i acc, __m256i w, __m256i x) {
#if QMM_I8_VNNI
  return _mm256_dpbusd_epi32(acc, w, x);
#else
  const __m256i lo = _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(w)),
                                       _mm256_cvtepi8_epi16(_mm256_castsi256_si128(x)));
  const __m256i hi = _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm256_extracti128_si256(w, 1)),
                                       _mm256_cvtepi8_epi16(_mm256_extracti128_si256(x, 1)));
  return _mm256_add_epi32(acc, _mm256_add_epi32(lo, hi));
#endif
}

// The same for codes of at most 15 (4-bit weights).
inline __m256i dot4(__m256i acc, __m256i w, __m256i x) {
#if QMM_I8_VNNI
  return _mm256_dpbusd_epi32(acc, w, x);
#else
  return _mm256_add_epi32(
      acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, x), _mm256_set1_epi16(1)));
#endif
}

// Values of xq per load: 32 for 8 bits; for 4 bits the chunk C whose even values fill one
// 32-byte vector and odd values the next (C = 64), or both halves of one vector (C = 32: only
// the last group of a row with an odd count of 32-value groups; the others go in pairs).
template <int BITS, int GS>
constexpr int chunk() {
  return BITS == 8 ? 32 : (GS >= 64 ? 64 : 32);
}

// 8 scales or biases of a row from index i (count < 8: the first count, the rest 0), as floats:
// float16 bit patterns (HALF) widened by VCVTPH2PS, which is exact, or float32 ones. A short
// count is a masked load with AVX-512 (VNNI build), a copy with AVX2.
template <bool HALF>
inline __m256 load8(const void* base, size_t i, int count) {
  if constexpr (HALF) {
    const uint16_t* p = static_cast<const uint16_t*>(base) + i;
    if (count >= 8) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#if QMM_I8_VNNI
    return _mm256_cvtph_ps(_mm_maskz_loadu_epi16(__mmask8((1u << count) - 1), p));
#else
    alignas(16) uint16_t t[8] = {};
    std::memcpy(t, p, sizeof(uint16_t) * count);
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
#endif
  } else {
    const float* p = static_cast<const float*>(base) + i;
    if (count >= 8) return _mm256_loadu_ps(p);
#if QMM_I8_VNNI
    return _mm256_maskz_loadu_ps(__mmask8((1u << count) - 1), p);
#else
    alignas(32) float t[8] = {};
    std::memcpy(t, p, sizeof(float) * count);
    return _mm256_load_ps(t);
#endif
  }
}

// The high bits of 64 planar codes k .. k + 63 ORed into their low nibbles: lo holds the even
// codes' nibbles (byte p: code k + 2p), hi the odd ones'. h: the row's high plane. 5 bits: bit
// 2 (p % 4) (even) or 2 (p % 4) + 1 (odd) of plane byte (k / 8) + p / 4 -> bit 4. 6 bits: the
// two bits of code c at bits 2 (c % 8) of 16-bit plane word c / 8 -> bits 4 and 5.
template <int BITS>
inline void high_bits(const uint8_t* h, int k, __m256i& lo, __m256i& hi) {
  const __m256i s16 = _mm256_set1_epi8(16);
  if constexpr (BITS == 5) {
    uint64_t bits;
    std::memcpy(&bits, h + k / 8, 8);
    const __m256i b = _mm256_shuffle_epi8(
        _mm256_set1_epi64x(int64_t(bits)),
        _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                         4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7));
    const __m256i me = _mm256_set1_epi32(0x40100401), mo = _mm256_set1_epi32(int(0x80200802u));
    lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(b, me), me),
                                              s16));
    hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(b, mo), mo),
                                              s16));
  } else {
    // byte p <- plane byte 2 (p / 4) + (p % 4) / 2 (of the 16 bytes from k / 4)
    const __m256i b = _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + k / 4))),
        _mm256_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
                         8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15));
    // even codes: bits 0-1 (even p) or 4-5 (odd p); odd codes: bits 2-3 or 6-7
    const __m256i m01 = _mm256_set1_epi16(0x0003), m45 = _mm256_set1_epi16(0x3000);
    const __m256i m23 = _mm256_set1_epi16(0x000C), m67 = _mm256_set1_epi16(int16_t(0xC000u));
    lo = _mm256_or_si256(lo, _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(b, m01), 4),
                                             _mm256_and_si256(b, m45)));
    hi = _mm256_or_si256(hi, _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(b, m23), 2),
                                             _mm256_srli_epi16(_mm256_and_si256(b, m67), 2)));
  }
}

// acc[r][t] + the products of 64 4-bit codes of weight row t (32 bytes from w[t] + k / 2: the low
// nibbles meet the chunk's even xq at k, the high ones its odd xq at k + 32) with activation
// row r of xq (row stride K). BITS 5 or 6: planar codes, h[t] row t's high plane.
template <int R, int NR, int BITS = 4>
inline void dot64(__m256i (&acc)[R][NR], const uint8_t* const (&w)[NR], const int8_t* xq, int K,
                  int k, const uint8_t* const* h = nullptr) {
  const __m256i low = _mm256_set1_epi8(15);
  __m256i xe[R], xo[R];
  for (int r = 0; r < R; ++r) {
    xe[r] = load32(xq + size_t(r) * K + k);
    xo[r] = load32(xq + size_t(r) * K + k + 32);
  }
  for (int t = 0; t < NR; ++t) {
    const __m256i raw = load32(w[t] + k / 2);
    __m256i lo = _mm256_and_si256(raw, low);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low);
    if constexpr (BITS != 4) high_bits<BITS>(h[t], k, lo, hi);
#if QMM_I8_VNNI
    for (int r = 0; r < R; ++r) acc[r][t] = dot4(dot4(acc[r][t], lo, xe[r]), hi, xo[r]);
#else
    // both halves' int16 pair sums added before the widening multiply-add: each is at most
    // 2 * 15 * 127, so their sum cannot saturate either (one VPMADDWD and one add saved)
    for (int r = 0; r < R; ++r)
      acc[r][t] = _mm256_add_epi32(
          acc[r][t], _mm256_madd_epi16(_mm256_adds_epi16(_mm256_maddubs_epi16(lo, xe[r]),
                                                         _mm256_maddubs_epi16(hi, xo[r])),
                                       _mm256_set1_epi16(1)));
#endif
  }
}

// R activation rows x NR weight rows starting at (m0, n). Per group, the int32 sums of the
// codes times xq; per 8 groups, the factors scales[n, g] * xd[m, g] as one vector; each group's
// sums are converted and multiply-added with its factor (a lane permute) into one float
// accumulator per output. 4-bit weights at group size 32 go two groups at a time:
// one 32-byte load of 64 codes, whose low and high nibbles meet the chunk's even and odd xq, and
// int32 lanes 0-3 then hold the first group's sums and lanes 4-7 the second's.
constexpr int kPlanes = 3;  // digit planes per row of x (the *_x3 entries)
// Plane p's step is the group's step d times kStep[p]; the planes' integer sums S_p of one group
// combine as S_0 + S_1 * kStep[1] + S_2 * kStep[2] before the float fold (d is one factor).
constexpr float kStep[kPlanes] = {1.0f, 1.0f / 254.0f, 1.0f / 64516.0f};

template <int BITS, int GS, int R, int NR, bool HALF, bool PLANES = false>
inline void tile(const QmmArgs& a, int m0, int n) {
  const int K = a.K, G = K / GS;
  const size_t wrow = size_t(K) * BITS / 8;
  const void* sbase = HALF ? static_cast<const void*>(a.hscales) : a.scales;
  const void* bbase = HALF ? static_cast<const void*>(a.hbiases) : a.biases;
  constexpr bool PLANAR = BITS == 5 || BITS == 6;
  const uint8_t* w[NR];
  const uint8_t* h[NR];  // planar bits: the rows' high planes
  for (int t = 0; t < NR; ++t) {
    w[t] = reinterpret_cast<const uint8_t*>(a.w) + size_t(n + t) * wrow;
    h[t] = w[t] + K / 2;
  }
  // PLANES: the R rows of xq are the digit planes of output rows m0, m0 + 1, ... (kPlanes
  // each), whose xd and xsum rows are one per output row (the group's step d; the sums of the
  // three planes' values)
  constexpr int RO = PLANES ? R / kPlanes : R;  // output rows
  static_assert(!PLANES || R % kPlanes == 0, "whole rows of planes");
  const int8_t* xq = a.xq + size_t(m0) * (PLANES ? kPlanes : 1) * K;
  const float* xd = a.xd + size_t(m0) * G;
  const float* xsum = a.xsum + size_t(m0) * G;
  const __m256i low = _mm256_set1_epi8(15);
  __m256 facc[RO][NR];
  for (int r = 0; r < RO; ++r)
    for (int t = 0; t < NR; ++t) facc[r][t] = _mm256_setzero_ps();
  auto fold = [&](__m256i (&acc)[R][NR], const __m256 (&f)[RO][NR], __m256i lanes) {
    for (int r = 0; r < RO; ++r)
      for (int t = 0; t < NR; ++t) {
        __m256 v;
        if constexpr (PLANES) {
          const int p0 = r * kPlanes;
          // (S_2 * kStep[2] / kStep[1] + S_1) * kStep[1] + S_0
          v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[p0 + 2][t]),
                              _mm256_set1_ps(kStep[2] / kStep[1]),
                              _mm256_cvtepi32_ps(acc[p0 + 1][t]));
          v = _mm256_fmadd_ps(v, _mm256_set1_ps(kStep[1]), _mm256_cvtepi32_ps(acc[p0][t]));
        } else {
          v = _mm256_cvtepi32_ps(acc[r][t]);
        }
        facc[r][t] = _mm256_fmadd_ps(v, _mm256_permutevar8x32_ps(f[r][t], lanes), facc[r][t]);
      }
  };
  for (int g0 = 0; g0 < G; g0 += 8) {
    const int nb = std::min(8, G - g0);
    __m256 f[RO][NR];  // scales * xd of groups g0 .. g0 + 7
    {
      // the bias term first, into the accumulators: biases * the group sums of the rounded x
      __m256 sv[NR], xv[RO];
      for (int t = 0; t < NR; ++t) sv[t] = load8<HALF>(bbase, size_t(n + t) * G + g0, nb);
      for (int r = 0; r < RO; ++r) xv[r] = load8<false>(xsum, size_t(r) * G + g0, nb);
      for (int r = 0; r < RO; ++r)
        for (int t = 0; t < NR; ++t) facc[r][t] = _mm256_fmadd_ps(sv[t], xv[r], facc[r][t]);
      for (int t = 0; t < NR; ++t) sv[t] = load8<HALF>(sbase, size_t(n + t) * G + g0, nb);
      for (int r = 0; r < RO; ++r) xv[r] = load8<false>(xd, size_t(r) * G + g0, nb);
      for (int r = 0; r < RO; ++r)
        for (int t = 0; t < NR; ++t) f[r][t] = _mm256_mul_ps(sv[t], xv[r]);
    }
    // the same bytes QMM_I8_AHEAD further on (rows later in the stream)
    for (int t = 0; t < NR; ++t)
      for (int off = 0; off < nb * GS * BITS / 8; off += 64)
        __builtin_prefetch(w[t] + QMM_I8_AHEAD + size_t(g0) * GS * BITS / 8 + off);
    int j = 0;
    if constexpr (PLANAR) {  // 64 codes: two groups of 32 (5 bits) or four of 16 (6 bits)
      constexpr int PER = 64 / GS;
      for (; j + PER <= nb; j += PER) {
        __m256i acc[R][NR];
        for (int r = 0; r < R; ++r)
          for (int t = 0; t < NR; ++t) acc[r][t] = _mm256_setzero_si256();
        dot64<R, NR, BITS>(acc, w, xq, K, (g0 + j) * GS, h);
        fold(acc, f, _mm256_add_epi32(_mm256_set1_epi32(j),
                                      PER == 2 ? _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)
                                               : _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)));
      }
    }
    if constexpr (BITS == 4 && GS == 32) {
      for (; j + 2 <= nb; j += 2) {
        __m256i acc[R][NR];
        for (int r = 0; r < R; ++r)
          for (int t = 0; t < NR; ++t) acc[r][t] = _mm256_setzero_si256();
        dot64(acc, w, xq, K, (g0 + j) * GS);
        fold(acc, f, _mm256_add_epi32(_mm256_set1_epi32(j), _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)));
      }
    }
    if constexpr (BITS == 8 && GS == 32) {
      for (; j + 2 <= nb; j += 2) {  // two groups' sums into one vector by a horizontal add
        const int k = (g0 + j) * GS;
        __m256i acc[R][NR];
        __m256i xa[R], xb[R];
        for (int r = 0; r < R; ++r) {
          xa[r] = load32(xq + size_t(r) * K + k);
          xb[r] = load32(xq + size_t(r) * K + k + 32);
        }
        for (int t = 0; t < NR; ++t) {
          const __m256i qa = load32(w[t] + k), qb = load32(w[t] + k + 32);
          for (int r = 0; r < R; ++r)
            acc[r][t] = _mm256_hadd_epi32(dot8(_mm256_setzero_si256(), qa, xa[r]),
                                          dot8(_mm256_setzero_si256(), qb, xb[r]));
        }
        fold(acc, f, _mm256_add_epi32(_mm256_set1_epi32(j), _mm256_setr_epi32(0, 0, 1, 1, 0, 0, 1, 1)));
      }
    }
    for (; !PLANAR && j < nb; ++j) {  // (planar rows: K a multiple of 64, whole chunks only)
      const int g = g0 + j;
      __m256i acc[R][NR];
      for (int r = 0; r < R; ++r)
        for (int t = 0; t < NR; ++t) acc[r][t] = _mm256_setzero_si256();
      constexpr int C = PLANAR ? 64 : chunk<BITS, GS>();
#pragma GCC unroll 4
      for (int c = 0; c < GS / C; ++c) {
        const int k = g * GS + c * C;  // first value of the chunk
        if constexpr (BITS == 8) {
          __m256i xv[R];
          for (int r = 0; r < R; ++r) xv[r] = load32(xq + size_t(r) * K + k);
          for (int t = 0; t < NR; ++t) {
            const __m256i q = load32(w[t] + k);
            for (int r = 0; r < R; ++r) acc[r][t] = dot8(acc[r][t], q, xv[r]);
          }
        } else if constexpr (C == 64) {
          dot64(acc, w, xq, K, k);
        } else {  // 4 bits, a last odd group of 32: 16 bytes, low nibbles then high ones
          __m256i xv[R];
          for (int r = 0; r < R; ++r) xv[r] = load32(xq + size_t(r) * K + k);
          for (int t = 0; t < NR; ++t) {
            const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[t] + k / 2));
            const __m256i both = _mm256_and_si256(
                _mm256_set_m128i(_mm_srli_epi16(raw, 4), raw), low);
            for (int r = 0; r < R; ++r) acc[r][t] = dot4(acc[r][t], both, xv[r]);
          }
        }
      }
      fold(acc, f, _mm256_set1_epi32(j));
    }
  }
  for (int r = 0; r < RO; ++r)
    for (int t = 0; t < NR; ++t) a.out[size_t(m0 + r) * a.N + n + t] = hsum(facc[r][t]);
}

template <int BITS, int GS, int R, int NR, bool PLANES = false>
inline void block(const QmmArgs& a, int m0, int n0, int n1) {
  int n = n0;
  if (a.hscales) {
    for (; n + NR <= n1; n += NR) tile<BITS, GS, R, NR, true, PLANES>(a, m0, n);
    for (; n < n1; ++n) tile<BITS, GS, R, 1, true, PLANES>(a, m0, n);
  } else {
    for (; n + NR <= n1; n += NR) tile<BITS, GS, R, NR, false, PLANES>(a, m0, n);
    for (; n < n1; ++n) tile<BITS, GS, R, 1, false, PLANES>(a, m0, n);
  }
}

// Weight rows one at a time (NR = 1) wherever the weights stream from memory: one sequential
// stream keeps the hardware prefetchers going, where 4 interleaved rows (the float path's tile)
// halve the bandwidth (8-bit 3072x512 layers from DRAM, one thread, 1 activation row: 20 GB/s
// against 8; a plain read of memory reaches ~23 GB/s on these machines). From 8 rows up the tile
// is compute-bound and 2 weight rows sharing each activation load are ~5% faster.
template <int BITS, int GS>
void rows(const QmmArgs& a, int n0, int n1) {
  if (a.planes == kPlanes) {  // one pass over the weights per two rows of x, planes together
    int m = 0;
#if QMM_I8_VNNI  // 32 vector registers: two rows' planes at once
    for (; m + 2 <= a.M; m += 2) block<BITS, GS, 2 * kPlanes, 1, true>(a, m, n0, n1);
#endif
    for (; m < a.M; ++m) block<BITS, GS, kPlanes, 1, true>(a, m, n0, n1);
    return;
  }
  int m = 0;
  if (a.M >= 8)
    for (; m + 4 <= a.M; m += 4) block<BITS, GS, 4, 2>(a, m, n0, n1);
  for (; m + 4 <= a.M; m += 4) block<BITS, GS, 4, 1>(a, m, n0, n1);
  if (a.M - m >= 2) {
    block<BITS, GS, 2, 1>(a, m, n0, n1);
    m += 2;
  }
  if (a.M - m >= 1) block<BITS, GS, 1, 1>(a, m, n0, n1);
}

// Rounds 32 floats at p times inv to int8 (nearest, ties to even) in natural order at dst;
// returns sum plus them (int32 lanes).
inline __m256i round32(const float* p, __m256 inv, int8_t* dst, __m256i sum) {
  __m256i v[4];
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p + 8 * i), inv));
    sum = _mm256_add_epi32(sum, v[i]);
  }
  // the packs work per 128-bit lane: values come out in the order 0-3 8-11 16-19 24-27 4-7 ...
  const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]),
                                            _mm256_packs_epi32(v[2], v[3]));
  _mm256_storeu_si256(
      reinterpret_cast<__m256i*>(dst),
      _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  return sum;
}

// The same for 16 floats (group size 16).
inline __m256i round16(const float* p, __m256 inv, int8_t* dst, __m256i sum) {
  const __m256i v0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p), inv));
  const __m256i v1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p + 8), inv));
  sum = _mm256_add_epi32(sum, _mm256_add_epi32(v0, v1));
  // per 128-bit lane: 0-3 8-11 | 4-7 12-15 as int16, then bytes 0-3 8-11 ... 4-7 12-15
  const __m256i w16 = _mm256_packs_epi32(v0, v1);
  const __m128i b = _mm_packs_epi16(_mm256_castsi256_si128(w16), _mm256_extracti128_si256(w16, 1));
  // b: 0-3 8-11 4-7 12-15 -> natural order
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                   _mm_shuffle_epi32(b, _MM_SHUFFLE(3, 1, 2, 0)));
  return sum;
}

// 32 int8 values in natural order -> their 16 even ones (low 128 bits), then the 16 odd ones.
inline __m256i split_even_odd(__m256i v) {
  const __m256i lanes = _mm256_shuffle_epi8(
      v, _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                          0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
  return _mm256_permute4x64_epi64(lanes, 0xD8);  // 64-bit blocks 0 2 1 3
}

inline int hmax(__m256i v) {
  __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
  return _mm_cvtsi128_si32(m);
}

inline int hsum_i(__m256i v) {
  __m128i m = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0xB1));
  return _mm_cvtsi128_si32(m);
}

}  // namespace

namespace {

// One row x[:K] rounded to int8 per group of GS values: q = round(x / d) with d = max|x| / 127
// over the group, or d = fixed[g] where fixed is given (a digit plane); writes d to xd, the sum
// of the rounded values times d to xsum, and where resid is given x - q * d (natural order),
// then puts q in the kernel's order (4 bits: each chunk's evens, then its odds).
void quant_row(const float* xr, int K, int GS, int bits, const float* fixed, int8_t* q,
               float* xd, float* xsum, float* resid) {
  const int G = K / GS;
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
  for (int g = 0; g < G; ++g) {
    const float* x = xr + size_t(g) * GS;
    float d, inv;
    if (fixed) {
      d = fixed[g];
      inv = std::isfinite(d) && d > 0.f ? 1.f / d : 0.f;
    } else {
      // max |x| on the bit patterns: they order like the values, and NaN above infinity
      __m256i mx = _mm256_setzero_si256();
      for (int i = 0; i < GS; i += 8)
        mx = _mm256_max_epi32(
            mx, _mm256_and_si256(_mm256_castps_si256(_mm256_loadu_ps(x + i)), abs_mask));
      const int top = hmax(mx);
      float amax;
      std::memcpy(&amax, &top, sizeof amax);
      // a NaN or infinity makes the group's scale NaN, so the outputs it feeds are NaN (as on
      // the float paths) rather than finite values computed from clipped codes
      const bool finite = std::isfinite(amax);
      d = finite ? amax / 127.f : std::numeric_limits<float>::quiet_NaN();
      inv = finite && amax > 0.f ? 127.f / amax : 0.f;
    }
    xd[g] = d;
    const __m256 iv = _mm256_set1_ps(inv);
    __m256i sum = _mm256_setzero_si256();
    if (GS % 32 == 0)
      for (int i = 0; i < GS; i += 32) sum = round32(x + i, iv, q + size_t(g) * GS + i, sum);
    else  // group size 16
      sum = round16(x, iv, q + size_t(g) * GS, sum);
    xsum[g] = d * float(hsum_i(sum));
    if (resid) {
      const __m256 dv = _mm256_set1_ps(d);
      for (int i = 0; i < GS; i += 8) {
        const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + size_t(g) * GS + i));
        const __m256 qv = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
        _mm256_storeu_ps(resid + size_t(g) * GS + i,
                         _mm256_fnmadd_ps(qv, dv, _mm256_loadu_ps(x + i)));
      }
    }
  }
  if (bits == 8) return;
  // 4 bits: each chunk of 64 values (two groups of 32 at group size 32) as its evens, then
  // its odds; a last 32 values (an odd count of 32-value groups) as its 16 evens, then odds
  int c = 0;
  for (; c + 64 <= K; c += 64) {
    __m256i* out = reinterpret_cast<__m256i*>(q + c);
    const __m256i v0 = split_even_odd(_mm256_loadu_si256(out));
    const __m256i v1 = split_even_odd(_mm256_loadu_si256(out + 1));
    _mm256_storeu_si256(out, _mm256_permute2x128_si256(v0, v1, 0x20));
    _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(v0, v1, 0x31));
  }
  if (c < K) {
    __m256i* out = reinterpret_cast<__m256i*>(q + c);
    _mm256_storeu_si256(out, split_even_odd(_mm256_loadu_si256(out)));
  }
}

}  // namespace

void QMM_I8_QUANT(const QmmArgs& a, int8_t* xq, float* xd, float* xsum) {
  const int K = a.K, G = K / a.group_size;
  for (int m = 0; m < a.M; ++m)
    quant_row(a.x + size_t(m) * K, K, a.group_size, a.bits, nullptr, xq + size_t(m) * K,
              xd + size_t(m) * G, xsum + size_t(m) * G, nullptr);
}

#ifdef QMM_I8_ENTRY3
// The digit planes of each row of x: rows m * kPlanes + p of xq hold plane p of row m, which
// rounds what planes 0 .. p - 1 left at the step d * kStep[p]; xd holds d (plane 0's step) and
// xsum the sums of all three planes' values, one row each per row of x.
void QMM_I8_QUANT3(const QmmArgs& a, int8_t* xq, float* xd, float* xsum) {
  const int K = a.K, G = K / a.group_size;
  std::vector<float> rest(2 * size_t(K)), step(G), pd(G), ps(G);
  for (int m = 0; m < a.M; ++m) {
    const float* src = a.x + size_t(m) * K;
    float* d = xd + size_t(m) * G;
    float* sums = xsum + size_t(m) * G;
    for (int p = 0; p < kPlanes; ++p) {
      float* dst = p + 1 < kPlanes ? rest.data() + size_t(p % 2) * K : nullptr;
      quant_row(src, K, a.group_size, a.bits, p ? step.data() : nullptr,
                xq + (size_t(m) * kPlanes + p) * K, p ? pd.data() : d, p ? ps.data() : sums,
                dst);
      for (int g = 0; g < G; ++g) {
        if (p) sums[g] += ps[g];
        if (p + 1 < kPlanes) step[g] = d[g] * kStep[p + 1];
      }
      src = dst;
    }
  }
}

void QMM_I8_ENTRY3(const QmmArgs& a, int n0, int n1) {
  QmmArgs p = a;
  p.planes = kPlanes;
  qmm_dispatch<true>(p, [&](auto bits, auto gs) {
    rows<decltype(bits)::value, decltype(gs)::value>(p, n0, n1);
  });
}

#endif

void QMM_I8_ENTRY(const QmmArgs& a, int n0, int n1) {
  qmm_dispatch<true>(a, [&](auto bits, auto gs) {
    rows<decltype(bits)::value, decltype(gs)::value>(a, n0, n1);
  });
}
