// Quantized matmul kernel body, compiled once per instruction set.
//
// Each including translation unit defines QMM_VL (float lanes: 16 for AVX-512, 8 for AVX2,
// 4 for the portable build) and QMM_ENTRY (the exported function name), and is compiled with the
// matching -m flags. Everything else lives in an anonymous namespace so that the per-ISA copies
// never merge at link time.
//
// Layout (MLX's affine quantization, `mx.quantize`): w is uint32 [N, K * bits / 32], each word
// packs 32 / bits values, lowest bits first; scales and biases are float32 [N, K / group_size];
// w_hat[n, k] = scales[n, k / gs] * q[n, k] + biases[n, k / gs].
//
// out[m, n] = sum_g scales[n, g] * dot(x[m, g], q[n, g]) + biases[n, g] * sum(x[m, g])
// The group sums of x are computed once per call; the dot products use float FMAs on the
// unpacked integers, so the only difference from MLX's reference is the order of float sums.
#pragma once

#include <cstdint>
#include <cstring>

#include "qmm_api.h"

#if QMM_VL > 4
#include <immintrin.h>
#endif

#ifndef QMM_VL
#error "QMM_VL must be defined"
#endif

namespace {

typedef float vf __attribute__((vector_size(QMM_VL * 4)));
typedef float vf_u __attribute__((vector_size(QMM_VL * 4), aligned(4)));

constexpr int VL = QMM_VL;
constexpr int MB = 8;  // activation rows handled per pass over a weight row

inline vf loadf(const float* p) {
  return *reinterpret_cast<const vf_u*>(p);
}

inline float hsum(vf v) {
  float s = 0.f;
  for (int i = 0; i < VL; ++i) s += v[i];
  return s;
}

// Unpacks VL quantized values starting at value index `k0` of a weight row into floats.
// For 4 bits, word w holds values 8w..8w+7, value i at bits 4i (byte j: values 2j, 2j + 1).
template <int BITS>
inline vf unpack(const uint8_t* row, int k0);

#if QMM_VL == 16
template <>
inline vf unpack<8>(const uint8_t* row, int k0) {
  __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k0));
  return (vf)_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b));
}

template <>
inline vf unpack<4>(const uint8_t* row, int k0) {
  uint32_t w[2];
  std::memcpy(w, row + k0 / 2, 8);
  __m512i v = _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_set1_epi32(int(w[0]))), _mm256_set1_epi32(int(w[1])), 1);
  const __m512i shifts =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
  v = _mm512_and_si512(_mm512_srlv_epi32(v, shifts), _mm512_set1_epi32(15));
  return (vf)_mm512_cvtepi32_ps(v);
}
#elif QMM_VL == 8
template <>
inline vf unpack<8>(const uint8_t* row, int k0) {
  __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + k0));
  return (vf)_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
}

template <>
inline vf unpack<4>(const uint8_t* row, int k0) {
  uint32_t w;
  std::memcpy(&w, row + k0 / 2, 4);
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  __m256i v = _mm256_srlv_epi32(_mm256_set1_epi32(int(w)), shifts);
  return (vf)_mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(15)));
}
#else
template <>
inline vf unpack<8>(const uint8_t* row, int k0) {
  vf v;
  for (int i = 0; i < VL; ++i) v[i] = float(row[k0 + i]);
  return v;
}

template <>
inline vf unpack<4>(const uint8_t* row, int k0) {
  vf v;
  for (int i = 0; i < VL; ++i) v[i] = float((row[(k0 + i) >> 1] >> (((k0 + i) & 1) * 4)) & 15);
  return v;
}
#endif

