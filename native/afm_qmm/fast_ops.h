// MLX ops and primitives for the "fast" operations MLX's CPU backend lacks: RMSNorm, RoPE and
// scaled dot-product attention for short queries (decode). On the CPU, mx.fast.rms_norm, rope
// and scaled_dot_product_attention fall back to graphs of 7-40 small ops each (one dispatch,
// one allocation per op); these are one primitive each, float32, strided inputs read in place.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "mlx/ops.h"
#include "mlx/primitives.h"
#include "qmm_api.h"

namespace afm {

namespace mx = mlx::core;

// x: [..., D] float32; w: [D] float32 or none. y = x * rsqrt(mean(x^2) + eps) * w.
mx::array rms_norm(const mx::array& x, const std::optional<mx::array>& w, float eps);

// x: [L, D], [B, L, D] or [B, H, L, D] float32; offset: int32 scalar or [B]; freqs: [dims/2]
// float32 (then base is unused). Rotates the first `dims` features like mx.fast.rope.
mx::array rope(
    const mx::array& x,
    int dims,
    bool traditional,
    float base,
    float scale,
    const mx::array& offset,
    const std::optional<mx::array>& freqs);

// q: [B, Hq, Lq, D]; k: [B, Hkv, Lk, D]; v: [B, Hkv, Lk, Dv]; float32, Hq a multiple of Hkv.
// mask: bool (keep where true) or float32 (added to the scores), broadcastable to
// [B, Hq, Lq, Lk]; causal: query i sees keys j <= i + Lk - Lq. Returns [B, Hq, Lq, Dv].
mx::array sdpa(
    const mx::array& q,
    const mx::array& k,
    const mx::array& v,
    float scale,
    const std::optional<mx::array>& mask,
    bool causal);

// The same attention for long queries (prefill), tiled: for each KV head and block of queries,
// keys and values are read in blocks, scores of one block at a time (through the BLAS's sgemm)
// and an online softmax (running max and sum per query row), so the Lq x Lk score matrix never
// exists; causal blocks past a query block's last position are skipped. Needs a cblas_sgemm in
// the process (has_sgemm()). Same arguments and result as sdpa.
mx::array sdpa_tiled(
    const mx::array& q,
    const mx::array& k,
    const mx::array& v,
    float scale,
    const std::optional<mx::array>& mask,
    bool causal);

// silu(gate) * x (mlx-lm's swiglu): gate and x float32 of one shape. MLX's CPU backend runs the
// compiled elementwise kernel with scalar exp and fmaf calls (~11 ns per element).
mx::array silu_mul(const mx::array& gate, const mx::array& x);
// mx.argmax(x, axis=-1) of float32 x [..., V]: uint32 [...], the first largest value's index (a
// NaN counting as largest), rows over the pool (MLX's CPU argmax of 16 rows of a 152k
// vocabulary takes ~5 ms, 32 times one row's).
mx::array argmax_last(const mx::array& x);

// x [m, k] @ w[n, k].T into out (row stride ldo) with the AVX2 kernel for a few rows of x;
// small_gemm_available() says whether this CPU and build have it (AFM_QMM_ISA=portable: no).
bool small_gemm_available();
void small_gemm_nt(const float* x, int m, const float* w, int n, int k, float* out, int ldo);

// Kernels, one set per instruction-set path (fast_kernels.h, compiled twice).
struct Strided4 {
  const void* data;
  int64_t s[4];  // element strides of a 4-D view
};

// cblas_sgemm's signature (row-major callers only).
using SgemmPtr = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                          int, float, float*, int);

// One tile task of sdpa_tiled: batch b, KV head g, queries [l0, l0 + lqb).
struct TiledArgs {
  const Strided4 *q, *k, *v, *mask;
  bool mask_bool, causal;
  int n_rep, lq, lk, d, dv, hq;
  float scale;
  float* out;
  SgemmPtr sgemm;
  // the two products on AMX bfloat16 tiles instead of sgemm (the inexact opt-in), or nullptr
  const AmxAttention* amx = nullptr;
};

#define AFM_FAST_KERNELS(NS)                                                                 \
  namespace NS {                                                                             \
  void gemm_nt_small(const float* x, int m, const float* w, int n, int k, float* out,         \
                     int ldo);                                                               \
  void rms_norm_row(const float* x, const float* w, float* y, int d, float eps);             \
  void rope_rows(const float* x, const int64_t* xs, float* y, const int64_t* ys, int h,     \
                 int d, int dims, bool traditional, const float* cos_sin, int l_count);     \
  void attend(const Strided4& q, const Strided4& k, const Strided4& v, const Strided4* mask, \
              bool mask_bool, bool causal, int b, int g, int n_rep, int lq, int lk, int d,   \
              int dv, float scale, float* out, int hq);                                      \
  void silu_mul(const float* g, const float* x, float* y, int64_t n);                          \
  int64_t argmax_row(const float* x, int64_t n);                                               \
  void attend_tiled(const TiledArgs& a, int b, int g, int l0, int lqb);                       \
  void attend_decode(const float* q, int rows, const float* k, int64_t ks, const float* v,    \
                     int64_t vs, int n, int d, int dv, float scale, float* out, float* m_out, \
                     float* l_out);                                                           \
  }
