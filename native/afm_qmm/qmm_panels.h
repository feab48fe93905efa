// Float32 products of many rows of x (prefill, batched prompts) with a tile of dequantized
// weight rows: the tile path's large-M case, included by qmm_kernel.h in the AVX-512 unit
// (QMM_GEMM) next to qmm_gemm.h's small-M product.
//
// out[m, n] = dot(x[m, :K], w[n, :K]). x is packed once per call into panels of PANEL_ROWS
// rows laid out along K (panel[k][i] = x[m0 + i][k], in the kernel's order of x, the order
// deq_rows writes the weights in); a register block of R weight rows by NV vectors of 16 rows
// of x multiplies one broadcast weight with NV loaded vectors of x per step of k: an outer
// product, no lane reductions, the accumulators written out once at the end (transposed into
// out's rows). Against a BLAS on the same tiles (MKL, one thread, AMD Zen 4), this drops the
// BLAS's packing of the weight tile and its zeroing of the output on every call, and runs
// closer to the multiply-add roof.
//
// Each sum adds its products in the order of k (one FMA chain per chunk of depth, the chunks'
// sums then in order): the value depends on K and the two operands alone, not on M, the tile or
// the panel a row lies in.
#pragma once

#include <algorithm>

namespace {

static_assert(VL == 16, "qmm_panels.h's register blocks are sized for 32 registers of 16 lanes");

constexpr int PANEL_NV = 3;                  // vectors of x rows per panel
constexpr int PANEL_ROWS = PANEL_NV * VL;    // rows of x per panel
static_assert(PANEL_ROWS == QMM_PANEL_ROWS, "qmm_api.h's panel size");
constexpr int PANEL_R = 8;                   // weight rows per register block (8 x 3 = 24 sums)

// Vectors of 16 rows in panel p of M rows (the last panel may be narrower).
inline int panel_vectors(int M, int p) {
  const int rows = std::min(PANEL_ROWS, M - p * PANEL_ROWS);
  return (rows + VL - 1) / VL;
}

// Column k of the kernel's order of x: the position in x it holds (permute_x's map).
template <int BITS>
inline int source_column(int k, int NU) {
  using F = Unit<BITS>;
  if (!F::STRIDED || k >= NU * F::U) return k;
  const int u = k / F::U, r = k % F::U, j = r / VL, i = r % VL;
  return u * F::U + i * F::P + j;
}

template <int BITS>
void pack_panel(const QmmArgs& a, int p, float* panels) {
  const int K = a.K, NU = K / Unit<BITS>::U, m0 = p * PANEL_ROWS;
  const int NV = panel_vectors(a.M, p), width = NV * VL;
  float* dst = panels + size_t(m0) * K;
  const __m512i lanes = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                             11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(K));
  __mmask16 valid[PANEL_NV];
  for (int v = 0; v < NV; ++v) {
    const int rows = std::min(VL, a.M - m0 - v * VL);
    valid[v] = __mmask16((1u << rows) - 1u);
  }
  for (int k = 0; k < K; ++k) {
    const int src = source_column<BITS>(k, NU);
    for (int v = 0; v < NV; ++v) {
      const float* base = a.x + size_t(m0 + v * VL) * K + src;
      _mm512_store_ps(dst + size_t(k) * width + v * VL,
                      _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid[v], lanes, base, 4));
    }
  }
}

// R weight rows (stride K) by NV vectors of a panel (width NV * 16) over the whole depth, in
// chunks of PANEL_KC steps of k summed in registers, each chunk's sums then added to the
// block's totals (a rounding error growing with KC + K / KC, not K); rows of x past `rows` are
// the panel's zero padding and are not written.
constexpr int PANEL_KC = 256;

template <int R, int NV>
inline void panel_block(const float* px, const float* w, int K, float* out, int ldo, int rows) {
  alignas(64) float tot[R][NV * VL];
  for (int k0 = 0; k0 < K; k0 += PANEL_KC) {
    const int k1 = std::min(K, k0 + PANEL_KC);
    __m512 acc[R][NV];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
    for (int k = k0; k < k1; ++k) {
      __m512 xv[NV];
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) xv[v] = _mm512_load_ps(px + size_t(k) * NV * VL + v * VL);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512 wb = _mm512_set1_ps(w[size_t(r) * K + k]);
#pragma GCC unroll 3
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(wb, xv[v], acc[r][v]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) {
        float* t = &tot[r][v * VL];
        _mm512_store_ps(t, k0 ? _mm512_add_ps(_mm512_load_ps(t), acc[r][v]) : acc[r][v]);
      }
  }
  if (K == 0) std::fill(&tot[0][0], &tot[0][0] + R * NV * VL, 0.0f);
  for (int i = 0; i < rows; ++i) {
    float* o = out + size_t(i) * ldo;
    for (int r = 0; r < R; ++r) o[r] = tot[r][i];
  }
}

// panel_block<R, NV> for R <= PANEL_R, NV <= PANEL_NV chosen at run time (the tails).
template <int R = PANEL_R, int NV = PANEL_NV>
inline void panel_tail(int r, int nv, const float* px, const float* w, int K, float* out,
                       int ldo, int rows) {
  if constexpr (R > 1) {
    if (r < R) return panel_tail<R - 1, NV>(r, nv, px, w, K, out, ldo, rows);
  }
  if constexpr (NV > 1) {
    if (nv < NV) return panel_tail<R, NV - 1>(r, nv, px, w, K, out, ldo, rows);
  }
  panel_block<R, NV>(px, w, K, out, ldo, rows);
}

// Every panel of x times the tile's nb weight rows: one panel at a time (it stays in L2 while
// each register block of the tile's rows passes over it).
void panel_rows(const float* panels, int M, int K, const float* w, int nb, float* out, int ldo) {
  const int P = (M + PANEL_ROWS - 1) / PANEL_ROWS;
  for (int p = 0; p < P; ++p) {
    const int m0 = p * PANEL_ROWS, rows = std::min(PANEL_ROWS, M - m0);
    const int nv = panel_vectors(M, p);
    const float* px = panels + size_t(m0) * K;
    for (int n = 0; n < nb; n += PANEL_R) {
      const int r = std::min(PANEL_R, nb - n);
      float* o = out + size_t(m0) * ldo + n;
      if (r == PANEL_R && nv == PANEL_NV)
        panel_block<PANEL_R, PANEL_NV>(px, w + size_t(n) * K, K, o, ldo, rows);
      else
        panel_tail(r, nv, px, w + size_t(n) * K, K, o, ldo, rows);
    }
  }
}

}  // namespace