// Computes out[m, n] for rows m in [m0, m0 + R) and weight rows n in [n0, n1).
template <int BITS, int GS, int R>
void block(const QmmArgs& a, int m0, int n0, int n1) {
  const int K = a.K, G = K / GS;
  const int row_bytes = K * BITS / 8;
  constexpr int C = GS / VL;  // vectors per group
  for (int n = n0; n < n1; ++n) {
    const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) + size_t(n) * row_bytes;
    const float* s = a.scales + size_t(n) * G;
    const float* b = a.biases + size_t(n) * G;
    vf acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vf{};
    for (int g = 0; g < G; ++g) {
      vf q[C];
      for (int c = 0; c < C; ++c) q[c] = unpack<BITS>(wrow, g * GS + c * VL);
      const vf sv = vf{} + s[g];
      for (int r = 0; r < R; ++r) {
        const float* xr = a.x + size_t(m0 + r) * K + g * GS;
        vf d = loadf(xr) * q[0];
        for (int c = 1; c < C; ++c) d += loadf(xr + c * VL) * q[c];
        acc[r] += sv * d;
      }
    }
    for (int r = 0; r < R; ++r) {
      const float* xs = a.xsum + size_t(m0 + r) * G;
      float bias = 0.f;
      for (int g = 0; g < G; ++g) bias += b[g] * xs[g];
      a.out[size_t(m0 + r) * a.N + n] = hsum(acc[r]) + bias;
    }
  }
}

template <int BITS, int GS>
void rows(const QmmArgs& a, int n0, int n1) {
  int m = 0;
  for (; m + MB <= a.M; m += MB) block<BITS, GS, MB>(a, m, n0, n1);
  if (a.M - m >= 4) {
    block<BITS, GS, 4>(a, m, n0, n1);
    m += 4;
  }
  if (a.M - m >= 2) {
    block<BITS, GS, 2>(a, m, n0, n1);
    m += 2;
  }
  if (a.M - m >= 1) block<BITS, GS, 1>(a, m, n0, n1);
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

#if QMM_VL == 8
// 4-bit weights times int8 activations (see QmmArgs::xq): 32 values per maddubs.
template <int GS, int R>
void block_i8(const QmmArgs& a, int m0, int n0, int n1) {
  const int K = a.K, G = K / GS, B = K / 32;
  constexpr int NBK = GS / 32;
  const __m128i m4 = _mm_set1_epi8(15);
  const __m256i ones = _mm256_set1_epi16(1);
  for (int n = n0; n < n1; ++n) {
    const uint8_t* wrow = reinterpret_cast<const uint8_t*>(a.w) + size_t(n) * (K / 2);
    const float* s = a.scales + size_t(n) * G;
    const float* b = a.biases + size_t(n) * G;
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int g = 0; g < G; ++g) {
      for (int j = 0; j < NBK; ++j) {
        const int blk = g * NBK + j;
        __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(wrow + blk * 16));
        __m128i lo = _mm_and_si128(raw, m4);
        __m128i hi = _mm_and_si128(_mm_srli_epi16(raw, 4), m4);
        __m256i q = _mm256_set_m128i(hi, lo);
        for (int r = 0; r < R; ++r) {
          const size_t row = size_t(m0 + r);
          __m256i xv =
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.xq + row * K + blk * 32));
          __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(q, xv), ones);
          __m256 sc = _mm256_set1_ps(s[g] * a.xd[row * B + blk]);
          acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), sc, acc[r]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      const float* xs = a.xsum + size_t(m0 + r) * G;
      float bias = 0.f;
      for (int g = 0; g < G; ++g) bias += b[g] * xs[g];
      a.out[size_t(m0 + r) * a.N + n] = hsum((vf)acc[r]) + bias;
    }
  }
}

template <int GS>
void rows_i8(const QmmArgs& a, int n0, int n1) {
  int m = 0;
  for (; m + MB <= a.M; m += MB) block_i8<GS, MB>(a, m, n0, n1);
  if (a.M - m >= 4) {
    block_i8<GS, 4>(a, m, n0, n1);
    m += 4;
  }
  if (a.M - m >= 2) {
    block_i8<GS, 2>(a, m, n0, n1);
    m += 2;
  }
  if (a.M - m >= 1) block_i8<GS, 1>(a, m, n0, n1);
}
#endif

}  // namespace

#if QMM_VL == 8
void qmm_avx2_int8(const QmmArgs& a, int n0, int n1) {
  switch (a.group_size) {
    case 32:
      rows_i8<32>(a, n0, n1);
      break;
    case 64:
      rows_i8<64>(a, n0, n1);
      break;
    default:
      rows_i8<128>(a, n0, n1);
      break;
  }
}
#endif

void QMM_ENTRY(const QmmArgs& a, int n0, int n1) {
  if (a.bits == 4)
    dispatch_gs<4>(a, n0, n1);
  else
    dispatch_gs<8>(a, n0, n1);
}
