// Quantized matmuls on AMX tiles in bfloat16 (Intel Xeon 4th generation and later), the
// inexact many-row path of set_blas_bf16. Compiled with -mamx-tile -mamx-bf16 (and AVX-512).
//
// The roles are swapped so that no weight is transposed: the A operand is a panel of weight
// rows dequantized straight to bfloat16 (qmm_avx512_deq_bf16, each tile of 16 rows x 32 values
// 1 KiB in one piece), the B operand is x in the tiles' pair-interleaved (VNNI) order, laid out
// once per call, and each C tile holds out^T for 16 weight rows x 16 rows of x, transposed
// into `out` once its whole depth is summed. A panel of 32 weight rows is dequantized once and
// multiplied with every row of x, so the dequantization (the cost that does not shrink with
// the rows) is paid once per weight, and the products run on the tile unit (16x16x32
// multiply-adds per instruction, float32 sums).
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cpuid.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "qmm_api.h"

namespace {

constexpr long kArchReqXcompPerm = 0x1023;
constexpr long kXfeatureXtiledata = 18;

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// tiles 0-1: weight panels (A), 2-3: x (B), 4-7: sums (C); all 16 rows x 64 bytes
void load_config() {
  TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = 16;
  }
  _tile_loadconfig(&c);
}

// a stored C tile (tmp: 16 weight rows x 16 rows of x) into out[m][n], within M x N
inline void scatter_c(const float* tmp, float* out, int n0, int m0, int N, int M) {
  const int nn = std::min(16, N - n0), mm = std::min(16, M - m0);
  for (int m = 0; m < mm; ++m) {
    float* o = out + size_t(m0 + m) * N + n0;
    for (int n = 0; n < nn; ++n) o[n] = tmp[n * 16 + m];
  }
}
// the tile intrinsics take register numbers as literals: a macro, not a template
#define STORE_C(T, n0, m0)               \
  do {                                   \
    _tile_stored(T, tmp, 64);            \
    scatter_c(tmp, a.out, n0, m0, N, M); \
  } while (0)

}  // namespace

bool amx_bf16_ready() {
  static const bool ok = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool tile = d & (1u << 24), bf16 = d & (1u << 22);
    if (!tile || !bf16) return false;
    // the kernel gives a process the tile registers' state only when asked
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return ok;
}

size_t amx_x_size(int M, int K) {
  return size_t((M + 15) / 16) * 16 * K;
}

void amx_prep_x(const uint16_t* xb, int ld, int M, int K, uint16_t* xv) {
  // xv[mb][kb]: 16 pairs of depth x 16 rows x 2, the B tile of rows 16mb.., depth 32kb..
  const int MB = (M + 15) / 16, KB = K / 32;
  uint32_t* dst = reinterpret_cast<uint32_t*>(xv);
  for (int mb = 0; mb < MB; ++mb)
    for (int kb = 0; kb < KB; ++kb) {
      uint32_t* t = dst + (size_t(mb) * KB + kb) * 256;
      for (int m = 0; m < 16; ++m) {
        const int row = mb * 16 + m;
        if (row >= M) {
          for (int p = 0; p < 16; ++p) t[p * 16 + m] = 0;
          continue;
        }
        const uint32_t* src = reinterpret_cast<const uint32_t*>(xb + size_t(row) * ld) + kb * 16;
        for (int p = 0; p < 16; ++p) t[p * 16 + m] = src[p];
      }
    }
}

void qmm_amx_bf16_panel(const QmmArgs& a, const uint16_t* xv, int n0, uint16_t* panel) {
  const int K = a.K, KB = K / 32, M = a.M, N = a.N, MB = (M + 15) / 16;
  const int rows = std::min(32, N - n0);
  qmm_avx512_deq_bf16(a, n0, rows, panel);
  if (rows < 32)  // the rows past N: zeros
    for (int kb = 0; kb < KB; ++kb)
      std::memset(panel + size_t(kb) * 1024 + rows * 32, 0, sizeof(uint16_t) * (32 - rows) * 32);
  load_config();
  alignas(64) float tmp[256];
  const uint16_t* p0 = panel;  // weight rows 0-15 of each 32-value block, then 16-31
  const uint16_t* p1 = panel + 512;
  for (int mb = 0; mb < MB; mb += 2) {
    const bool two = mb + 1 < MB;  // else an odd last block of x's rows
    _tile_zero(4);
    _tile_zero(5);
    _tile_zero(6);
    _tile_zero(7);
    const uint16_t* x0 = xv + size_t(mb) * KB * 512;
    const uint16_t* x1 = x0 + size_t(KB) * 512;
    if (two)
      for (int kb = 0; kb < KB; ++kb) {
        _tile_loadd(0, p0 + size_t(kb) * 1024, 64);
        _tile_loadd(1, p1 + size_t(kb) * 1024, 64);
        _tile_loadd(2, x0 + size_t(kb) * 512, 64);
        _tile_loadd(3, x1 + size_t(kb) * 512, 64);
        _tile_dpbf16ps(4, 0, 2);
        _tile_dpbf16ps(5, 0, 3);
        _tile_dpbf16ps(6, 1, 2);
        _tile_dpbf16ps(7, 1, 3);
      }
    else
      for (int kb = 0; kb < KB; ++kb) {
        _tile_loadd(0, p0 + size_t(kb) * 1024, 64);
        _tile_loadd(1, p1 + size_t(kb) * 1024, 64);
        _tile_loadd(2, x0 + size_t(kb) * 512, 64);
        _tile_dpbf16ps(4, 0, 2);
        _tile_dpbf16ps(6, 1, 2);
      }
    STORE_C(4, n0, mb * 16);
    if (two) STORE_C(5, n0, mb * 16 + 16);
    if (rows > 16) {
      STORE_C(6, n0 + 16, mb * 16);
      if (two) STORE_C(7, n0 + 16, mb * 16 + 16);
    }
  }
}