AFM_FAST_KERNELS(fast_portable)
AFM_FAST_KERNELS(fast_avx2)

// attend_tiled's task without the BLAS (attn_panels.h, x86-64 builds only, where CMakeLists.txt
// defines AFM_ATTN_PANELS for fast_ops.cpp): query rows packed once per task into panels of
// attend_panel_rows_*() rows, outer products in registers, a vertical softmax. Any mask; never
// the AMX tiles (a.amx is ignored).
void attend_tiled_avx512(const TiledArgs& a, int b, int g, int l0, int lqb);
int attend_panel_rows_avx512();
void attend_tiled_avx2(const TiledArgs& a, int b, int g, int l0, int lqb);
int attend_panel_rows_avx2();

// Whether sdpa_tiled may take the panel kernels (default on); returns the setting now in force.
bool set_attention_panels(bool on);
bool attention_panels();

// The AVX2 build of kernel f where there is one (fast_avx2.cpp is built on x86-64 only, where
// CMakeLists.txt defines AFM_FAST_AVX2 for the files that call it), else the portable one.
#ifdef AFM_FAST_AVX2
#define AFM_AVX2_OR_PORTABLE(f) fast_avx2::f
#else
#define AFM_AVX2_OR_PORTABLE(f) fast_portable::f
#endif

class RMSNormCPU : public mx::Primitive {
 public:
  RMSNormCPU(mx::Stream s, float eps, bool has_w) : mx::Primitive(s), eps_(eps), has_w_(has_w) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmRMSNormCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  float eps_;
  bool has_w_;
};

class RopeCPU : public mx::Primitive {
 public:
  RopeCPU(mx::Stream s, int dims, bool traditional, float base, float scale, bool has_freqs)
      : mx::Primitive(s),
        dims_(dims),
        traditional_(traditional),
        base_(base),
        scale_(scale),
        has_freqs_(has_freqs) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmRopeCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  int dims_;
  bool traditional_;
  float base_, scale_;
  bool has_freqs_;
};

class SdpaCPU : public mx::Primitive {
 public:
  SdpaCPU(mx::Stream s, float scale, bool has_mask, bool causal)
      : mx::Primitive(s), scale_(scale), has_mask_(has_mask), causal_(causal) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmSdpaCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  float scale_;
  bool has_mask_, causal_;
};

class SdpaTiledCPU : public mx::Primitive {
 public:
  SdpaTiledCPU(mx::Stream s, float scale, bool has_mask, bool causal)
      : mx::Primitive(s), scale_(scale), has_mask_(has_mask), causal_(causal) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmSdpaTiledCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  float scale_;
  bool has_mask_, causal_;
};

class ArgmaxLastCPU : public mx::Primitive {
 public:
  explicit ArgmaxLastCPU(mx::Stream s) : mx::Primitive(s) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmArgmaxLastCPU";
  }
  bool is_equivalent(const mx::Primitive&) const override {
    return true;
  }
};

class SiluMulCPU : public mx::Primitive {
 public:
  explicit SiluMulCPU(mx::Stream s) : mx::Primitive(s) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmSiluMulCPU";
  }
  std::vector<mx::Shape> output_shapes(const std::vector<mx::array>& inputs) override {
    return {inputs[0].shape()};  // elementwise: lets shapeless mx.compile trace through it
  }
  bool is_equivalent(const mx::Primitive&) const override {
    return true;
  }
};

}  // namespace afm

