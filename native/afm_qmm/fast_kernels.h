// Kernels of fast_ops.cpp, compiled once per instruction-set path: fast_portable.cpp (baseline
// x86-64 or any CPU) and fast_avx2.cpp (-mavx2 -mfma). Plain loops written so the compiler
// vectorizes them: 8 independent partial sums per dot product, no reassociation needed.
// Define AFM_FAST_NS before including.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "fast_ops.h"
#include "simd_exp.h"

namespace afm {
namespace AFM_FAST_NS {

namespace {

inline float dot(const float* a, const float* b, int n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += a[i + l] * b[i + l];
  float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

inline void axpy(float* y, const float* x, float a, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

// exp8: simd_exp.h

// exp(d), exactly 0 where exp8 gives 0 (d < -87.3): no denormals.
inline float exp_or_zero(float d) {
  return d < -87.3f ? 0.0f : std::exp(d);
}

// max(m, s[0..n)): the running maximum of a softmax row. Vectorized with independent lanes
// (a scalar loop waits on each max's latency: ~30% of a long prefill's attention); max is exact
// in any order, and like `s[j] > m ? s[j] : m` it skips NaNs.
inline float row_max(const float* s, int n, float m) {
  int j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if (n >= 32) {
    __m256 a[4];
    for (auto& x : a) x = _mm256_set1_ps(m);
    for (; j + 32 <= n; j += 32)
      for (int l = 0; l < 4; ++l) a[l] = _mm256_max_ps(_mm256_loadu_ps(s + j + 8 * l), a[l]);
    for (; j + 8 <= n; j += 8) a[0] = _mm256_max_ps(_mm256_loadu_ps(s + j), a[0]);
    const __m256 v = _mm256_max_ps(_mm256_max_ps(a[0], a[1]), _mm256_max_ps(a[2], a[3]));
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    m = _mm_cvtss_f32(h);
  }
#endif
  for (; j < n; ++j) m = s[j] > m ? s[j] : m;
  return m;
}

// s[j] = exp(s[j] - m) for j < n; returns their sum.
inline float exp_shifted(float* s, int n, float m) {
  float sum = 0.0f;
  int j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 acc = _mm256_setzero_ps();
  const __m256 mv = _mm256_set1_ps(m);
  for (; j + 8 <= n; j += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + j), mv));
    _mm256_storeu_ps(s + j, e);
    acc = _mm256_add_ps(acc, e);
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, acc);
  for (float l : lanes) sum += l;
#endif
  for (; j < n; ++j) {
    s[j] = exp_or_zero(s[j] - m);
    sum += s[j];
  }
  return sum;
}

#if defined(__AVX2__) && defined(__FMA__)
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// out[m][n] for MR activation rows x NR weight rows, K a multiple of 8 (the caller adds the tail).
template <int MR, int NR>
inline void block_nt(const float* x, int ldx, const float* w, int ldw, float* out, int ldo, int k8) {
  __m256 acc[MR][NR];
  for (int m = 0; m < MR; ++m)
    for (int n = 0; n < NR; ++n) acc[m][n] = _mm256_setzero_ps();
  for (int k = 0; k < k8; k += 8) {
    __m256 wv[NR];
    for (int n = 0; n < NR; ++n) wv[n] = _mm256_loadu_ps(w + size_t(n) * ldw + k);
    for (int m = 0; m < MR; ++m) {
      const __m256 xv = _mm256_loadu_ps(x + size_t(m) * ldx + k);
      for (int n = 0; n < NR; ++n) acc[m][n] = _mm256_fmadd_ps(xv, wv[n], acc[m][n]);
    }
  }
  for (int m = 0; m < MR; ++m)
    for (int n = 0; n < NR; ++n) out[size_t(m) * ldo + n] = hsum(acc[m][n]);
}

template <int NR>
inline void rows_nt(const float* x, int M, const float* w, int K, float* out, int ldo, int k8) {
  int m = 0;
  for (; m + 3 <= M; m += 3) block_nt<3, NR>(x + size_t(m) * K, K, w, K, out + size_t(m) * ldo, ldo, k8);
  if (M - m == 2) block_nt<2, NR>(x + size_t(m) * K, K, w, K, out + size_t(m) * ldo, ldo, k8);
  if (M - m == 1) block_nt<1, NR>(x + size_t(m) * K, K, w, K, out + size_t(m) * ldo, ldo, k8);
}
#endif

}  // namespace

// out[m][j] = dot(x[m], w[j]) for M activation rows (row stride K) and n weight rows (row
// stride K); out has row stride ldo. Weights are read once from memory; each block of four
// weight rows stays in L1 while every activation row passes over it.
void gemm_nt_small(const float* x, int M, const float* w, int n, int K, float* out, int ldo) {
  int j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  const int k8 = K / 8 * 8;
  for (; j + 4 <= n; j += 4) rows_nt<4>(x, M, w + size_t(j) * K, K, out + j, ldo, k8);
  if (n - j == 3) rows_nt<3>(x, M, w + size_t(j) * K, K, out + j, ldo, k8);
  if (n - j == 2) rows_nt<2>(x, M, w + size_t(j) * K, K, out + j, ldo, k8);
  if (n - j == 1) rows_nt<1>(x, M, w + size_t(j) * K, K, out + j, ldo, k8);
  if (k8 < K)
    for (int m = 0; m < M; ++m)
      for (int jj = 0; jj < n; ++jj) {
        float s = 0.0f;
        for (int k = k8; k < K; ++k) s += x[size_t(m) * K + k] * w[size_t(jj) * K + k];
        out[size_t(m) * ldo + jj] += s;
      }
  return;
#endif
  for (; j < n; ++j)
    for (int m = 0; m < M; ++m) out[size_t(m) * ldo + j] = dot(x + size_t(m) * K, w + size_t(j) * K, K);
}

void rms_norm_row(const float* x, const float* w, float* y, int d, float eps) {
  const float inv = 1.0f / std::sqrt(dot(x, x, d) / float(d) + eps);
  if (w) {
    for (int i = 0; i < d; ++i) y[i] = (x[i] * inv) * w[i];
  } else {
    for (int i = 0; i < d; ++i) y[i] = x[i] * inv;
  }
}

// Rotates rows [h][l] of one batch entry; cos_sin: [l_count][dims / 2][2] for its positions.
// x and y are strided by xs[0] / ys[0] (heads) and xs[1] / ys[1] (positions).
void rope_rows(const float* x, const int64_t* xs, float* y, const int64_t* ys, int h, int d,
               int dims, bool traditional, const float* cos_sin, int l_count) {
  const int half = dims / 2;
  for (int hi = 0; hi < h; ++hi) {
    for (int l = 0; l < l_count; ++l) {
      const float* xr = x + hi * xs[0] + l * xs[1];
      float* yr = y + hi * ys[0] + l * ys[1];
      const float* cs = cos_sin + int64_t(l) * half * 2;
      if (traditional) {
        for (int i = 0; i < half; ++i) {
          const float c = cs[2 * i], s = cs[2 * i + 1];
          const float x1 = xr[2 * i], x2 = xr[2 * i + 1];
          yr[2 * i] = x1 * c - x2 * s;
          yr[2 * i + 1] = x1 * s + x2 * c;
        }
      } else {
        for (int i = 0; i < half; ++i) {
          const float c = cs[2 * i], s = cs[2 * i + 1];
          const float x1 = xr[i], x2 = xr[i + half];
          yr[i] = x1 * c - x2 * s;
          yr[i + half] = x1 * s + x2 * c;
        }
      }
      for (int i = dims; i < d; ++i) yr[i] = xr[i];
    }
  }
}

// One (batch b, kv head g) group: its n_rep query heads x lq queries attend to the group's lk
// keys; each key and value row is read once for all of them.
void attend(const Strided4& q, const Strided4& k, const Strided4& v, const Strided4* mask,
            bool mask_bool, bool causal, int b, int g, int n_rep, int lq, int lk, int d, int dv,
            float scale, float* out, int hq) {
  const int rows = n_rep * lq;
  thread_local std::vector<float> scores, acc;
  scores.resize(size_t(rows) * lk);
  acc.assign(size_t(rows) * dv, 0.0f);
  const float* qb = static_cast<const float*>(q.data) + b * q.s[0];
  const float* kb = static_cast<const float*>(k.data) + b * k.s[0] + g * k.s[1];
  const float* vb = static_cast<const float*>(v.data) + b * v.s[0] + g * v.s[1];
  const float neg_inf = -std::numeric_limits<float>::infinity();
  // masked scores, like MLX: the lowest finite value (a fully masked row averages V, no NaN)
  const float masked = std::numeric_limits<float>::lowest();
  for (int j = 0; j < lk; ++j) {
    const float* kj = kb + j * k.s[2];
    for (int r = 0; r < rows; ++r) {
      const int h = g * n_rep + r / lq, l = r % lq;
      const float* qr = qb + h * q.s[1] + l * q.s[2];
      float s = dot(qr, kj, d) * scale;
      if (causal && j > l + (lk - lq)) s = masked;
      if (mask) {
        const int64_t at = b * mask->s[0] + h * mask->s[1] + l * mask->s[2] + j * mask->s[3];
        if (mask_bool) {
          if (!static_cast<const bool*>(mask->data)[at]) s = masked;
        } else {
          s += static_cast<const float*>(mask->data)[at];
        }
      }
      scores[size_t(r) * lk + j] = s;
    }
  }
  std::vector<float> inv_sum(rows);
  for (int r = 0; r < rows; ++r) {
    float* sr = scores.data() + size_t(r) * lk;
    const float m = row_max(sr, lk, neg_inf);
    inv_sum[r] = 1.0f / exp_shifted(sr, lk, m);
  }
  for (int j = 0; j < lk; ++j) {
    const float* vj = vb + j * v.s[2];
    for (int r = 0; r < rows; ++r) {
      const float p = scores[size_t(r) * lk + j];
      if (p != 0.0f) axpy(acc.data() + size_t(r) * dv, vj, p, dv);
    }
  }
  for (int r = 0; r < rows; ++r) {
    const int h = g * n_rep + r / lq, l = r % lq;
    float* o = out + ((int64_t(b) * hq + h) * lq + l) * dv;
    const float* a = acc.data() + size_t(r) * dv;
    for (int i = 0; i < dv; ++i) o[i] = a[i] * inv_sum[r];
  }
}

// Decode: R query rows (the heads sharing one KV head, one query each, row-major [R, d]) attend
// to n keys and values (rows of k / v, strides ks / vs) into out [R, dv]. Scores come as one
// small GEMM (Q K^T), then a softmax per row, then P V with each value row loaded once for two
// query rows and their partial sums held in registers (attend() does both one key and one row
// at a time, a horizontal sum per score and a load and store of the output per key).
// With m_out and l_out (one block of a longer key range): out is left unnormalised, sum_j
// exp(s_j - m) v_j, with each row's largest score m in m_out and sum_j exp(s_j - m) in l_out.
void attend_decode(const float* q, int R, const float* k, int64_t ks, const float* v, int64_t vs,
                   int n, int d, int dv, float scale, float* out, float* m_out, float* l_out) {
  thread_local std::vector<float> scores;
  scores.resize(size_t(R) * n);
  float* sp = scores.data();
  if (ks == d) {
    gemm_nt_small(q, R, k, n, d, sp, n);
  } else {
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < n; ++j) sp[size_t(r) * n + j] = dot(q + size_t(r) * d, k + j * ks, d);
  }
  float inv[64];
  std::vector<float> inv_big;
  float* iv = inv;
  if (R > 64) {
    inv_big.resize(R);
    iv = inv_big.data();
  }
  for (int r = 0; r < R; ++r) {
    float* sr = sp + size_t(r) * n;
    for (int j = 0; j < n; ++j) sr[j] *= scale;
    const float m = row_max(sr, n, -std::numeric_limits<float>::infinity());
    const float sum = exp_shifted(sr, n, m);
    if (m_out) {
      m_out[r] = m;
      l_out[r] = sum;
      iv[r] = 1.0f;  // x * 1 is exact: the block's sums as they are
    } else {
      iv[r] = 1.0f / sum;
    }
  }
  int c0 = 0;
#if defined(__AVX2__) && defined(__FMA__)
  for (; c0 + 32 <= dv; c0 += 32) {
    for (int r = 0; r < R; r += 2) {
      const bool two = r + 1 < R;
      const float* p0 = sp + size_t(r) * n;
      const float* p1 = two ? p0 + n : p0;
      __m256 a0[4], a1[4];
      for (int c = 0; c < 4; ++c) a0[c] = a1[c] = _mm256_setzero_ps();
      for (int j = 0; j < n; ++j) {
        const float* vj = v + j * vs + c0;
        const __m256 b0 = _mm256_set1_ps(p0[j]), b1 = _mm256_set1_ps(p1[j]);
        for (int c = 0; c < 4; ++c) {
          const __m256 x = _mm256_loadu_ps(vj + 8 * c);
          a0[c] = _mm256_fmadd_ps(b0, x, a0[c]);
          a1[c] = _mm256_fmadd_ps(b1, x, a1[c]);
        }
      }
      const __m256 i0 = _mm256_set1_ps(iv[r]);
      for (int c = 0; c < 4; ++c)
        _mm256_storeu_ps(out + size_t(r) * dv + c0 + 8 * c, _mm256_mul_ps(a0[c], i0));
      if (two) {
        const __m256 i1 = _mm256_set1_ps(iv[r + 1]);
        for (int c = 0; c < 4; ++c)
          _mm256_storeu_ps(out + size_t(r + 1) * dv + c0 + 8 * c, _mm256_mul_ps(a1[c], i1));
      }
    }
  }
#endif
  if (c0 < dv) {  // the columns past the last 32 (or all of them on the portable path)
    thread_local std::vector<float> acc;
    const int w = dv - c0;
    for (int r = 0; r < R; ++r) {
      acc.assign(w, 0.0f);
      const float* pr = sp + size_t(r) * n;
      for (int j = 0; j < n; ++j) axpy(acc.data(), v + j * vs + c0, pr[j], w);
      for (int c = 0; c < w; ++c) out[size_t(r) * dv + c0 + c] = acc[c] * iv[r];
    }
  }
}

