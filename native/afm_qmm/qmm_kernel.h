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

#ifndef QMM_VL
#error "QMM_VL must be defined"
#endif

namespace {

typedef float vf __attribute__((vector_size(QMM_VL * 4)));
typedef int32_t vi __attribute__((vector_size(QMM_VL * 4)));
typedef uint8_t vb __attribute__((vector_size(QMM_VL)));
typedef float vf_u __attribute__((vector_size(QMM_VL * 4), aligned(4)));
typedef uint8_t vb_u __attribute__((vector_size(QMM_VL), aligned(1)));

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
template <int BITS>
inline vf unpack(const uint8_t* row, int k0);

template <>
inline vf unpack<8>(const uint8_t* row, int k0) {
  vb b = *reinterpret_cast<const vb_u*>(row + k0);
  return __builtin_convertvector(b, vf);
}

template <>
inline vf unpack<4>(const uint8_t* row, int k0) {
  // VL / 2 bytes hold VL nibbles; value 2j is byte j's low nibble, 2j + 1 its high nibble.
  const uint8_t* p = row + k0 / 2;
  vi v;
  for (int i = 0; i < VL; ++i) v[i] = p[i >> 1];
  vi shift;
  for (int i = 0; i < VL; ++i) shift[i] = (i & 1) * 4;
  v = (v >> shift) & 15;
  return __builtin_convertvector(v, vf);
}

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
    for (int r = 0; r < R; ++r) acc[r] = vf{} ;
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

}  // namespace

void QMM_ENTRY(const QmmArgs& a, int n0, int n1) {
  if (a.bits == 4)
    dispatch_gs<4>(a, n0, n1);
  else
    dispatch_gs<8>(a, n0, n1);
}
