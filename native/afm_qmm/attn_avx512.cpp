// Long-prompt attention on AVX-512 without a BLAS (compiled with -mavx512f -mavx512bw
// -mavx512vl -mfma): sdpa_tiled's task (fast_ops.h: TiledArgs), in float32, with the query rows
// laid along the vector lanes.
//
// The BLAS path (fast_kernels.h: attend_tiled) calls sgemm twice per block of 128 keys: the
// BLAS packs the query block again at every call, zeroes or rescales its output tile, and the
// softmax between reads the scores row by row. Here the task's query rows (all heads of one KV
// head) are packed once into panels of 48 rows laid along the head dimension (panel[k][i] =
// q[i][k] * scale), and every step is an outer product of a broadcast key or value element with
// three vectors of 16 query rows (8 x 3 accumulators in registers, like qmm_panels.h):
//   S^T = K_blk Q^T   per group of 8 keys: 8 x 48 scores over the head dimension;
//   softmax           per vector of 16 query rows: running max, sum and rescale are vertical
//                     (one lane per query), no horizontal reduction anywhere;
//   O^T += V_blk^T P^T per group of 8 value columns: the 8 x 48 outputs over the block's keys.
// Each sum adds its products in order (one chain per output); the result is MLX's within
// float32 rounding, like the BLAS path (tests/test_fast_ops.py).
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "fast_ops.h"