// Query rows [l0, l0 + lqb) of all n_rep heads of KV head g (batch b), as one block of
// R = n_rep * lqb rows: S = Q K_blk^T and O += P V_blk through sgemm (or AMX bfloat16 tiles,
// a.amx: the inexact opt-in), an online softmax between.
// Masked scores take the lowest finite value, like MLX and attend(): a row masked everywhere
// averages V instead of dividing by zero.
void attend_tiled(const TiledArgs& a, int b, int g, int l0, int lqb) {
  constexpr int BK = 128;  // keys per block
  const int R = a.n_rep * lqb, d = a.d, dv = a.dv;
  thread_local std::vector<float> qbuf, sbuf, obuf, mrow, lrow, kbuf, vbuf;
  thread_local std::vector<uint16_t> qtiles;
  const int Rp = (R + 15) / 16 * 16;  // the AMX products work on blocks of 16 rows
  qbuf.resize(size_t(R) * d);
  sbuf.resize(size_t(R) * BK);
  obuf.assign(size_t(a.amx ? Rp : R) * dv, 0.0f);
  mrow.assign(R, -std::numeric_limits<float>::infinity());
  lrow.assign(R, 0.0f);
  const Strided4 &q = *a.q, &k = *a.k, &v = *a.v;
  for (int hl = 0; hl < a.n_rep; ++hl) {
    const int h = g * a.n_rep + hl;
    for (int i = 0; i < lqb; ++i) {
      const float* src = static_cast<const float*>(q.data) + b * q.s[0] + h * q.s[1] +
          int64_t(l0 + i) * q.s[2];
      float* dst = qbuf.data() + (size_t(hl) * lqb + i) * d;
      for (int c = 0; c < d; ++c) dst[c] = src[c] * a.scale;
    }
  }
  if (a.amx) {
    qtiles.resize(size_t(Rp) * d);
    a.amx->prep_q(qbuf.data(), R, d, qtiles.data());
  }
  const float masked = std::numeric_limits<float>::lowest();
  const int off = a.lk - a.lq;  // query i sees keys j <= i + off (causal)
  const int kend = a.causal ? std::min(a.lk, l0 + lqb + off) : a.lk;
  const float* kb0 = static_cast<const float*>(k.data) + b * k.s[0] + g * k.s[1];
  const float* vb0 = static_cast<const float*>(v.data) + b * v.s[0] + g * v.s[1];
  // rows of K and V are read in place when evenly spaced (a KV cache), else copied per block
  const bool k_rows = k.s[2] >= d, v_rows = v.s[2] >= dv;
  for (int j0 = 0; j0 < kend; j0 += BK) {
    const int nk = std::min(BK, kend - j0);
    const float* kp = kb0 + int64_t(j0) * k.s[2];
    int ldk = int(k.s[2]);
    if (!k_rows) {
      kbuf.resize(size_t(BK) * d);
      for (int j = 0; j < nk; ++j)
        for (int c = 0; c < d; ++c) kbuf[size_t(j) * d + c] = kp[int64_t(j) * k.s[2] + c];
      kp = kbuf.data();
      ldk = d;
    }
    if (a.amx)
      a.amx->scores(qtiles.data(), R, kp, ldk, nk, d, sbuf.data(), BK);
    else
      a.sgemm(101, 111, 112, R, nk, d, 1.0f, qbuf.data(), d, kp, ldk, 0.0f, sbuf.data(), BK);
    for (int r = 0; r < R; ++r) {
      const int hl = r / lqb, i = r % lqb, h = g * a.n_rep + hl, pos = l0 + i + off;
      float* sr = sbuf.data() + size_t(r) * BK;
      if (a.causal && j0 + nk - 1 > pos)
        for (int j = std::max(0, pos + 1 - j0); j < nk; ++j) sr[j] = masked;
      if (a.mask) {
        const Strided4& mk = *a.mask;
        const int64_t base = b * mk.s[0] + h * mk.s[1] + int64_t(l0 + i) * mk.s[2];
        if (a.mask_bool) {
          const bool* mp = static_cast<const bool*>(mk.data) + base;
          for (int j = 0; j < nk; ++j)
            if (!mp[int64_t(j0 + j) * mk.s[3]]) sr[j] = masked;
        } else {
          const float* mp = static_cast<const float*>(mk.data) + base;
          for (int j = 0; j < nk; ++j) sr[j] += mp[int64_t(j0 + j) * mk.s[3]];
        }
      }
      const float mb = row_max(sr, nk, mrow[r]);
      const float corr = exp_or_zero(mrow[r] - mb);  // 0 at the first block (-inf)
      mrow[r] = mb;
      lrow[r] = lrow[r] * corr + exp_shifted(sr, nk, mb);
      if (corr != 1.0f) {
        float* o = obuf.data() + size_t(r) * dv;
        for (int c = 0; c < dv; ++c) o[c] *= corr;
      }
    }
    const float* vp = vb0 + int64_t(j0) * v.s[2];
    int ldv = int(v.s[2]);
    if (!v_rows) {
      vbuf.resize(size_t(BK) * dv);
      for (int j = 0; j < nk; ++j)
        for (int c = 0; c < dv; ++c) vbuf[size_t(j) * dv + c] = vp[int64_t(j) * v.s[2] + c];
      vp = vbuf.data();
      ldv = dv;
    }
    if (a.amx)
      a.amx->pv(sbuf.data(), BK, R, nk, vp, ldv, dv, obuf.data());
    else
      a.sgemm(101, 111, 111, R, dv, nk, 1.0f, sbuf.data(), BK, vp, ldv, 1.0f, obuf.data(), dv);
  }
  for (int r = 0; r < R; ++r) {
    const int hl = r / lqb, i = r % lqb, h = g * a.n_rep + hl;
    float* o = a.out + ((int64_t(b) * a.hq + h) * a.lq + l0 + i) * dv;
    const float* src = obuf.data() + size_t(r) * dv;
    const float inv = 1.0f / lrow[r];
    for (int c = 0; c < dv; ++c) o[c] = src[c] * inv;
  }
}

