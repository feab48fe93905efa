// Long-prompt attention without a BLAS: sdpa_tiled's task (fast_ops.h: TiledArgs), in float32,
// with the query rows laid along the vector lanes. Included once per instruction set, by
// attn_avx512.cpp (16 lanes, panels of 48 query rows, 8 x 3 register blocks) and attn_avx2.cpp
// (8 lanes, panels of 16 rows, 6 x 2 blocks), each with a traits struct T: the vector type V,
// lanes VL, vectors per panel NV, broadcast rows per register block RB, and the operations used
// below (load, store, zero, set1, fmadd, mul, add, sub, max, exp, past: the causal mask).
//
// The BLAS path (fast_kernels.h: attend_tiled) calls sgemm twice per block of 128 keys: the
// BLAS packs the query block again at every call, zeroes or rescales its output tile, and the
// softmax between reads the scores row by row. Here the task's query rows (all heads of one KV
// head) are packed once into panels laid along the head dimension (panel[k][i] = q[i][k] *
// scale), and every step is an outer product of one broadcast key or value element with NV
// vectors of query rows (RB x NV accumulators in registers, like qmm_panels.h):
//   S^T = K_blk Q^T    per group of RB keys: RB x PR scores over the head dimension;
//   softmax            per vector of query rows: running max, sum and rescale are vertical
//                      (one lane per query), no horizontal reduction anywhere;
//   O^T += V_blk^T P^T per group of RB value columns: RB x PR outputs over the block's keys.
// Each sum adds its products in order (one chain per output); the result is MLX's within
// float32 rounding, like the BLAS path (tests/test_fast_ops.py).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#include "fast_ops.h"

namespace afm {
namespace {

template <class T>
struct AttnPanels {
  using V = typename T::V;
  static constexpr int VL = T::VL, NV = T::NV, PR = NV * VL, RB = T::RB;
  static constexpr int BK = 128;  // keys per block

