// Quantized weights times int8 activations with VNNI dot products (compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512vnni -mfma; only 256-bit vectors, EVEX-encoded).
//
// The activations are rounded to int8 once per call, per group of the weights' group size:
// xq = round(x / xd) with xd = max|x| / 127 over the group (qmm_vnni_quant). Then, per group g of
// a weight row n, VPDPBUSD multiplies the unsigned weight codes q (0..15 or 0..255) with the
// signed xq and sums four products into each int32 lane, with no intermediate saturation:
//   out[m, n] = sum_g scales[n, g] * xd[m, g] * dot(q[n, g], xq[m, g])
//             + sum_g biases[n, g] * xd[m, g] * sum(xq[m, g])
// which is x_hat @ dequantize(w).T for the rounded x_hat = xq * xd: an error of at most xd / 2
// per activation (like llama.cpp's Q8_0 x Q8_0 with 32-value blocks, or its K-quants with
// 256-value Q8_K blocks). The bias term takes the sums of the rounded values on purpose: with the
// exact sums the error would be sum(scales * q * (x_hat - x)), and the codes q are not centred
// (0..255), so the rounding errors' plain sum, times about half the group's range, would come in
// (4x the error on normal weights). One 32-byte load feeds 32 (8-bit) or 64 (4-bit)
// multiply-adds per activation row, against 8 for the float path.
//
// xq order: 8-bit weights take x in natural order. 4-bit weights are unpacked as the low
// nibbles (values 2i) and the high nibbles (values 2i + 1) of a run of bytes, so xq holds each
// chunk of C values (C = 64, or 32 for group size 32) as its even values, then its odd ones.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "qmm_api.h"

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

// Values of xq per load: 32 for 8 bits; for 4 bits the chunk C whose even values fill one
// 32-byte vector and odd values the next (C = 64), or both halves of one vector (C = 32).
template <int BITS, int GS>
constexpr int chunk() {
  return BITS == 8 ? 32 : (GS >= 64 ? 64 : 32);
}

// R activation rows x NR weight rows starting at (m0, n): int32 sums per group, folded into
// float accumulators with scales[n, g] * xd[m, g] once per group.
template <int BITS, int GS, int R, int NR>
inline void tile(const QmmArgs& a, int m0, int n) {
  const int K = a.K, G = K / GS;
  const size_t wrow = size_t(K) * BITS / 8;
  const uint8_t* w[NR];
  const float* s[NR];
  for (int t = 0; t < NR; ++t) {
    w[t] = reinterpret_cast<const uint8_t*>(a.w) + size_t(n + t) * wrow;
    s[t] = a.scales + size_t(n + t) * G;
  }
  const int8_t* xq = a.xq + size_t(m0) * K;
  const float* xd = a.xd + size_t(m0) * G;
  const __m256i low = _mm256_set1_epi8(15);
  __m256 facc[R][NR];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) facc[r][t] = _mm256_setzero_ps();
  for (int g = 0; g < G; ++g) {
    __m256i acc[R][NR];
    for (int r = 0; r < R; ++r)
      for (int t = 0; t < NR; ++t) acc[r][t] = _mm256_setzero_si256();
    // the same group of the next tile's rows
    for (int t = 0; t < NR; ++t)
      for (int off = 0; off < GS * BITS / 8; off += 64)
        __builtin_prefetch(w[t] + NR * wrow + size_t(g) * GS * BITS / 8 + off);
    constexpr int C = chunk<BITS, GS>();
#pragma GCC unroll 4
    for (int c = 0; c < GS / C; ++c) {
      const int k = g * GS + c * C;  // first value of the chunk
      if constexpr (BITS == 8) {
        __m256i xv[R];
        for (int r = 0; r < R; ++r) xv[r] = load32(xq + size_t(r) * K + k);
        for (int t = 0; t < NR; ++t) {
          const __m256i q = load32(w[t] + k);
          for (int r = 0; r < R; ++r) acc[r][t] = _mm256_dpbusd_epi32(acc[r][t], q, xv[r]);
        }
      } else if constexpr (C == 64) {
        __m256i xe[R], xo[R];
        for (int r = 0; r < R; ++r) {
          xe[r] = load32(xq + size_t(r) * K + k);
          xo[r] = load32(xq + size_t(r) * K + k + 32);
        }
        for (int t = 0; t < NR; ++t) {
          const __m256i raw = load32(w[t] + k / 2);
          const __m256i lo = _mm256_and_si256(raw, low);
          const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low);
          for (int r = 0; r < R; ++r) {
            acc[r][t] = _mm256_dpbusd_epi32(acc[r][t], lo, xe[r]);
            acc[r][t] = _mm256_dpbusd_epi32(acc[r][t], hi, xo[r]);
          }
        }
      } else {  // 4 bits, 32-value groups: 16 bytes, low nibbles then high ones in one vector
        __m256i xv[R];
        for (int r = 0; r < R; ++r) xv[r] = load32(xq + size_t(r) * K + k);
        for (int t = 0; t < NR; ++t) {
          const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[t] + k / 2));
          const __m256i both = _mm256_and_si256(
              _mm256_set_m128i(_mm_srli_epi16(raw, 4), raw), low);
          for (int r = 0; r < R; ++r) acc[r][t] = _mm256_dpbusd_epi32(acc[r][t], both, xv[r]);
        }
      }
    }
    for (int t = 0; t < NR; ++t) {
      const float st = s[t][g];
      for (int r = 0; r < R; ++r)
        facc[r][t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][t]),
                                     _mm256_set1_ps(st * xd[size_t(r) * G + g]), facc[r][t]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) {
      const float* b = a.biases + size_t(n + t) * G;
      const float* xs = a.xsum + size_t(m0 + r) * G;
      __m256 bv = _mm256_setzero_ps();
      int g = 0;
      for (; g + 8 <= G; g += 8)
        bv = _mm256_fmadd_ps(_mm256_loadu_ps(b + g), _mm256_loadu_ps(xs + g), bv);
      float bias = hsum(bv);
      for (; g < G; ++g) bias += b[g] * xs[g];
      a.out[size_t(m0 + r) * a.N + n + t] = hsum(facc[r][t]) + bias;
    }
}