void silu_mul(const float* g, const float* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  const __m256 one = _mm256_set1_ps(1.0f);
  for (; i + 8 <= n; i += 8) {
    const __m256 gv = _mm256_loadu_ps(g + i);
    const __m256 den = _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), gv)));
    _mm256_storeu_ps(y + i, _mm256_div_ps(_mm256_mul_ps(gv, _mm256_loadu_ps(x + i)), den));
  }
#endif
  for (; i < n; ++i) y[i] = g[i] * x[i] / (1.0f + std::exp(-g[i]));
}

// The index of the first largest value of x[0, n), a NaN counting as the largest (the first NaN
// wins), as mx.argmax picks it: the largest value in one pass, then its first index.
int64_t argmax_row(const float* x, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  bool nan = false;
  int64_t j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  __m256 mv = _mm256_set1_ps(m), un = _mm256_setzero_ps();
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    un = _mm256_or_ps(un, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    mv = _mm256_max_ps(mv, v);
  }
  nan = _mm256_movemask_ps(un) != 0;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, mv);
  for (float l : lanes) m = std::max(m, l);
#endif
  for (; j < n; ++j) {
    if (std::isnan(x[j]))
      nan = true;
    else if (x[j] > m)
      m = x[j];
  }
  if (nan) {
    for (int64_t i = 0; i < n; ++i)
      if (std::isnan(x[i])) return i;
  }
  j = 0;
#if defined(__AVX2__) && defined(__FMA__)
  const __m256 t = _mm256_set1_ps(m);
  for (; j + 8 <= n; j += 8) {
    const int hit = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + j), t, _CMP_EQ_OQ));
    if (hit) return j + __builtin_ctz(unsigned(hit));
  }
#endif
  for (; j < n; ++j)
    if (x[j] == m) return j;
  return 0;
}

}  // namespace AFM_FAST_NS
}  // namespace afm
