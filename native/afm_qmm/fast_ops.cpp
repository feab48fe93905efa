// RMSNorm, RoPE and short-query attention as single MLX primitives on the CPU (fast_ops.h).
// Inputs are read in place through their strides (a KV cache slice, a transposed query); only
// a last axis that is not contiguous is copied first. Work is split over the kernel's thread
// pool when it is large enough to pay for waking a helper.
#include "fast_ops.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "mlx/allocator.h"
#include "mlx/backend/cpu/encoder.h"
#include "qmm_ops.h"
#include "sgemm_ops.h"

namespace afm {

namespace {

constexpr double kParallelWork = 1 << 17;  // below this, one thread (a wake-up costs more)

std::atomic<bool> g_attention_panels{true};  // set_attention_panels

bool avx2_path(const std::string& isa) {
  const Isa i = resolve_isa(isa);
  return i == Isa::Avx2 || i == Isa::Avx512 || i == Isa::Avx512x256 || i == Isa::Avx2Int8;
}

int threads_for(double work) {
  return work < kParallelWork ? 1 : num_threads();
}

// A 4-D strided view of `a` (leading axes of size 1 added); `keep` holds a contiguous copy when
// the last axis is strided, so kernels always see unit stride there.
Strided4 view4(const mx::array& a, std::vector<float>& keep, bool unit_last = true) {
  Strided4 v{};
  const int nd = int(a.ndim());
  int64_t shape[4] = {1, 1, 1, 1};
  for (int i = 0; i < 4; ++i) v.s[i] = 0;
  for (int i = 0; i < nd; ++i) {
    shape[4 - nd + i] = a.shape(i);
    v.s[4 - nd + i] = a.strides()[i];
  }
  v.data = a.data<void>();
  if (!unit_last || nd == 0 || v.s[3] == 1 || shape[3] == 1 || a.dtype() != mx::float32)
    return v;
  keep.resize(size_t(shape[0] * shape[1] * shape[2] * shape[3]));
  const float* src = a.data<float>();
  size_t at = 0;
  for (int64_t i0 = 0; i0 < shape[0]; ++i0)
    for (int64_t i1 = 0; i1 < shape[1]; ++i1)
      for (int64_t i2 = 0; i2 < shape[2]; ++i2)
        for (int64_t i3 = 0; i3 < shape[3]; ++i3)
          keep[at++] = src[i0 * v.s[0] + i1 * v.s[1] + i2 * v.s[2] + i3 * v.s[3]];
  v.data = keep.data();
  v.s[3] = 1;
  v.s[2] = shape[3];
  v.s[1] = shape[2] * shape[3];
  v.s[0] = shape[1] * shape[2] * shape[3];
  return v;
}

// Whether the rows (last axis) of `a` are contiguous and evenly spaced, `ld` floats apart (one
// row: its length): true for a column slice of a row-major matrix, false for broadcast rows.
bool evenly_spaced_rows(const mx::array& a, int64_t& ld) {
  const int nd = int(a.ndim());
  if (nd == 0 || (a.shape(nd - 1) > 1 && a.strides()[nd - 1] != 1)) return false;
  const int64_t n = a.shape(nd - 1);
  int64_t inner = 1;  // rows one step of axis i moves over
  ld = -1;
  for (int i = nd - 2; i >= 0; --i) {
    const int64_t size = a.shape(i);
    if (size == 1) continue;
    if (ld < 0)
      ld = a.strides()[i];
    else if (a.strides()[i] != ld * inner)
      return false;
    inner *= size;
  }
  if (ld < 0) ld = n;
  return ld >= n;
}

void check_f32(const mx::array& a, const char* what) {
  if (a.dtype() != mx::float32)
    throw std::invalid_argument(std::string("afm fast ops: ") + what + " must be float32");
}

mx::Stream cpu_stream() {
  return mx::default_stream(mx::Device::cpu);
}

}  // namespace

// ---- small-batch float32 matmul -----------------------------------------------------------

bool small_gemm_available() {
#ifdef AFM_FAST_AVX2
  return avx2_path("auto");
#else
  return false;
#endif
}

void small_gemm_nt(const float* x, int m, const float* w, int n, int k, float* out, int ldo) {
  AFM_AVX2_OR_PORTABLE(gemm_nt_small)(x, m, w, n, k, out, ldo);
}

// ---- RMSNorm ---------------------------------------------------------------------------------

mx::array rms_norm(const mx::array& x, const std::optional<mx::array>& w, float eps) {
  check_f32(x, "x");
  if (x.ndim() < 1 || x.ndim() > 4) throw std::invalid_argument("afm rms_norm: x must be 1-4-D");
  std::vector<mx::array> inputs{x};
  if (w) {
    check_f32(*w, "weight");
    if (w->ndim() != 1 || w->shape(0) != x.shape(-1))
      throw std::invalid_argument("afm rms_norm: weight must be [D]");
    inputs.push_back(*w);
  }
  return mx::array(x.shape(), mx::float32,
                   std::make_shared<RMSNormCPU>(cpu_stream(), eps, bool(w)), std::move(inputs));
}

void RMSNormCPU::eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) {
  auto& x = inputs[0];
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  const float eps = eps_;
  enc.dispatch([x = weak(x), w = weak(has_w_ ? inputs[1] : x), has_w = has_w_, out = weak(out),
                avx2, eps]() mutable {
    std::vector<float> keep_x, keep_w;
    const Strided4 xv = view4(x, keep_x);
    const float* wp = has_w ? static_cast<const float*>(view4(w, keep_w).data) : nullptr;
    const int d = x.ndim() ? x.shape(-1) : 1;
    if (d == 0 || x.size() == 0) return;
    int64_t dims[4] = {1, 1, 1, 1};
    for (int i = 0; i < int(x.ndim()); ++i) dims[4 - x.ndim() + i] = x.shape(i);
    const int64_t rows = dims[0] * dims[1] * dims[2];
    float* op = out.data<float>();
    auto row = avx2 ? AFM_AVX2_OR_PORTABLE(rms_norm_row) : fast_portable::rms_norm_row;
    const int threads = threads_for(double(rows) * d);
    const int64_t per = threads == 1 ? rows : std::max<int64_t>(1, (rows + 4 * threads - 1) / (4 * threads));
    const int ntasks = int((rows + per - 1) / per);
    parallel_for(ntasks, threads, [&](int t) {
      for (int64_t r = t * per; r < std::min(rows, (t + 1) * per); ++r) {
        const int64_t i0 = r / (dims[1] * dims[2]), i1 = (r / dims[2]) % dims[1], i2 = r % dims[2];
        const float* xr =
            static_cast<const float*>(xv.data) + i0 * xv.s[0] + i1 * xv.s[1] + i2 * xv.s[2];
        row(xr, wp, op + r * d, d, eps);
      }
    });
  });
}

void RMSNormCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmRMSNormCPU runs on the CPU only");
}

bool RMSNormCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const RMSNormCPU&>(other);
  return eps_ == o.eps_ && has_w_ == o.has_w_;
}

// ---- RoPE ------------------------------------------------------------------------------------

mx::array rope(
    const mx::array& x,
    int dims,
    bool traditional,
    float base,
    float scale,
    const mx::array& offset,
    const std::optional<mx::array>& freqs) {
  check_f32(x, "x");
  if (x.ndim() < 2 || x.ndim() > 4) throw std::invalid_argument("afm rope: x must be 2-4-D");
  const int d = x.shape(-1);
  if (dims <= 0 || dims % 2 || dims > d)
    throw std::invalid_argument("afm rope: dims must be even and at most the last axis");
  if (offset.dtype() != mx::int32) throw std::invalid_argument("afm rope: offset must be int32");
  if (!(offset.size() == 1 || (x.ndim() >= 3 && offset.ndim() == 1 && offset.shape(0) == x.shape(0))))
    throw std::invalid_argument("afm rope: offset must be a scalar or one per batch entry");
  std::vector<mx::array> inputs{x, mx::reshape(offset, {-1}, cpu_stream())};
  if (freqs) {
    check_f32(*freqs, "freqs");
    if (freqs->ndim() != 1 || freqs->shape(0) != dims / 2)
      throw std::invalid_argument("afm rope: freqs must be [dims / 2]");
    inputs.push_back(*freqs);
  }
  return mx::array(
      x.shape(), mx::float32,
      std::make_shared<RopeCPU>(cpu_stream(), dims, traditional, base, scale, bool(freqs)),
      std::move(inputs));
}

void RopeCPU::eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([x = weak(inputs[0]), off = weak(inputs[1]),
                freqs = weak(has_freqs_ ? inputs[2] : inputs[0]), has_freqs = has_freqs_,
                out = weak(out), avx2, dims = dims_, traditional = traditional_,
                base = base_, scale = scale_]() mutable {
    std::vector<float> keep_x, keep_f;
    const Strided4 xv = view4(x, keep_x);
    const int nd = int(x.ndim());
    int64_t shape[4] = {1, 1, 1, 1};
    for (int i = 0; i < nd; ++i) shape[4 - nd + i] = x.shape(i);
    // [L, D] and [B, L, D] have no heads axis: their batch axis is the view's axis 0 or 1
    int64_t xs_b = xv.s[0], nb = shape[0], nh = shape[1];
    if (nd == 3) {
      xs_b = xv.s[1];
      nb = shape[1];
      nh = 1;
    }
    const int64_t L = shape[2], D = shape[3];
    if (x.size() == 0) return;
    const int half = dims / 2;
    std::vector<float> inv_freq(half);
    if (has_freqs) {
      const float* f = static_cast<const float*>(view4(freqs, keep_f).data);
      for (int i = 0; i < half; ++i) inv_freq[i] = 1.0f / f[i];
    } else {
      const float step = -std::log(base) / float(half);
      for (int i = 0; i < half; ++i) inv_freq[i] = std::exp(float(i) * step);
    }
    const int32_t* offs = off.data<int32_t>();
    const bool per_batch = off.size() > 1;
    float* op = out.data<float>();
    auto rows = avx2 ? AFM_AVX2_OR_PORTABLE(rope_rows) : fast_portable::rope_rows;
    constexpr int64_t kChunk = 64;  // positions per task (one cos/sin table each)
    const int64_t chunks = (L + kChunk - 1) / kChunk;
    const int threads = threads_for(double(nb) * nh * L * D * 4);
    const int64_t xs[2] = {xv.s[1], xv.s[2]};
    const int64_t ys[2] = {L * D, D};
    parallel_for(int(nb * chunks), threads, [&](int t) {
      const int64_t b = t / chunks, l0 = (t % chunks) * kChunk;
      const int lc = int(std::min(kChunk, L - l0));
      thread_local std::vector<float> cs;
      cs.resize(size_t(lc) * half * 2);
      const int32_t base_pos = offs[per_batch ? b : 0];
      for (int l = 0; l < lc; ++l) {
        const float pos = float(base_pos + l0 + l) * scale;
        for (int i = 0; i < half; ++i) {
          const float theta = pos * inv_freq[i];
          cs[(size_t(l) * half + i) * 2] = std::cos(theta);
          cs[(size_t(l) * half + i) * 2 + 1] = std::sin(theta);
        }
      }
      const float* xb = static_cast<const float*>(xv.data) + b * xs_b + l0 * xv.s[2];
      float* yb = op + (b * nh * L + l0) * D;
      rows(xb, xs, yb, ys, int(nh), int(D), dims, traditional, cs.data(), lc);
    });
  });
}

void RopeCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmRopeCPU runs on the CPU only");
}

bool RopeCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const RopeCPU&>(other);
  return dims_ == o.dims_ && traditional_ == o.traditional_ && base_ == o.base_ &&
      scale_ == o.scale_ && has_freqs_ == o.has_freqs_;
}

// ---- attention -------------------------------------------------------------------------------

namespace {

// The checks and inputs shared by sdpa and sdpa_tiled (a mask is broadcast to [B, Hq, Lq, Lk]).
std::vector<mx::array> sdpa_inputs(
    const mx::array& q,
    const mx::array& k,
    const mx::array& v,
    const std::optional<mx::array>& mask,
    bool causal) {
  check_f32(q, "q");
  check_f32(k, "k");
  check_f32(v, "v");
  if (q.ndim() != 4 || k.ndim() != 4 || v.ndim() != 4)
    throw std::invalid_argument("afm sdpa: q, k, v must be 4-D");
  const int B = q.shape(0), hq = q.shape(1), lq = q.shape(2), d = q.shape(3);
  const int hkv = k.shape(1), lk = k.shape(2);
  if (k.shape(0) != B || v.shape(0) != B || v.shape(1) != hkv || v.shape(2) != lk ||
      k.shape(3) != d || hkv == 0 || hq % hkv)
    throw std::invalid_argument("afm sdpa: shapes do not match");
  if (causal && lq > lk) throw std::invalid_argument("afm sdpa: causal needs Lq <= Lk");
  std::vector<mx::array> inputs{q, k, v};
  if (mask) {
    if (mask->dtype() != mx::bool_ && mask->dtype() != mx::float32)
      throw std::invalid_argument("afm sdpa: mask must be bool or float32");
    if (mask->ndim() > 4) throw std::invalid_argument("afm sdpa: mask has more than 4 axes");
    auto m = *mask;
    if (m.ndim() < 4) {
      auto shape = m.shape();
      shape.insert(shape.begin(), 4 - m.ndim(), 1);
      m = mx::reshape(m, shape, cpu_stream());
    }
    inputs.push_back(mx::broadcast_to(m, {B, hq, lq, lk}, cpu_stream()));
  }
  return inputs;
}

}  // namespace

mx::array sdpa(
    const mx::array& q,
    const mx::array& k,
    const mx::array& v,
    float scale,
    const std::optional<mx::array>& mask,
    bool causal) {
  auto inputs = sdpa_inputs(q, k, v, mask, causal);
  return mx::array({q.shape(0), q.shape(1), q.shape(2), v.shape(3)}, mx::float32,
                   std::make_shared<SdpaCPU>(cpu_stream(), scale, bool(mask), causal),
                   std::move(inputs));
}

mx::array sdpa_tiled(
    const mx::array& q,
    const mx::array& k,
    const mx::array& v,
    float scale,
    const std::optional<mx::array>& mask,
    bool causal) {
  if (!has_sgemm()) throw std::runtime_error("afm sdpa_tiled: no cblas_sgemm in this process");
  auto inputs = sdpa_inputs(q, k, v, mask, causal);
  return mx::array({q.shape(0), q.shape(1), q.shape(2), v.shape(3)}, mx::float32,
                   std::make_shared<SdpaTiledCPU>(cpu_stream(), scale, bool(mask), causal),
                   std::move(inputs));
}

namespace {

// The first kept key j0 when a boolean mask (or none: 0) keeps exactly keys [j0, lk) for the
// single query of heads h0 .. h0 + n - 1 of batch b; -1 when it keeps any other set.
int kept_suffix(const Strided4* mask, int b, int h0, int n, int lk) {
  if (mask == nullptr) return 0;
  const bool* m = static_cast<const bool*>(mask->data);
  int j0 = -1;
  for (int h = h0; h < h0 + n; ++h) {
    const bool* row = m + b * mask->s[0] + h * mask->s[1];
    int first = 0;
    while (first < lk && !row[first * mask->s[3]]) ++first;
    for (int j = first; j < lk; ++j)
      if (!row[j * mask->s[3]]) return -1;
    if (j0 >= 0 && first != j0) return -1;
    j0 = first;
  }
  return j0;
}

}  // namespace