  // out[r][0..PR) = sum over k < depth of a(r, k) * panel[k][0..PR), for r < R, where a(r, k)
  // is a[r * ra + k] (scores: key rows) or, with COLUMNS, a[k * ra + r] (values: column r of
  // the value rows). With scale_in, out's values times scale_in (per lane) are the start.
  template <int R, bool COLUMNS>
  static inline void outer_block(const float* a, int64_t ra, const float* panel, int depth,
                                 float* out, const V* scale_in) {
    V acc[R][NV];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = scale_in ? T::mul(T::load(out + r * PR + v * VL), scale_in[v]) : T::zero();
    for (int k = 0; k < depth; ++k) {
      V xv[NV];
      for (int v = 0; v < NV; ++v) xv[v] = T::load(panel + size_t(k) * PR + v * VL);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const V w = T::set1(COLUMNS ? a[int64_t(k) * ra + r] : a[int64_t(r) * ra + k]);
#pragma GCC unroll 3
        for (int v = 0; v < NV; ++v) acc[r][v] = T::fmadd(w, xv[v], acc[r][v]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v) T::store(out + r * PR + v * VL, acc[r][v]);
  }

  // outer_block<r> for r < R chosen at run time (the last rows)
  template <bool COLUMNS, int R = RB>
  static inline void outer_tail(int r, const float* a, int64_t ra, const float* panel,
                                int depth, float* out, const V* scale_in) {
    if constexpr (R > 1) {
      if (r < R) return outer_tail<COLUMNS, R - 1>(r, a, ra, panel, depth, out, scale_in);
    }
    outer_block<R, COLUMNS>(a, ra, panel, depth, out, scale_in);
  }

  // `rows` rows of a (RB at a time) against one panel into out [rows][PR]
  template <bool COLUMNS>
  static void outer_rows(const float* a, int64_t ra, int rows, const float* panel, int depth,
                         float* out, const V* scale_in) {
    for (int r0 = 0; r0 < rows; r0 += RB) {
      const float* ar = COLUMNS ? a + r0 : a + int64_t(r0) * ra;
      float* o = out + size_t(r0) * PR;
      if (rows - r0 >= RB)
        outer_block<RB, COLUMNS>(ar, ra, panel, depth, o, scale_in);
      else
        outer_tail<COLUMNS>(rows - r0, ar, ra, panel, depth, o, scale_in);
    }
  }

  struct Buffer {  // 64-byte aligned, grown on demand, kept by each pool thread
    std::unique_ptr<float, decltype(&std::free)> p{nullptr, &std::free};
    size_t n = 0;
    float* get(size_t want) {
      if (want > n) {
        p.reset(static_cast<float*>(std::aligned_alloc(64, (want * 4 + 63) / 64 * 64)));
        if (!p) throw std::bad_alloc();
        n = want;
      }
      return p.get();
    }
  };

  // Query rows [l0, l0 + lqb) of all n_rep heads of KV head g (batch b): R = n_rep * lqb rows.
  static void attend(const TiledArgs& a, int b, int g, int l0, int lqb) {
    const int R = a.n_rep * lqb, d = a.d, dv = a.dv;
    const int P = (R + PR - 1) / PR;
    thread_local Buffer qbuf, sbuf, obuf, stat;
    float* qt = qbuf.get(size_t(P) * d * PR);    // [P][d][PR] queries * scale, 0 past R
    float* st = sbuf.get(size_t(BK) * PR);       // [BK][PR] one panel's scores, then weights
    float* ot = obuf.get(size_t(P) * dv * PR);   // [P][dv][PR] outputs, unnormalized
    float* mrow = stat.get(size_t(2) * P * PR);  // running max and sum per row
    float* lrow = mrow + size_t(P) * PR;
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

    // masked scores take the lowest finite value, like MLX and attend(): a row masked
    // everywhere averages V instead of dividing by zero
    const float masked = std::numeric_limits<float>::lowest();
    const int off = a.lk - a.lq;  // query i sees keys j <= i + off (causal)
    const int kend = a.causal ? std::min(a.lk, l0 + lqb + off) : a.lk;
    const float* kb0 = static_cast<const float*>(k.data) + b * k.s[0] + g * k.s[1];
    const float* vb0 = static_cast<const float*>(v.data) + b * v.s[0] + g * v.s[1];
    alignas(64) int pos_lane[PR];  // each lane's causal limit (rows past R: the last row's)

    for (int j0 = 0; j0 < kend; j0 += BK) {
      const int nk = std::min(BK, kend - j0);
      const float* kp = kb0 + int64_t(j0) * k.s[2];
      const float* vp = vb0 + int64_t(j0) * v.s[2];
      for (int p = 0; p < P; ++p) {
        const int r0 = p * PR, rows = std::min(PR, R - r0);
        outer_rows<false>(kp, k.s[2], nk, qt + size_t(p) * d * PR, d, st, nullptr);
        if (a.causal) {
          int lo = std::numeric_limits<int>::max();
          for (int x = 0; x < PR; ++x) {
            pos_lane[x] = l0 + std::min(r0 + x, R - 1) % lqb + off;
            lo = std::min(lo, pos_lane[x]);
          }
          const V low = T::set1(masked);
          for (int j = std::max(0, lo + 1 - j0); j < nk; ++j)  // keys past some row's position
            for (int vv = 0; vv < NV; ++vv) {
              float* s = st + size_t(j) * PR + vv * VL;
              T::store(s, T::past(j0 + j, pos_lane + vv * VL, T::load(s), low));
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
              for (int j = 0; j < nk; ++j)
                st[size_t(j) * PR + x] += mp[int64_t(j0 + j) * mk.s[3]];
            }
          }
        }
        // online softmax, one lane per query row
        V cv[NV];
        for (int vv = 0; vv < NV; ++vv) {
          const size_t at = size_t(r0) + vv * VL;
          const V mold = T::load(mrow + at);
          V m0 = mold, m1 = T::set1(-std::numeric_limits<float>::infinity());
          int j = 0;
          for (; j + 2 <= nk; j += 2) {
            m0 = T::max(T::load(st + size_t(j) * PR + vv * VL), m0);
            m1 = T::max(T::load(st + size_t(j + 1) * PR + vv * VL), m1);
          }
          if (j < nk) m0 = T::max(T::load(st + size_t(j) * PR + vv * VL), m0);
          const V mb = T::max(m0, m1);
          cv[vv] = T::exp(T::sub(mold, mb));  // 0 at the first block (-inf)
          V s0 = T::zero(), s1 = T::zero();
          for (j = 0; j + 2 <= nk; j += 2) {
            float* e0 = st + size_t(j) * PR + vv * VL;
            const V x0 = T::exp(T::sub(T::load(e0), mb));
            const V x1 = T::exp(T::sub(T::load(e0 + PR), mb));
            T::store(e0, x0);
            T::store(e0 + PR, x1);
            s0 = T::add(s0, x0);
            s1 = T::add(s1, x1);
          }
          if (j < nk) {
            float* e0 = st + size_t(j) * PR + vv * VL;
            const V x0 = T::exp(T::sub(T::load(e0), mb));
            T::store(e0, x0);
            s0 = T::add(s0, x0);
          }
          T::store(mrow + at, mb);
          T::store(lrow + at, T::fmadd(T::load(lrow + at), cv[vv], T::add(s0, s1)));
        }
        // O^T = O^T * rescale + V_blk^T P^T: a row of PR outputs per value column
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
};

}  // namespace
}  // namespace afm