namespace afm {

namespace {

constexpr int VL = 16;              // lanes per vector
constexpr int NV = 3;               // vectors of query rows per panel
constexpr int PR = NV * VL;         // query rows per panel
constexpr int RB = 8;               // keys (or value columns) per register block
constexpr int BK = 128;             // keys per block

// exp(x) for 16 lanes: fast_kernels.h's exp8 on 512-bit vectors (same polynomial, same
// clamping): below -87.3 exactly 0, never a denormal.
inline __m512 exp16(__m512 x) {
  const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i e =
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_maskz_mul_ps(__mmask16(~tiny), p, _mm512_castsi512_ps(e));
}

// out[r][0..NV*16) = sum_k a[r * lda + k] * panel[k][..] for r < R, k < depth: R broadcast rows
// (keys, or value columns when lda is 1 and the row step is ld) against one panel.
//   scores: a = key rows (element k of row r at a[r * ra + k]);
//   values: a = value rows read down a column (element j of column r at a[j * ra + r]).
template <int R, bool COLUMNS>
inline void outer_block(const float* a, int64_t ra, const float* panel, int depth, float* out,
                        const __m512* scale_in) {
  __m512 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = scale_in ? _mm512_mul_ps(_mm512_load_ps(out + r * PR + v * VL), scale_in[v])
                           : _mm512_setzero_ps();
  for (int k = 0; k < depth; ++k) {
    __m512 xv[NV];
    for (int v = 0; v < NV; ++v) xv[v] = _mm512_load_ps(panel + size_t(k) * PR + v * VL);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 w = _mm512_set1_ps(COLUMNS ? a[int64_t(k) * ra + r] : a[int64_t(r) * ra + k]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(w, xv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) _mm512_store_ps(out + r * PR + v * VL, acc[r][v]);
}

template <bool COLUMNS, int R = RB>
inline void outer_tail(int r, const float* a, int64_t ra, const float* panel, int depth,
                       float* out, const __m512* scale_in) {
  if constexpr (R > 1) {
    if (r < R) return outer_tail<COLUMNS, R - 1>(r, a, ra, panel, depth, out, scale_in);
  }
  outer_block<R, COLUMNS>(a, ra, panel, depth, out, scale_in);
}

// rows x cols of `a` (R at a time) against one panel, out [rows][PR].
template <bool COLUMNS>
void outer_rows(const float* a, int64_t ra, int rows, const float* panel, int depth, float* out,
                const __m512* scale_in) {
  for (int r0 = 0; r0 < rows; r0 += RB) {
    const float* ar = COLUMNS ? a + r0 : a + int64_t(r0) * ra;
    float* o = out + size_t(r0) * PR;
    if (rows - r0 >= RB)
      outer_block<RB, COLUMNS>(ar, ra, panel, depth, o, scale_in);
    else
      outer_tail<COLUMNS>(rows - r0, ar, ra, panel, depth, o, scale_in);
  }
}

template <typename T>
struct AlignedBuf {
  std::unique_ptr<T, decltype(&std::free)> p{nullptr, &std::free};
  size_t n = 0;
  T* get(size_t want) {
    if (want > n) {
      p.reset(static_cast<T*>(std::aligned_alloc(64, (want * sizeof(T) + 63) / 64 * 64)));
      if (!p) throw std::bad_alloc();
      n = want;
    }
    return p.get();
  }
};

}  // namespace

int attend_panel_rows() {
  return PR;
}

void attend_tiled_avx512(const TiledArgs& a, int b, int g, int l0, int lqb) {
  const int R = a.n_rep * lqb, d = a.d, dv = a.dv;
  const int P = (R + PR - 1) / PR;
  thread_local AlignedBuf<float> qbuf, sbuf, obuf, stat;
  float* qt = qbuf.get(size_t(P) * d * PR);     // [P][d][PR] queries * scale, 0 past R
  float* st = sbuf.get(size_t(BK) * PR);        // [BK][PR] one panel's scores, then weights
  float* ot = obuf.get(size_t(P) * dv * PR);    // [P][dv][PR] outputs, unnormalized
  float* mrow = stat.get(size_t(3) * P * PR);   // running max, sum, this block's rescale
  float* lrow = mrow + size_t(P) * PR;
  float* corr = lrow + size_t(P) * PR;
  const Strided4 &q = *a.q, &k = *a.k, &v = *a.v;
  std::fill(qt, qt + size_t(P) * d * PR, 0.0f);
  for (int r = 0; r < R; ++r) {
    const int h = g * a.n_rep + r / lqb, i = r % lqb;
    const float* src = static_cast<const float*>(q.data) + b * q.s[0] + h * q.s[1] +
        int64_t(l0 + i) * q.s[2];
    float* dst = qt + size_t(r / PR) * d * PR + r % PR;
    for (int c = 0; c < d; ++c) dst[size_t(c) * PR] = src[c] * a.scale;
  }
  std::fill(ot, ot + size_t(P) * dv * PR, 0.0f);
  std::fill(mrow, mrow + size_t(P) * PR, -std::numeric_limits<float>::infinity());
  std::fill(lrow, lrow + size_t(P) * PR, 0.0f);

  const float masked = std::numeric_limits<float>::lowest();
  const int off = a.lk - a.lq;  // query i sees keys j <= i + off (causal)
  const int kend = a.causal ? std::min(a.lk, l0 + lqb + off) : a.lk;
  const float* kb0 = static_cast<const float*>(k.data) + b * k.s[0] + g * k.s[1];
  const float* vb0 = static_cast<const float*>(v.data) + b * v.s[0] + g * v.s[1];
  // a query row's causal limit, per lane: pos[r] = l0 + i + off (rows past R: any)
  alignas(64) int pos_lane[PR];

  for (int j0 = 0; j0 < kend; j0 += BK) {
    const int nk = std::min(BK, kend - j0);
    const float* kp = kb0 + int64_t(j0) * k.s[2];
    const float* vp = vb0 + int64_t(j0) * v.s[2];
    for (int p = 0; p < P; ++p) {
      const int r0 = p * PR, rows = std::min(PR, R - r0);
      // S^T: one row of PR scores per key
      outer_rows<false>(kp, k.s[2], nk, qt + size_t(p) * d * PR, d, st, nullptr);
      if (a.causal) {
        int lo = std::numeric_limits<int>::max();
        for (int x = 0; x < PR; ++x) {
          const int r = std::min(r0 + x, R - 1);
          pos_lane[x] = l0 + r % lqb + off;
          lo = std::min(lo, pos_lane[x]);
        }
        if (j0 + nk - 1 > lo) {  // a key of this block lies past some row's position
          const __m512 low = _mm512_set1_ps(masked);
          for (int j = std::max(0, lo + 1 - j0); j < nk; ++j) {
            const __m512i key = _mm512_set1_epi32(j0 + j);
            for (int vv = 0; vv < NV; ++vv) {
              const __mmask16 past = _mm512_cmpgt_epi32_mask(
                  key, _mm512_load_si512(pos_lane + vv * VL));
              float* s = st + size_t(j) * PR + vv * VL;
              _mm512_store_ps(s, _mm512_mask_blend_ps(past, _mm512_load_ps(s), low));
            }
          }
        }
      }
      if (a.mask) {
        const Strided4& mk = *a.mask;
        for (int x = 0; x < rows; ++x) {
          const int r = r0 + x, h = g * a.n_rep + r / lqb, i = r % lqb;
          const int64_t base = b * mk.s[0] + h * mk.s[1] + int64_t(l0 + i) * mk.s[2];
          if (a.mask_bool) {
            const bool* mp = static_cast<const bool*>(mk.data) + base;
            for (int j = 0; j < nk; ++j)
              if (!mp[int64_t(j0 + j) * mk.s[3]]) st[size_t(j) * PR + x] = masked;
          } else {
            const float* mp = static_cast<const float*>(mk.data) + base;
            for (int j = 0; j < nk; ++j) st[size_t(j) * PR + x] += mp[int64_t(j0 + j) * mk.s[3]];
          }
        }
      }
      // online softmax, one lane per query row
      __m512 cv[NV];
      for (int vv = 0; vv < NV; ++vv) {
        const size_t at = size_t(r0) + vv * VL;
        const __m512 mold = _mm512_load_ps(mrow + at);
        __m512 m0 = mold, m1 = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
        int j = 0;
        for (; j + 2 <= nk; j += 2) {
          m0 = _mm512_max_ps(_mm512_load_ps(st + size_t(j) * PR + vv * VL), m0);
          m1 = _mm512_max_ps(_mm512_load_ps(st + size_t(j + 1) * PR + vv * VL), m1);
        }
        if (j < nk) m0 = _mm512_max_ps(_mm512_load_ps(st + size_t(j) * PR + vv * VL), m0);
        const __m512 mb = _mm512_max_ps(m0, m1);
        cv[vv] = exp16(_mm512_sub_ps(mold, mb));  // 0 at the first block (-inf)
        __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
        for (j = 0; j + 2 <= nk; j += 2) {
          float* e0 = st + size_t(j) * PR + vv * VL;
          const __m512 x0 = exp16(_mm512_sub_ps(_mm512_load_ps(e0), mb));
          const __m512 x1 = exp16(_mm512_sub_ps(_mm512_load_ps(e0 + PR), mb));
          _mm512_store_ps(e0, x0);
          _mm512_store_ps(e0 + PR, x1);
          s0 = _mm512_add_ps(s0, x0);
          s1 = _mm512_add_ps(s1, x1);
        }
        if (j < nk) {
          float* e0 = st + size_t(j) * PR + vv * VL;
          const __m512 x0 = exp16(_mm512_sub_ps(_mm512_load_ps(e0), mb));
          _mm512_store_ps(e0, x0);
          s0 = _mm512_add_ps(s0, x0);
        }
        _mm512_store_ps(mrow + at, mb);
        _mm512_store_ps(lrow + at,
                        _mm512_fmadd_ps(_mm512_load_ps(lrow + at), cv[vv], _mm512_add_ps(s0, s1)));
      }
      // O^T = O^T * rescale + V_blk^T P^T, a row of PR outputs per value column
      outer_rows<true>(vp, v.s[2], dv, st, nk, ot + size_t(p) * dv * PR, cv);
    }
  }
  for (int r = 0; r < R; ++r) {
    const int h = g * a.n_rep + r / lqb, i = r % lqb;
    float* o = a.out + ((int64_t(b) * a.hq + h) * a.lq + l0 + i) * dv;
    const float* src = ot + size_t(r / PR) * dv * PR + r % PR;
    const float inv = 1.0f / lrow[r];
    for (int c = 0; c < dv; ++c) o[c] = src[size_t(c) * PR] * inv;
  }
}

}  // namespace afm