namespace afm {

// Decode-step attention pieces (one query per row, a BatchKVCache-shaped buffer), so one layer's
// attention is three primitives instead of about nineteen (slices, reshapes, transposes, two
// RoPEs, two slice updates, the KV slices, SDPA).
//
// kv_append: buf [B, H, cap, D] float32; src [B, 1, W] float32 whose columns
// [col, col + H * D) hold the new row of each head. Returns buf with row `idx` of every (b, h)
// replaced by that row, rotated like mx.fast.rope at position pos[b] when `rope` (pos int32 [B]).
// The result takes buf's memory when buf is donatable (as MLX's slice update does), else a copy.
mx::array kv_append(
    const mx::array& buf,
    const mx::array& src,
    int col,
    int idx,
    const std::optional<mx::array>& pos,
    int dims,
    bool traditional,
    float base,
    float scale);

// decode_attention: the queries are src's columns [0, Hq * D), rotated at pos[b]; keys and values
// are rows [0, n_keys) of kbuf / vbuf [B, Hkv, cap, D], rows j < start[b] masked (left padding).
// Returns [B, 1, Hq * D]: what mx.fast.rope, then sdpa with the BatchKVCache mask, then
// transpose / reshape give (the same kernels, the same values).
mx::array decode_attention(
    const mx::array& src,
    const mx::array& kbuf,
    const mx::array& vbuf,
    const mx::array& pos,
    const mx::array& start,
    int n_heads,
    int n_keys,
    float attn_scale,
    int dims,
    bool traditional,
    float base,
    float rope_scale);

// silu(y[..., :F]) * y[..., F:] for y [..., 2F] float32 (a fused gate/up product), [..., F].
mx::array silu_mul_halves(const mx::array& y);

namespace detail {  // the decode ops' work on raw buffers (decode_stack runs them too)
// One decode query a head: the n_rep query rows of one KV head of one batch row (row-major
// [n_rep, d], rotated) attend to its n kept keys and values into out [n_rep, dv]. n = 0: the
// group takes another kernel (attend_decode_groups' `other`).
struct DecodeGroup {
  const float* q;
  const float* k;
  const float* v;
  int n;
  float* out;
};
// Keys per task of one group's decode attention. A longer range is split into blocks of this
// many keys (the last one shorter), one task each, merged by their softmax maxima and sums
// (flash-decoding): the pool's threads share a few KV heads' long ranges evenly (3 KV heads
// over 2 threads was 2:1). The split depends on n only, so neither the batch nor the thread
// count changes a row's sums; a range of up to this many keys gives the same bits as before.
constexpr int kDecodeBlock = 512;
using AttendDecodeFn = void (*)(const float*, int, const float*, int64_t, const float*, int64_t,
                                int, int, int, float, float*, float*, float*);
// Every group over the pool (`threads`), keys and values ks / vs floats a row apart.
void attend_decode_groups(const std::vector<DecodeGroup>& groups, int n_rep, int64_t ks,
                          int64_t vs, int d, int dv, float scale, int threads,
                          AttendDecodeFn kernel, const std::function<void(int)>& other);
void rope_inv_freq(float base, int half, std::vector<float>& inv_freq);
void rope_table(int32_t base_pos, float scale, const std::vector<float>& inv_freq,
                std::vector<float>& cs);
// The RoPE cosines and sines of each row's position pos[b] (B rows of dims floats: cos, sin of
// each frequency), as RopeCPU computes them. A decode step's layers share one set.
std::vector<float> rope_tables(const int32_t* pos, int B, int dims, float base, float scale);
// kv_append into op (row-major [B, H, cap, D]) from rows of src ld floats apart, rotated by
// tables (rope_tables; null: no RoPE)
void kv_append_rows(const float* src, int64_t ld, int col, float* op, int B, int H, int cap,
                    int D, int idx, const float* tables, int dims, bool traditional, bool avx2);
// decode_attention into op [B, 1, hq * dv] from rows of src ld floats apart, the queries
// rotated by tables (rope_tables)
void decode_attention_rows(const float* src, int64_t ld, const Strided4& k, const Strided4& v,
                           int B, int hkv, int d, int dv, const float* tables,
                           const int32_t* start, int hq, int lk, float scale, int dims,
                           bool traditional, bool avx2, float* op);
}  // namespace detail

class KvAppendCPU : public mx::Primitive {
 public:
  KvAppendCPU(mx::Stream s, int col, int idx, bool rope, int dims, bool traditional, float base,
              float scale)
      : mx::Primitive(s), col_(col), idx_(idx), rope_(rope), dims_(dims),
        traditional_(traditional), base_(base), scale_(scale) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmKvAppendCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  int col_, idx_;
  bool rope_;
  int dims_;
  bool traditional_;
  float base_, scale_;
};

class DecodeAttentionCPU : public mx::Primitive {
 public:
  DecodeAttentionCPU(mx::Stream s, int n_heads, int n_keys, float attn_scale, int dims,
                     bool traditional, float base, float rope_scale)
      : mx::Primitive(s), n_heads_(n_heads), n_keys_(n_keys), attn_scale_(attn_scale),
        dims_(dims), traditional_(traditional), base_(base), rope_scale_(rope_scale) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmDecodeAttentionCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  int n_heads_, n_keys_;
  float attn_scale_;
  int dims_;
  bool traditional_;
  float base_, rope_scale_;
};

class SiluMulHalvesCPU : public mx::Primitive {
 public:
  explicit SiluMulHalvesCPU(mx::Stream s) : mx::Primitive(s) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmSiluMulHalvesCPU";
  }
  bool is_equivalent(const mx::Primitive&) const override {
    return true;
  }
};

}  // namespace afm
