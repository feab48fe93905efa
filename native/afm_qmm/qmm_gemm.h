// Float32 products of a few rows of x with a tile of dequantized weight rows (the tile path's
// small-M case), included by qmm_kernel.h in the AVX-512 unit (QMM_GEMM; with 16 registers of 8
// lanes its blocks lose to the per-row kernels, so the other units have none).
//
// out[m, n] = dot(x[m, :K], w[n, :K]) for m < M, n < nb: both operands row-major along K (the
// layout deq_rows writes, no packing), MR x NR accumulators of VL lanes along K held in
// registers over the whole depth, then each reduced across its lanes. A BLAS packs both operands
// on every call and, at 16 rows, reaches a third of its large-matrix speed (MKL, one thread,
// Xeon: 17 against 52 GMAC/s); here the weight rows are read from L1 once per MR rows of x.
// Each sum's order depends on K alone (lane i adds k = i mod VL in order, then the lanes
// pairwise), not on M, nb or where the tile sits: batch-invariant like the per-row kernels.
#pragma once

#include <algorithm>
#include <vector>

namespace {

static_assert(VL == 16, "qmm_gemm.h's register blocks are sized for 32 registers of 16 lanes");
// Register blocks (Xeon, 16 rows: 4 x 6 beat 6 x 4, 8 x 2, 3 x 8 and 2 x 12 by 3-40%)
constexpr int GEMM_MR = 4;  // rows of x per microkernel call
constexpr int GEMM_NR = 6;  // weight rows per microkernel call

// The lane sum of v, pairwise (the same tree for every call; hsum's AVX-512 form is a lane
// loop the per-row kernels' bits depend on).
inline float lane_sum(vf v) {
#if QMM_X == 16
  const __m512 z = (__m512)v;
  __m256 s = _mm256_add_ps(_mm512_castps512_ps256(z), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)));
  __m128 t = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  t = _mm_add_ps(t, _mm_movehl_ps(t, t));
  t = _mm_add_ss(t, _mm_movehdup_ps(t));
  return _mm_cvtss_f32(t);
#else  // QMM_VEC_ONLY test builds
  return hsum(v);
#endif
}

// One register block's products over depth [k0, k1) (whole vectors), added lane by lane to acc
// in k order: the one inner loop of both the single-pass and the depth-blocked products.
template <int R, int C>
inline void gemm_accumulate(const float* x, int ldx, const float* w, int K, int k0, int k1,
                            vf (&acc)[R][C]) {
  for (int k = k0; k < k1; k += VL) {
    vf xv[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) xv[r] = loadf(x + size_t(r) * ldx + k);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      const vf wv = loadf(w + size_t(c) * K + k);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) acc[r][c] = fmadd(xv[r], wv, acc[r][c]);
    }
  }
}

template <int R, int C>
inline void gemm_micro(const float* x, int ldx, const float* w, int K, float* out, int ldo) {
  vf acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = vf{};
  const int k = K / VL * VL;
  gemm_accumulate<R, C>(x, ldx, w, K, 0, k, acc);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      float s = lane_sum(acc[r][c]);
      for (int j = k; j < K; ++j) s = std::fma(x[size_t(r) * ldx + j], w[size_t(c) * K + j], s);
      out[size_t(r) * ldo + c] = s;
    }
}

// gemm_micro<R, C> for R <= GEMM_MR, C <= GEMM_NR chosen at run time (the tails).
template <int R, int C = GEMM_NR>
inline void gemm_tail(int r, int c, const float* x, int ldx, const float* w, int K, float* out,
                      int ldo) {
  if constexpr (R > 1) {
    if (r < R) return gemm_tail<R - 1, C>(r, c, x, ldx, w, K, out, ldo);
  }
  if constexpr (C > 1) {
    if (c < C) return gemm_tail<R, C - 1>(r, c, x, ldx, w, K, out, ldo);
  }
  gemm_micro<R, C>(x, ldx, w, K, out, ldo);
}

// Depth in one pass of the blocked product: past it the MR rows of x and NR weight rows of one
// register block (10 x K floats) no longer fit in L1 together, and both stream from L2.
constexpr int GEMM_KMAX = 1024;

// gemm_micro's register block over depth [k0, k1) only, its accumulators loaded from and stored
// back to acc (R * C vectors): a block's lanes add the same products in the same order as
// gemm_micro's over the whole depth.
template <int R, int C>
inline void gemm_micro_part(const float* x, int ldx, const float* w, int K, int k0, int k1,
                            float* acc) {
  vf a[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a[r][c] = loadf(acc + size_t(r * C + c) * VL);
  gemm_accumulate<R, C>(x, ldx, w, K, k0, k1, a);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) *reinterpret_cast<vf_u*>(acc + size_t(r * C + c) * VL) = a[r][c];
}