namespace detail {

void attend_decode_groups(const std::vector<DecodeGroup>& groups, int n_rep, int64_t ks,
                          int64_t vs, int d, int dv, float scale, int threads,
                          AttendDecodeFn kernel, const std::function<void(int)>& other) {
  struct Task {
    int group, block;  // block -1: the whole group, normalised in place
  };
  std::vector<Task> tasks;
  std::vector<size_t> first(groups.size(), 0);  // a split group's first block in `part`
  size_t blocks = 0;
  for (int i = 0; i < int(groups.size()); ++i) {
    const int n = groups[i].n;
    if (n <= kDecodeBlock) {
      tasks.push_back({i, -1});
      continue;
    }
    first[i] = blocks;
    const int nb = (n + kDecodeBlock - 1) / kDecodeBlock;
    for (int blk = 0; blk < nb; ++blk) tasks.push_back({i, blk});
    blocks += nb;
  }
  // each block's unnormalised sums [n_rep, dv], then its rows' maxima and exp sums
  const size_t stride = size_t(n_rep) * (dv + 2);
  std::vector<float> part(blocks * stride);
  parallel_for(int(tasks.size()), threads, [&](int t) {
    const Task task = tasks[t];
    const DecodeGroup& g = groups[task.group];
    if (g.n <= 0) {
      other(task.group);
    } else if (task.block < 0) {
      kernel(g.q, n_rep, g.k, ks, g.v, vs, g.n, d, dv, scale, g.out, nullptr, nullptr);
    } else {
      const int j0 = task.block * kDecodeBlock, n = std::min(kDecodeBlock, g.n - j0);
      float* p = part.data() + (first[task.group] + task.block) * stride;
      float* m = p + size_t(n_rep) * dv;
      kernel(g.q, n_rep, g.k + j0 * ks, ks, g.v + j0 * vs, vs, n, d, dv, scale, p, m,
             m + n_rep);
    }
  });
  // the blocks of each split group, in order: weights exp(m_b - M) of the rows' maximum M
  std::vector<float> w;
  for (int i = 0; i < int(groups.size()); ++i) {
    const DecodeGroup& g = groups[i];
    if (g.n <= kDecodeBlock) continue;
    const int nb = (g.n + kDecodeBlock - 1) / kDecodeBlock;
    const float* p0 = part.data() + first[i] * stride;
    w.resize(nb);
    for (int r = 0; r < n_rep; ++r) {
      float mx = -std::numeric_limits<float>::infinity();
      for (int b = 0; b < nb; ++b) mx = std::max(mx, p0[b * stride + size_t(n_rep) * dv + r]);
      float l = 0.0f;
      for (int b = 0; b < nb; ++b) {
        const float* mb = p0 + b * stride + size_t(n_rep) * dv;
        w[b] = std::exp(mb[r] - mx);
        l += w[b] * mb[n_rep + r];
      }
      const float inv = 1.0f / l;
      float* o = g.out + size_t(r) * dv;
      for (int c = 0; c < dv; ++c) {
        float acc = 0.0f;
        for (int b = 0; b < nb; ++b) acc += w[b] * p0[b * stride + size_t(r) * dv + c];
        o[c] = acc * inv;
      }
    }
  }
}

}  // namespace detail

void SdpaCPU::eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([q = weak(inputs[0]), k = weak(inputs[1]), v = weak(inputs[2]),
                mask = weak(has_mask_ ? inputs[3] : inputs[0]), has_mask = has_mask_,
                out = weak(out), avx2,
                scale = scale_, causal = causal_]() mutable {
    std::vector<float> keep_q, keep_k, keep_v, keep_m;
    const Strided4 qv = view4(q, keep_q), kv = view4(k, keep_k), vv = view4(v, keep_v);
    Strided4 mv{};
    if (has_mask) mv = view4(mask, keep_m, false);  // read through its strides (broadcast)
    const int B = q.shape(0), hq = q.shape(1), lq = q.shape(2), d = q.shape(3);
    const int hkv = k.shape(1), lk = k.shape(2), dv = v.shape(3);
    if (out.size() == 0) return;
    float* op = out.data<float>();
    if (lk == 0) {
      std::fill(op, op + out.size(), 0.0f);
      return;
    }
    auto attend = avx2 ? AFM_AVX2_OR_PORTABLE(attend) : fast_portable::attend;
    const int n_rep = hq / hkv;
    const bool mask_bool = has_mask && mask.dtype() == mx::bool_;
    auto attend_one = avx2 ? AFM_AVX2_OR_PORTABLE(attend_decode) : fast_portable::attend_decode;
    const int threads = threads_for(double(B) * hq * lq * lk * (d + dv) * 2);
    // one query a head (decode) under no mask or a boolean one that keeps a suffix of the keys
    // [j0, lk) for every head of the group: the decode kernel, as the native decode layers run
    // it (so both routes give the same bits); anything else takes attend() (`n` 0)
    std::vector<detail::DecodeGroup> groups(size_t(B) * hkv);
    std::vector<float> qrows(size_t(B) * hq * d);
    for (int t = 0; t < B * hkv; ++t) {
      const int b = t / hkv, g = t % hkv;
      const int j0 = lq == 1 && (!has_mask || mask_bool)
          ? kept_suffix(has_mask ? &mv : nullptr, b, g * n_rep, n_rep, lk)
          : -1;
      float* out_g = op + (int64_t(b) * hq + int64_t(g) * n_rep) * dv;
      if (j0 < 0 || j0 >= lk || kv.s[3] != 1 || vv.s[3] != 1) {
        groups[t] = {nullptr, nullptr, nullptr, 0, out_g};
        continue;
      }
      float* qg = qrows.data() + size_t(t) * n_rep * d;
      for (int r = 0; r < n_rep; ++r) {
        const float* src = static_cast<const float*>(qv.data) + b * qv.s[0] +
            int64_t(g * n_rep + r) * qv.s[1];
        for (int c = 0; c < d; ++c) qg[size_t(r) * d + c] = src[c * qv.s[3]];
      }
      const float* kb = static_cast<const float*>(kv.data) + b * kv.s[0] + g * kv.s[1];
      const float* vb = static_cast<const float*>(vv.data) + b * vv.s[0] + g * vv.s[1];
      groups[t] = {qg, kb + j0 * kv.s[2], vb + j0 * vv.s[2], lk - j0, out_g};
    }
    detail::attend_decode_groups(groups, n_rep, kv.s[2], vv.s[2], d, dv, scale, threads,
                                 attend_one, [&](int t) {
      attend(qv, kv, vv, has_mask ? &mv : nullptr, mask_bool, causal, t / hkv, t % hkv, n_rep,
             lq, lk, d, dv, scale, op, hq);
    });
  });
}

void SdpaCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmSdpaCPU runs on the CPU only");
}

bool SdpaCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const SdpaCPU&>(other);
  return scale_ == o.scale_ && has_mask_ == o.has_mask_ && causal_ == o.causal_;
}

void SdpaTiledCPU::eval_cpu(const std::vector<mx::array>& inputs,
                            std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto"), avx512 = resolve_isa("auto") == Isa::Avx512;
  enc.dispatch([q = weak(inputs[0]), k = weak(inputs[1]), v = weak(inputs[2]),
                mask = weak(has_mask_ ? inputs[3] : inputs[0]), has_mask = has_mask_,
                out = weak(out), avx2, avx512, scale = scale_, causal = causal_]() mutable {
    std::vector<float> keep_q, keep_k, keep_v, keep_m;
    const Strided4 qv = view4(q, keep_q), kv = view4(k, keep_k), vv = view4(v, keep_v);
    Strided4 mv{};
    if (has_mask) mv = view4(mask, keep_m, false);
    const int B = q.shape(0), hq = q.shape(1), lq = q.shape(2), d = q.shape(3);
    const int hkv = k.shape(1), lk = k.shape(2), dv = v.shape(3);
    if (out.size() == 0) return;
    float* op = out.data<float>();
    if (lk == 0) {
      std::fill(op, op + out.size(), 0.0f);
      return;
    }
    const int n_rep = hq / hkv;
    TiledArgs args{&qv, &kv, &vv, has_mask ? &mv : nullptr,
                   has_mask && mask.dtype() == mx::bool_, causal, n_rep, lq, lk, d, dv, hq,
                   scale, op, blas_sgemm()};
    // the tiles take head sizes of 32-128 (d) and multiples of 16 (dv)
    if (d % 32 == 0 && d <= 128 && dv % 16 == 0) args.amx = amx_attention_if_on();
    auto tile = avx2 ? AFM_AVX2_OR_PORTABLE(attend_tiled) : fast_portable::attend_tiled;
    // about 256 score rows per block (all heads of a KV group share each K and V block)
    int bq = std::max(8, std::min(lq, 256 / n_rep));
#ifdef AFM_ATTN_PANELS
    if (!args.amx && avx2 && attention_panels()) {
      tile = avx512 ? attend_tiled_avx512 : attend_tiled_avx2;
      // whole panels: n_rep * bq a multiple of the panel's rows, at least two panels (more,
      // smaller tasks than the BLAS path's: its packing is once per task, not per call; on two
      // Zen 4 cores 4-10% faster than ~256 rows at 290-1024 queries with 48-row panels, and
      // the best of 1-8 panels with AVX2's 16-row ones)
      const int pr = avx512 ? attend_panel_rows_avx512() : attend_panel_rows_avx2();
      const int unit = pr / std::gcd(n_rep, pr);
      bq = std::min(lq, (2 * pr / n_rep + unit - 1) / unit * unit);
    }
#endif
    const int nqb = (lq + bq - 1) / bq;
    const int threads = threads_for(double(B) * hq * lq * lk * (d + dv) * 2);
    // causal: the last query blocks see the most keys; they are claimed first
    parallel_for(B * hkv * nqb, threads, [&](int t) {
      const int qb = causal ? nqb - 1 - t % nqb : t % nqb, bg = t / nqb;
      const int l0 = qb * bq;
      tile(args, bg / hkv, bg % hkv, l0, std::min(bq, lq - l0));
    });
  });
}

bool set_attention_panels(bool on) {
  g_attention_panels.store(on);
  return on;
}

bool attention_panels() {
  return g_attention_panels.load();
}

void SdpaTiledCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmSdpaTiledCPU runs on the CPU only");
}

bool SdpaTiledCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const SdpaTiledCPU&>(other);
  return scale_ == o.scale_ && has_mask_ == o.has_mask_ && causal_ == o.causal_;
}

// ---- SiLU gate ------------------------------------------------------------------------------

mx::array argmax_last(const mx::array& x) {
  check_f32(x, "x");
  if (x.ndim() < 1 || x.shape(-1) == 0)
    throw std::invalid_argument("afm argmax_last: x must be [..., V] with V > 0");
  mx::Shape shape(x.shape().begin(), x.shape().end() - 1);
  return mx::array(shape, mx::uint32, std::make_shared<ArgmaxLastCPU>(cpu_stream()), {x});
}

void ArgmaxLastCPU::eval_cpu(const std::vector<mx::array>& inputs,
                             std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([x = weak(inputs[0]), out = weak(out), avx2]() mutable {
    const int64_t n = x.shape(-1), rows = n ? int64_t(x.size()) / n : 0;
    if (rows == 0) return;
    auto kernel = avx2 ? AFM_AVX2_OR_PORTABLE(argmax_row) : fast_portable::argmax_row;
    // rows read in place where evenly spaced (a view's strides are known only now), else copied
    int64_t ld = n;
    std::vector<float> keep;
    const float* xp = x.data<float>();
    if (!evenly_spaced_rows(x, ld)) {
      keep.resize(x.size());
      copy_row_major(x, keep.data());
      xp = keep.data();
      ld = n;
    }
    uint32_t* op = out.data<uint32_t>();
    parallel_for(int(rows), threads_for(double(rows) * n), [&](int r) {
      op[r] = uint32_t(kernel(xp + r * ld, n));
    });
  });
}

void ArgmaxLastCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmArgmaxLastCPU runs on the CPU only");
}

mx::array silu_mul(const mx::array& gate, const mx::array& x) {
  check_f32(gate, "gate");
  check_f32(x, "x");
  if (gate.shape() != x.shape()) throw std::invalid_argument("afm silu_mul: shapes differ");
  return mx::array(x.shape(), mx::float32, std::make_shared<SiluMulCPU>(cpu_stream()), {gate, x});
}

void SiluMulCPU::eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([g = weak(inputs[0]), x = weak(inputs[1]), out = weak(out), avx2]() mutable {
    const int64_t total = int64_t(out.size());
    if (total == 0) return;
    auto kernel = avx2 ? AFM_AVX2_OR_PORTABLE(silu_mul) : fast_portable::silu_mul;
    float* op = out.data<float>();
    const int threads = threads_for(double(total) * 8);
    if (g.flags().row_contiguous && x.flags().row_contiguous) {  // one long row, in chunks
      const int64_t per =
          threads == 1 ? total : ((total + 2 * threads - 1) / (2 * threads) + 7) / 8 * 8;
      parallel_for(int((total + per - 1) / per), threads, [&](int t) {
        const int64_t lo = t * per, len = std::min(total, lo + per) - lo;
        kernel(g.data<float>() + lo, x.data<float>() + lo, op + lo, len);
      });
      return;
    }
    // column slices of a wider product (fused gate/up projections) are rows at a fixed
    // stride: read in place; anything else is copied row-major first
    const int64_t n = x.shape(-1), rows = total / n;
    std::vector<float> keep_g, keep_x;
    int64_t ldg = 0, ldx = 0;
    auto rows_of = [&](const mx::array& a, std::vector<float>& keep, int64_t& ld) {
      if (evenly_spaced_rows(a, ld)) return a.data<float>();
      keep.resize(size_t(total));
      copy_row_major(a, keep.data());
      ld = n;
      return static_cast<const float*>(keep.data());
    };
    const float* gp = rows_of(g, keep_g, ldg);
    const float* xp = rows_of(x, keep_x, ldx);
    const int64_t per = std::max<int64_t>(1, (rows + 2 * threads - 1) / (2 * threads));
    parallel_for(int((rows + per - 1) / per), threads, [&](int t) {
      for (int64_t r = t * per; r < std::min(rows, (t + 1) * per); ++r)
        kernel(gp + r * ldg, xp + r * ldx, op + r * n, n);
    });
  });
}

void SiluMulCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmSiluMulCPU runs on the CPU only");
}

}  // namespace afm

// ---- decode-step attention (fast_ops.h: kv_append, decode_attention) -------------------------

namespace afm {

namespace {

void check_decode_src(const mx::array& src, int cols) {
  check_f32(src, "src");
  if (src.ndim() != 3 || src.shape(1) != 1 || src.shape(2) < cols)
    throw std::invalid_argument("afm decode ops: src must be [B, 1, W] with enough columns");
}

void check_rows(const mx::array& a, int B, const char* what) {
  if (a.dtype() != mx::int32 || a.ndim() != 1 || a.shape(0) != B)
    throw std::invalid_argument(std::string("afm decode ops: ") + what + " must be int32 [B]");
}

}  // namespace

namespace detail {

// RoPE's inverse frequencies and one position's cos/sin table, computed as RopeCPU does.
void rope_inv_freq(float base, int half, std::vector<float>& inv_freq) {
  inv_freq.resize(half);
  const float step = -std::log(base) / float(half);
  for (int i = 0; i < half; ++i) inv_freq[i] = std::exp(float(i) * step);
}

void rope_table(int32_t base_pos, float scale, const std::vector<float>& inv_freq,
                std::vector<float>& cs) {
  const int half = int(inv_freq.size());
  cs.resize(size_t(half) * 2);
  const float pos = float(base_pos + 0 + 0) * scale;
  for (int i = 0; i < half; ++i) {
    const float theta = pos * inv_freq[i];
    cs[size_t(i) * 2] = std::cos(theta);
    cs[size_t(i) * 2 + 1] = std::sin(theta);
  }
}

std::vector<float> rope_tables(const int32_t* pos, int B, int dims, float base, float scale) {
  std::vector<float> inv_freq, cs, tables(size_t(B) * dims);
  rope_inv_freq(base, dims / 2, inv_freq);
  for (int b = 0; b < B; ++b) {
    rope_table(pos[b], scale, inv_freq, cs);
    std::copy(cs.begin(), cs.end(), tables.begin() + size_t(b) * dims);
  }
  return tables;
}

void kv_append_rows(const float* sp, int64_t ld, int col, float* op, int B, int H, int cap,
                    int D, int idx, const float* tables, int dims, bool traditional, bool avx2) {
  auto rows = avx2 ? AFM_AVX2_OR_PORTABLE(rope_rows) : fast_portable::rope_rows;
  const int64_t xs[2] = {D, 0}, ys[2] = {int64_t(cap) * D, 0};
  for (int b = 0; b < B; ++b) {
    const float* x = sp + b * ld + col;
    float* y = op + (int64_t(b) * H * cap + idx) * D;
    if (tables) {
      rows(x, xs, y, ys, H, D, dims, traditional, tables + size_t(b) * dims, 1);
    } else {
      for (int h = 0; h < H; ++h) std::copy(x + h * D, x + (h + 1) * D, y + h * ys[0]);
    }
  }
}

void decode_attention_rows(const float* sp, int64_t ld, const Strided4& kv, const Strided4& vv,
                           int B, int hkv, int d, int dv, const float* tables,
                           const int32_t* start, int hq, int lk, float scale, int dims,
                           bool traditional, bool avx2, float* op) {
  // the rotated queries [B, hq, 1, d], as RopeCPU writes them
  std::vector<float> q(size_t(B) * hq * d);
  auto rows = avx2 ? AFM_AVX2_OR_PORTABLE(rope_rows) : fast_portable::rope_rows;
  const int64_t qs[2] = {d, 0};
  for (int b = 0; b < B; ++b)
    rows(sp + b * ld, qs, q.data() + size_t(b) * hq * d, qs, hq, d, dims, traditional,
         tables + size_t(b) * dims, 1);
  // the BatchKVCache mask of one query: keys j >= start[b] (and j < lk)
  std::vector<uint8_t> keep(size_t(B) * lk);
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < lk; ++j) keep[size_t(b) * lk + j] = j >= start[b];
  Strided4 qv{q.data(), {int64_t(hq) * d, d, d, 1}};
  Strided4 mv{keep.data(), {lk, 0, 0, 1}};
  auto attend = avx2 ? AFM_AVX2_OR_PORTABLE(attend) : fast_portable::attend;
  auto attend_one = avx2 ? AFM_AVX2_OR_PORTABLE(attend_decode) : fast_portable::attend_decode;
  const int n_rep = hq / hkv;
  const int threads = threads_for(double(B) * hq * 1 * lk * (d + dv) * 2);
  // the masked keys (before start[b]) would weigh exactly 0: they are skipped; a row with
  // every key masked takes attend() (`n` 0), MLX's average of all values
  std::vector<DecodeGroup> groups(size_t(B) * hkv);
  for (int t = 0; t < B * hkv; ++t) {
    const int b = t / hkv, g = t % hkv, j0 = std::max(0, int(start[b]));
    const int64_t row = (int64_t(b) * hq + int64_t(g) * n_rep);
    if (j0 >= lk) {
      groups[t] = {nullptr, nullptr, nullptr, 0, op + row * dv};
      continue;
    }
    const float* kb = static_cast<const float*>(kv.data) + b * kv.s[0] + g * kv.s[1];
    const float* vb = static_cast<const float*>(vv.data) + b * vv.s[0] + g * vv.s[1];
    groups[t] = {q.data() + row * d, kb + j0 * kv.s[2], vb + j0 * vv.s[2], lk - j0,
                 op + row * dv};
  }
  attend_decode_groups(groups, n_rep, kv.s[2], vv.s[2], d, dv, scale, threads, attend_one,
                       [&](int t) {
    attend(qv, kv, vv, &mv, true, false, t / hkv, t % hkv, n_rep, 1, lk, d, dv, scale, op, hq);
  });
}

}  // namespace detail

