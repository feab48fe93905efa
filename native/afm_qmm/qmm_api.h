// Shared declarations of the quantized matmul kernels (see qmm_kernel.h for the layout).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

struct QmmArgs {
  const float* x;       // [M, K] activations, row-major
  const uint32_t* w;    // [N, K * bits / 32] packed weights
  const float* scales;  // [N, K / group_size] (nullptr with hscales)
  const float* biases;  // [N, K / group_size] (nullptr with hbiases)
  const float* xsum;    // [M, K / group_size] group sums of x
  float* out;           // [M, N]
  int M, N, K, group_size, bits;
  const float* xp = nullptr;  // [M, qmm_xp_stride(K)] x in the kernel's order (its prep)
  // int8 activations (the *_int8 and vnni kernels): x rounded per group to xq * xd, with
  // xd = max|x| / 127, in the order the kernel's quant function writes
  const int8_t* xq = nullptr;  // [M, K]
  const float* xd = nullptr;   // [M, K / group_size]
  // float16 scales and biases (IEEE bit patterns, [N, K / group_size]) in place of the float32
  // ones when set: 2 bytes a group each instead of 4 (0.625 bytes a 4-bit weight at group size
  // 32 instead of 0.75, like GGUF's Q4_1), read as the same float32 values (the conversion is
  // exact), so the sums are the same bits as with float32 copies of them
  const uint16_t* hscales = nullptr;
  const uint16_t* hbiases = nullptr;
  // digit planes per row of x (the *_x3 int8 kernels: 3, xq then holds 3 rows per row of x;
  // qmm_int8.h)
  int planes = 1;
};

// The long-prompt attention kernel's two products on AMX bfloat16 tiles (qmm_amx.cpp; inexact,
// under the same opt-in as the quantized matmuls' tiles). prep_q: R rows of Q (d floats each,
// d a multiple of 32 up to 128) laid out for the tiles (((R + 15) / 16) * 16 * d values);
// scores: S[r][j] = Q[r] . K[j] for nk <= 128 keys of stride ldk; pv: O[r] += P[r] V for
// P [R x nk] (stride lds) and V [nk x dv] (stride ldv, dv a multiple of 16), O [R' x dv] with
// R' = R rounded up to 16 rows.
struct AmxAttention {
  void (*prep_q)(const float* q, int R, int d, uint16_t* qv);
  void (*scores)(const uint16_t* qv, int R, const float* k, int ldk, int nk, int d, float* s,
                 int lds);
  void (*pv)(const float* p, int lds, int R, int nk, const float* v, int ldv, int dv, float* o);
};

// float32 -> bfloat16 bits, rounded to nearest even (a NaN stays a NaN).
inline uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// The float32 value of a float16 bit pattern (exact: every float16 is a float32).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in float32
    float f = float(man) * 5.9604644775390625e-08f;
    std::memcpy(&bits, &f, sizeof bits);
    bits |= sign;
  } else if (exp == 31) {  // infinity or NaN
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  }
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// Scale / bias i of a call, float32 or float16.
inline float scale_at(const QmmArgs& a, size_t i) {
  return a.hscales ? half_to_float(a.hscales[i]) : a.scales[i];
}
inline float bias_at(const QmmArgs& a, size_t i) {
  return a.hbiases ? half_to_float(a.hbiases[i]) : a.biases[i];
}

// Row stride of QmmArgs::xp: K plus one cache line, so that rows of a power-of-two K do not all
// map to the same L1 sets.
inline int qmm_xp_stride(int K) {
  return K + 16;
}