// --- Long-prompt attention on the tiles (the tiled kernel's two products, fast_kernels.h) ---

namespace {

// scores: S[r][j] = Q[r] . K[j] for R query rows and nk <= 128 keys (S^T on the tiles: the keys
// are the A operand, row-major as they lie; Q the B operand, laid out once by amx_attn_prep_q)
void amx_attn_scores(const uint16_t* qv, int R, const float* k, int ldk, int nk, int d,
                     float* s, int lds) {
  const int DB = d / 32, QB = (R + 15) / 16, KT = (nk + 15) / 16;
  alignas(64) uint16_t ka[8 * 4 * 512];  // [key tile][d block][16 keys x 32]; nk <= 128, d <= 128
  for (int kt = 0; kt < KT; ++kt)
    for (int db = 0; db < DB; ++db) {
      uint16_t* t = ka + (size_t(kt) * DB + db) * 512;
      for (int j = 0; j < 16; ++j) {
        const int key = kt * 16 + j;
        if (key >= nk) {
          std::memset(t + j * 32, 0, 64);
          continue;
        }
        const float* src = k + int64_t(key) * ldk + db * 32;
        for (int c = 0; c < 32; ++c) t[j * 32 + c] = float_to_bf16(src[c]);
      }
    }
  load_config();
  alignas(64) float tmp[256];
  for (int qb = 0; qb < QB; ++qb)
    for (int kt = 0; kt < KT; ++kt) {
      _tile_zero(4);
      for (int db = 0; db < DB; ++db) {
        _tile_loadd(0, ka + (size_t(kt) * DB + db) * 512, 64);
        _tile_loadd(2, qv + (size_t(qb) * DB + db) * 512, 64);
        _tile_dpbf16ps(4, 0, 2);
      }
      _tile_stored(4, tmp, 64);
      const int mm = std::min(16, R - qb * 16), nn = std::min(16, nk - kt * 16);
      for (int m = 0; m < mm; ++m) {
        float* o = s + size_t(qb * 16 + m) * lds + kt * 16;
        for (int n = 0; n < nn; ++n) o[n] = tmp[n * 16 + m];
      }
    }
}

// O[r] += sum_j P[r][j] V[j] for R rows (O with Rp = R rounded up to 16 rows), nk <= 128 keys
void amx_attn_pv(const float* p, int lds, int R, int nk, const float* v, int ldv, int dv,
                 float* o) {
  const int QB = (R + 15) / 16, KB = (nk + 31) / 32, CB = dv / 16;
  thread_local std::vector<uint16_t> pa, vb;
  pa.resize(size_t(QB) * KB * 512);
  vb.resize(size_t(KB) * CB * 512);
  for (int qb = 0; qb < QB; ++qb)  // P: A tiles [16 rows x 32 keys]
    for (int kb = 0; kb < KB; ++kb) {
      uint16_t* t = pa.data() + (size_t(qb) * KB + kb) * 512;
      for (int m = 0; m < 16; ++m) {
        const int r = qb * 16 + m;
        for (int c = 0; c < 32; ++c) {
          const int key = kb * 32 + c;
          t[m * 32 + c] = r < R && key < nk ? float_to_bf16(p[size_t(r) * lds + key]) : 0;
        }
      }
    }
  for (int kb = 0; kb < KB; ++kb)  // V: B tiles [16 key pairs x 16 columns x 2]
    for (int cb = 0; cb < CB; ++cb) {
      uint16_t* t = vb.data() + (size_t(kb) * CB + cb) * 512;
      for (int pr = 0; pr < 16; ++pr)
        for (int half = 0; half < 2; ++half) {
          const int key = kb * 32 + 2 * pr + half;
          const float* src = v + int64_t(key) * ldv + cb * 16;
          for (int c = 0; c < 16; ++c) t[(pr * 16 + c) * 2 + half] = key < nk ? float_to_bf16(src[c]) : 0;
        }
    }
  load_config();
  const size_t stride = size_t(dv) * 4;
  for (int qb = 0; qb < QB; ++qb)
    for (int cb = 0; cb < CB; ++cb) {
      float* c = o + size_t(qb) * 16 * dv + cb * 16;
      _tile_loadd(4, c, stride);
      for (int kb = 0; kb < KB; ++kb) {
        _tile_loadd(0, pa.data() + (size_t(qb) * KB + kb) * 512, 64);
        _tile_loadd(2, vb.data() + (size_t(kb) * CB + cb) * 512, 64);
        _tile_dpbf16ps(4, 0, 2);
      }
      _tile_stored(4, c, stride);
    }
}

// Q (R rows of d floats, stride d) rounded and laid out as B tiles, as amx_prep_x lays out x
void amx_attn_prep_q(const float* q, int R, int d, uint16_t* qv) {
  thread_local std::vector<uint16_t> qb;
  qb.resize(size_t(R) * d);
  for (size_t i = 0; i < qb.size(); ++i) qb[i] = float_to_bf16(q[i]);
  amx_prep_x(qb.data(), d, R, d, qv);
}

const AmxAttention kAmxAttention{amx_attn_prep_q, amx_attn_scores, amx_attn_pv};

}  // namespace

const AmxAttention* amx_attention() {
  return amx_bf16_ready() ? &kAmxAttention : nullptr;
}