mx::array kv_append(
    const mx::array& buf,
    const mx::array& src,
    int col,
    int idx,
    const std::optional<mx::array>& pos,
    int dims,
    bool traditional,
    float base,
    float scale) {
  check_f32(buf, "buf");
  if (buf.ndim() != 4) throw std::invalid_argument("afm kv_append: buf must be [B, H, cap, D]");
  const int B = buf.shape(0), H = buf.shape(1), cap = buf.shape(2), D = buf.shape(3);
  check_decode_src(src, col + H * D);
  if (src.shape(0) != B) throw std::invalid_argument("afm kv_append: batch sizes differ");
  if (col < 0 || idx < 0 || idx >= cap) throw std::invalid_argument("afm kv_append: bad index");
  std::vector<mx::array> inputs{buf, src};
  if (pos) {
    check_rows(*pos, B, "pos");
    if (dims <= 0 || dims % 2 || dims > D)
      throw std::invalid_argument("afm kv_append: dims must be even and at most D");
    inputs.push_back(*pos);
  }
  return mx::array(buf.shape(), mx::float32,
                   std::make_shared<KvAppendCPU>(cpu_stream(), col, idx, bool(pos), dims,
                                                 traditional, base, scale),
                   std::move(inputs));
}

void KvAppendCPU::eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) {
  auto& buf = inputs[0];
  auto& out = outputs[0];
  auto& enc = mx::cpu::get_command_encoder(stream());
  for (auto& a : inputs) enc.set_input_array(a);
  // the cache's old buffer is no longer referenced (the cache holds this output): write in it
  const bool donated = buf.is_donatable() && buf.flags().row_contiguous;
  if (donated)
    out.copy_shared_buffer(buf);
  else
    out.set_data(mx::allocator::malloc(out.nbytes()));
  enc.set_output_array(out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([buf = weak(buf), src = weak(inputs[1]), pos = weak(rope_ ? inputs[2] : inputs[1]),
                out = weak(out), donated, avx2, col = col_, idx = idx_, rope = rope_,
                dims = dims_, traditional = traditional_, base = base_,
                scale = scale_]() mutable {
    const int B = buf.shape(0), H = buf.shape(1), cap = buf.shape(2), D = buf.shape(3);
    float* op = out.data<float>();
    if (!donated) copy_row_major(buf, op);
    std::vector<float> keep_src;
    const float* sp = src.data<float>();
    int64_t ld = src.shape(2);
    if (!src.flags().row_contiguous) {
      keep_src.resize(src.size());
      copy_row_major(src, keep_src.data());
      sp = keep_src.data();
    }
    const std::vector<float> tables =
        rope ? detail::rope_tables(pos.data<int32_t>(), B, dims, base, scale)
             : std::vector<float>();
    detail::kv_append_rows(sp, ld, col, op, B, H, cap, D, idx, rope ? tables.data() : nullptr,
                           dims, traditional, avx2);
  });
}

void KvAppendCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmKvAppendCPU runs on the CPU only");
}