// Planar 5- and 6-bit codes (AFM's own layout for GGUF's Q5_0/Q5_1/Q5_K and Q6_K blocks, whose
// codes it keeps bit for bit): a row of K codes is K / 2 bytes of low nibbles, packed exactly
// like MLX's 4-bit codes (code k in bits 4 (k % 8) of word k / 8), then the high bits: at 5 bits
// K / 8 bytes, bit k % 8 of byte k / 8 being code k's bit 4; at 6 bits K / 4 bytes, bits
// 2 (k % 8) and 2 (k % 8) + 1 of 16-bit word k / 8 being code k's bits 4 and 5. A row is
// K * bits / 8 bytes, as MLX's packing, so shapes are MLX's; the codes' order within a SIMD
// unit is the 4-bit one whatever the vector width (the high plane is addressed by code
// index), so one layout serves every instruction set. 5 bits go with group size 32, 6 bits with
// 16 (Q6_K's sub-blocks).
inline bool qmm_planar(int bits) {
  return bits == 5 || bits == 6;
}

// Whether the kernels take this format: 4 or 8 bits at group size 32, 64 or 128; 5 bits
// (planar) at 32; 6 bits (planar) at 16.
inline bool qmm_format_ok(int bits, int group_size) {
  if (bits == 4 || bits == 8) return group_size == 32 || group_size == 64 || group_size == 128;
  if (bits == 5) return group_size == 32;
  if (bits == 6) return group_size == 16;
  return false;
}

// Code k of a row of K codes at `bits` (MLX's 4- or 8-bit packing, or planar 5 or 6 bits).
inline uint32_t qmm_code(const uint8_t* row, int K, int bits, int k) {
  if (bits == 8) return row[k];
  const uint32_t lo = (row[k >> 1] >> ((k & 1) * 4)) & 15u;
  if (bits == 4) return lo;
  const uint8_t* hi = row + K / 2;
  if (bits == 5) return lo | (((hi[k >> 3] >> (k & 7)) & 1u) << 4);
  uint16_t h;
  std::memcpy(&h, hi + 2 * (k >> 3), 2);
  return lo | (((h >> (2 * (k & 7))) & 3u) << 4);
}

// The one switch from a call's format to a kernel's templates: f(bits, group_size), each a
// std::integral_constant (bits 4 or 8; group size 32, 64 or 128). A template in each kernel's own
// translation unit, called with that unit's lambdas, so the per-ISA copies never merge.
// PLANAR: also planar 5 bits at group size 32 and 6 bits at 16 (the float kernels; the int8
// ones take 4 and 8 bits only).
template <bool PLANAR = false, class F>
inline void qmm_dispatch(const QmmArgs& a, F&& f) {
  auto by_group = [&](auto bits) {
    switch (a.group_size) {
      case 32:
        f(bits, std::integral_constant<int, 32>{});
        break;
      case 64:
        f(bits, std::integral_constant<int, 64>{});
        break;
      default:
        f(bits, std::integral_constant<int, 128>{});
        break;
    }
  };
  if constexpr (PLANAR) {
    if (a.bits == 5) return f(std::integral_constant<int, 5>{}, std::integral_constant<int, 32>{});
    if (a.bits == 6) return f(std::integral_constant<int, 6>{}, std::integral_constant<int, 16>{});
  }
  if (a.bits == 4)
    by_group(std::integral_constant<int, 4>{});
  else
    by_group(std::integral_constant<int, 8>{});
}