template <int R, int C = GEMM_NR>
inline void gemm_part_tail(int r, int c, const float* x, int ldx, const float* w, int K, int k0,
                           int k1, float* acc) {
  if constexpr (R > 1) {
    if (r < R) return gemm_part_tail<R - 1, C>(r, c, x, ldx, w, K, k0, k1, acc);
  }
  if constexpr (C > 1) {
    if (c < C) return gemm_part_tail<R, C - 1>(r, c, x, ldx, w, K, k0, k1, acc);
  }
  gemm_micro_part<R, C>(x, ldx, w, K, k0, k1, acc);
}

// Deep products (K > GEMM_KMAX): the depth in blocks of KB, and within each block every
// register block of the tile, so that a block's slice of x (MR rows) and of the tile's weight
// rows stay in L1 while they are reused; the accumulators wait in a buffer between blocks. The
// same sums, bit for bit, as gemm_micro over the whole depth.
void gemm_rows_deep(const float* x, int ldx, int M, const float* w, int K, int nb, float* out,
                    int ldo) {
  const int KV = K / VL * VL;
  // the tile's rows over one block: at most ~16 KB of floats
  const int KB = std::max(4 * VL, std::min(KV, (4096 / std::max(1, nb)) / VL * VL));
  const int MBn = (M + GEMM_MR - 1) / GEMM_MR, NBn = (nb + GEMM_NR - 1) / GEMM_NR;
  constexpr int block = GEMM_MR * GEMM_NR * VL;  // floats of one register block's accumulators
  thread_local std::vector<float> accs;
  accs.assign(size_t(MBn) * NBn * block, 0.0f);
  for (int k0 = 0; k0 < KV; k0 += KB) {
    const int k1 = std::min(KV, k0 + KB);
    for (int mb = 0; mb < MBn; ++mb) {
      const int m = mb * GEMM_MR, r = std::min(GEMM_MR, M - m);
      for (int ib = 0; ib < NBn; ++ib) {
        const int n = ib * GEMM_NR, c = std::min(GEMM_NR, nb - n);
        float* acc = accs.data() + (size_t(mb) * NBn + ib) * block;
        const float* xm = x + size_t(m) * ldx;
        if (r == GEMM_MR && c == GEMM_NR)
          gemm_micro_part<GEMM_MR, GEMM_NR>(xm, ldx, w + size_t(n) * K, K, k0, k1, acc);
        else
          gemm_part_tail<GEMM_MR>(r, c, xm, ldx, w + size_t(n) * K, K, k0, k1, acc);
      }
    }
  }
  for (int mb = 0; mb < MBn; ++mb) {
    const int m = mb * GEMM_MR, r = std::min(GEMM_MR, M - m);
    for (int ib = 0; ib < NBn; ++ib) {
      const int n = ib * GEMM_NR, c = std::min(GEMM_NR, nb - n);
      const float* acc = accs.data() + (size_t(mb) * NBn + ib) * block;
      for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) {  // the accumulators of a block of r x c lie row by row
          float s = lane_sum(loadf(acc + size_t(i * c + j) * VL));
          const float* xr = x + size_t(m + i) * ldx;
          const float* wr = w + size_t(n + j) * K;
          for (int k = KV; k < K; ++k) s = std::fma(xr[k], wr[k], s);
          out[size_t(m + i) * ldo + n + j] = s;
        }
    }
  }
}

void gemm_rows(const float* x, int ldx, int M, const float* w, int K, int nb, float* out,
               int ldo) {
  if (K > GEMM_KMAX) return gemm_rows_deep(x, ldx, M, w, K, nb, out, ldo);
  // MR rows of x stay in L1 while the tile's rows stream from L2 (the other order: 0.8x)
  for (int m = 0; m < M; m += GEMM_MR) {
    const int r = std::min(GEMM_MR, M - m);
    for (int n = 0; n < nb; n += GEMM_NR) {
      const int c = std::min(GEMM_NR, nb - n);
      const float* xm = x + size_t(m) * ldx;
      float* om = out + size_t(m) * ldo + n;
      if (r == GEMM_MR && c == GEMM_NR)
        gemm_micro<GEMM_MR, GEMM_NR>(xm, ldx, w + size_t(n) * K, K, om, ldo);
      else
        gemm_tail<GEMM_MR>(r, c, xm, ldx, w + size_t(n) * K, K, om, ldo);
    }
  }
}

}  // namespace