bool KvAppendCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const KvAppendCPU&>(other);
  return col_ == o.col_ && idx_ == o.idx_ && rope_ == o.rope_ && dims_ == o.dims_ &&
      traditional_ == o.traditional_ && base_ == o.base_ && scale_ == o.scale_;
}

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
    float rope_scale) {
  check_f32(kbuf, "keys");
  check_f32(vbuf, "values");
  if (kbuf.ndim() != 4 || vbuf.ndim() != 4 || kbuf.shape(0) != vbuf.shape(0) ||
      kbuf.shape(1) != vbuf.shape(1) || kbuf.shape(2) != vbuf.shape(2))
    throw std::invalid_argument("afm decode_attention: keys and values must be [B, Hkv, cap, D]");
  const int B = kbuf.shape(0), hkv = kbuf.shape(1), cap = kbuf.shape(2), D = kbuf.shape(3);
  if (n_heads <= 0 || n_heads % hkv || n_keys <= 0 || n_keys > cap)
    throw std::invalid_argument("afm decode_attention: bad heads or key count");
  check_decode_src(src, n_heads * D);
  if (src.shape(0) != B) throw std::invalid_argument("afm decode_attention: batch sizes differ");
  check_rows(pos, B, "pos");
  check_rows(start, B, "start");
  if (dims <= 0 || dims % 2 || dims > D)
    throw std::invalid_argument("afm decode_attention: dims must be even and at most D");
  return mx::array({B, 1, n_heads * vbuf.shape(3)}, mx::float32,
                   std::make_shared<DecodeAttentionCPU>(cpu_stream(), n_heads, n_keys,
                                                        attn_scale, dims, traditional, base,
                                                        rope_scale),
                   {src, kbuf, vbuf, pos, start});
}

void DecodeAttentionCPU::eval_cpu(const std::vector<mx::array>& inputs,
                                  std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([src = weak(inputs[0]), k = weak(inputs[1]), v = weak(inputs[2]),
                pos = weak(inputs[3]), start = weak(inputs[4]), out = weak(out), avx2,
                hq = n_heads_, lk = n_keys_, scale = attn_scale_, dims = dims_,
                traditional = traditional_, base = base_,
                rope_scale = rope_scale_]() mutable {
    const int B = k.shape(0), hkv = k.shape(1), d = k.shape(3), dv = v.shape(3);
    std::vector<float> keep_src, keep_k, keep_v;
    const float* sp = src.data<float>();
    const int64_t ld = src.shape(2);
    if (!src.flags().row_contiguous) {
      keep_src.resize(src.size());
      copy_row_major(src, keep_src.data());
      sp = keep_src.data();
    }
    const Strided4 kv = view4(k, keep_k), vv = view4(v, keep_v);
    const std::vector<float> tables =
        detail::rope_tables(pos.data<int32_t>(), B, dims, base, rope_scale);
    detail::decode_attention_rows(sp, ld, kv, vv, B, hkv, d, dv, tables.data(),
                                  start.data<int32_t>(), hq, lk, scale, dims, traditional,
                                  avx2, out.data<float>());
  });
}

void DecodeAttentionCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmDecodeAttentionCPU runs on the CPU only");
}

bool DecodeAttentionCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const DecodeAttentionCPU&>(other);
  return n_heads_ == o.n_heads_ && n_keys_ == o.n_keys_ && attn_scale_ == o.attn_scale_ &&
      dims_ == o.dims_ && traditional_ == o.traditional_ && base_ == o.base_ &&
      rope_scale_ == o.rope_scale_;
}

// ---- SiLU gate of a fused gate/up product ---------------------------------------------------

mx::array silu_mul_halves(const mx::array& y) {
  check_f32(y, "y");
  if (y.ndim() < 1 || y.shape(-1) % 2)
    throw std::invalid_argument("afm silu_mul_halves: the last axis must be even");
  auto shape = y.shape();
  shape.back() /= 2;
  return mx::array(shape, mx::float32, std::make_shared<SiluMulHalvesCPU>(cpu_stream()), {y});
}

void SiluMulHalvesCPU::eval_cpu(const std::vector<mx::array>& inputs,
                                std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const bool avx2 = avx2_path("auto");
  enc.dispatch([y = weak(inputs[0]), out = weak(out), avx2]() mutable {
    const int64_t total = int64_t(out.size());
    if (total == 0) return;
    auto kernel = avx2 ? AFM_AVX2_OR_PORTABLE(silu_mul) : fast_portable::silu_mul;
    const int64_t n = out.shape(-1), rows = total / n;
    std::vector<float> keep;
    int64_t ld = 0;
    const float* yp = y.data<float>();
    if (!evenly_spaced_rows(y, ld)) {
      keep.resize(y.size());
      copy_row_major(y, keep.data());
      yp = keep.data();
      ld = 2 * n;
    }
    float* op = out.data<float>();
    // as SiluMulCPU runs two column slices of the product: one kernel call per row
    const int threads = threads_for(double(total) * 8);
    const int64_t per = std::max<int64_t>(1, (rows + 2 * threads - 1) / (2 * threads));
    parallel_for(int((rows + per - 1) / per), threads, [&](int t) {
      for (int64_t r = t * per; r < std::min(rows, (t + 1) * per); ++r)
        kernel(yp + r * ld, yp + r * ld + n, op + r * n, n);
    });
  });
}

void SiluMulHalvesCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmSiluMulHalvesCPU runs on the CPU only");
}

}  // namespace afm