// Each computes out[:, n0:n1]; defined once per instruction set. The matching *_prep writes
// a.x permuted into that kernel's order (xp, [M, K]) before the first call; *_deq writes weight
// rows [n0, n0 + rows) dequantized in that order (dst, [rows, K]).
void qmm_portable(const QmmArgs& a, int n0, int n1);
void qmm_portable_prep(const QmmArgs& a, float* xp);
void qmm_portable_deq(const QmmArgs& a, int n0, int rows, float* dst);
#if defined(__x86_64__) || defined(_M_X64)
#define QMM_X86 1
void qmm_avx2(const QmmArgs& a, int n0, int n1);
void qmm_avx512(const QmmArgs& a, int n0, int n1);
void qmm_avx512_256(const QmmArgs& a, int n0, int n1);
void qmm_avx2_prep(const QmmArgs& a, float* xp);
void qmm_avx512_prep(const QmmArgs& a, float* xp);
void qmm_avx512_256_prep(const QmmArgs& a, float* xp);
void qmm_avx2_deq(const QmmArgs& a, int n0, int rows, float* dst);
void qmm_avx512_deq(const QmmArgs& a, int n0, int rows, float* dst);
void qmm_avx512_256_deq(const QmmArgs& a, int n0, int rows, float* dst);
// out[m, n] = dot(x[m, :K], w[n, :K]) for m < M, n < nb (qmm_gemm.h): a few rows of x (stride
// ldx) times a tile of weight rows dequantized by qmm_avx512_deq (stride K)
void qmm_avx512_gemm(const float* x, int ldx, int M, const float* w, int K, int nb, float* out,
                     int ldo);
// Many rows of x (qmm_panels.h): panel p (QMM_PANEL_ROWS rows of x from row p * that, the last
// zero-padded to whole vectors) written along K in qmm_avx512_deq's order to panels + that row
// * K (64-byte aligned; qmm_panels_size floats in all); then the panels times a tile of nb
// weight rows dequantized by qmm_avx512_deq, out[m, n] for m < M, n < nb.
constexpr int QMM_PANEL_ROWS = 48;
inline size_t qmm_panels_size(int M, int K) {
  return size_t((M + QMM_PANEL_ROWS - 1) / QMM_PANEL_ROWS) * QMM_PANEL_ROWS * K;
}
void qmm_avx512_pack_panel(const QmmArgs& a, int p, float* panels);
void qmm_avx512_panels(const float* panels, int M, int K, const float* w, int nb, float* out,
                       int ldo);
// qmm_avx512_deq's values rounded to bfloat16 (the bfloat16 BLAS tiles)
void qmm_avx512_deq_bf16(const QmmArgs& a, int n0, int rows, uint16_t* dst);
// AMX bfloat16 tiles (qmm_amx.cpp, built where the compiler has AMX: AFM_HAS_AMX): whether the CPU has them and the kernel lets this process
// use them; x (bfloat16 rows of stride ld, in qmm_avx512_prep's order) laid out for the tiles
// (amx_x_size values); the product of a panel of weight rows [n0, n0 + 32) with all of x,
// written to a.out (panel: 32 x K scratch values).
bool amx_bf16_ready();
size_t amx_x_size(int M, int K);
void amx_prep_x(const uint16_t* xb, int ld, int M, int K, uint16_t* xv);
void qmm_amx_bf16_panel(const QmmArgs& a, const uint16_t* xv, int n0, uint16_t* panel);
const AmxAttention* amx_attention();  // nullptr where the tiles cannot run
// Int8 activations (qmm_int8.h): AVX-512 VNNI dot products, or AVX2 multiply-adds; the
// *_quant function fills a.xq ([M, K]), a.xd ([M, K / group_size]) and the group sums of the
// rounded x (xsum) from a.x first.
void qmm_vnni(const QmmArgs& a, int n0, int n1);
void qmm_vnni_quant(const QmmArgs& a, int8_t* xq, float* xd, float* xsum);
// The same products with x as three int8 digit planes (float32-level accuracy, exact integer
// dot products); *_quant3 fills 3 rows of xq per row of x (xd, xsum: one).
void qmm_vnni_x3(const QmmArgs& a, int n0, int n1);
void qmm_vnni_quant3(const QmmArgs& a, int8_t* xq, float* xd, float* xsum);
void qmm_avx2_int8(const QmmArgs& a, int n0, int n1);
void qmm_avx2_int8_quant(const QmmArgs& a, int8_t* xq, float* xd, float* xsum);
void qmm_avx2_int8_x3(const QmmArgs& a, int n0, int n1);
void qmm_avx2_int8_quant3(const QmmArgs& a, int8_t* xq, float* xd, float* xsum);
#endif