template <int BITS, int GS, int R, int NR>
inline void block(const QmmArgs& a, int m0, int n0, int n1) {
  int n = n0;
  for (; n + NR <= n1; n += NR) tile<BITS, GS, R, NR>(a, m0, n);
  for (; n < n1; ++n) tile<BITS, GS, R, 1>(a, m0, n);
}

// Weight rows one at a time (NR = 1) wherever the weights stream from memory: one sequential
// stream keeps the hardware prefetchers going, where 4 interleaved rows (the float path's tile)
// halve the bandwidth (8-bit 3072x512 layers from DRAM, one thread, 1 activation row: 20 GB/s
// against 8; a plain read of memory reaches ~23 GB/s on these machines). From 8 rows up the tile
// is compute-bound and 2 weight rows sharing each activation load are ~5% faster.
template <int BITS, int GS>
void rows(const QmmArgs& a, int n0, int n1) {
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

template <int BITS>
void dispatch_gs(const QmmArgs& a, int n0, int n1) {
  switch (a.group_size) {
    case 32:
      rows<BITS, 32>(a, n0, n1);
      break;
    case 64:
      rows<BITS, 64>(a, n0, n1);
      break;
    default:
      rows<BITS, 128>(a, n0, n1);
      break;
  }
}

// Rounds 16 floats times inv to int8 (nearest, ties to even), stores them at dst and returns
// sum plus them.
inline __m512i round16(__m512 v, __m512 inv, int8_t* dst, __m512i sum) {
  const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(v, inv));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm512_cvtsepi32_epi8(q));
  return _mm512_add_epi32(sum, q);
}

}  // namespace

void qmm_vnni_quant(const QmmArgs& a, int8_t* xq, float* xd, float* xsum) {
  const int K = a.K, GS = a.group_size, G = K / GS;
  const int C = a.bits == 8 ? 0 : (GS >= 64 ? 64 : 32);  // 4 bits: even/odd split per C values
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  for (int m = 0; m < a.M; ++m)
    for (int g = 0; g < G; ++g) {
      const float* x = a.x + size_t(m) * K + size_t(g) * GS;
      int8_t* q = xq + size_t(m) * K + size_t(g) * GS;
      // max |x| on the bit patterns: they order like the values, and NaN above infinity
      __m512i mx = _mm512_setzero_si512();
      for (int i = 0; i < GS; i += 16)
        mx = _mm512_max_epi32(
            mx, _mm512_and_si512(_mm512_castps_si512(_mm512_loadu_ps(x + i)), abs_mask));
      const int top = _mm512_reduce_max_epi32(mx);
      float amax;
      std::memcpy(&amax, &top, sizeof amax);
      // a NaN or infinity makes the group's scale NaN, so the outputs it feeds are NaN (as on
      // the float paths) rather than finite values computed from clipped codes
      const bool finite = std::isfinite(amax);
      const float d = finite ? amax / 127.f : std::numeric_limits<float>::quiet_NaN();
      xd[size_t(m) * G + g] = d;
      const __m512 inv = _mm512_set1_ps(finite && amax > 0.f ? 127.f / amax : 0.f);
      __m512i sum = _mm512_setzero_si512();
      if (C == 0) {
        for (int i = 0; i < GS; i += 16) sum = round16(_mm512_loadu_ps(x + i), inv, q + i, sum);
      } else {
        for (int c = 0; c < GS; c += C)
          for (int i = 0; i < C; i += 32) {  // 32 values -> 16 even (first half), 16 odd
            const __m512 v0 = _mm512_loadu_ps(x + c + i), v1 = _mm512_loadu_ps(x + c + i + 16);
            sum = round16(_mm512_permutex2var_ps(v0, even, v1), inv, q + c + i / 2, sum);
            sum = round16(_mm512_permutex2var_ps(v0, odd, v1), inv, q + c + C / 2 + i / 2, sum);
          }
      }
      xsum[size_t(m) * G + g] = d * float(_mm512_reduce_add_epi32(sum));
    }
}

void qmm_vnni(const QmmArgs& a, int n0, int n1) {
  if (a.bits == 4)
    dispatch_gs<4>(a, n0, n1);
  else
    dispatch_gs<8>(a, n0, n1);
}
