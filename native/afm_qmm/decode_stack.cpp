// decode_stack (decode_stack.h): a decode step's transformer layers as one CPU primitive.
#include "decode_stack.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>

#include "fast_ops.h"
#include "mlx/allocator.h"
#include "mlx/backend/cpu/encoder.h"
#include "qmm_ops.h"

namespace afm {

namespace {

// Where each layer's weights sit in the primitive's weight list.
struct LayerSlots {
  int in_norm, qkv, qkv_bias, o, o_bias, post_norm, gate_up, gate_up_bias, down, down_bias, count;
};

LayerSlots slots(const DecodeStackShape& s) {
  LayerSlots l{};
  int at = 0;
  auto take = [&](int n) {
    const int here = at;
    at += n;
    return here;
  };
  l.in_norm = take(1);
  l.qkv = take(3);
  l.qkv_bias = s.qkv_bias ? take(1) : -1;
  l.o = take(3);
  l.o_bias = s.o_bias ? take(1) : -1;
  l.post_norm = take(1);
  l.gate_up = take(3);
  l.gate_up_bias = s.gate_up_bias ? take(1) : -1;
  l.down = take(3);
  l.down_bias = s.down_bias ? take(1) : -1;
  l.count = at;
  return l;
}

constexpr int kFirstBuffer = 3;  // inputs: h, pos, start, then keys and values of each layer

std::atomic<uint64_t> g_copies{0};  // cache buffers copied because another array shared them

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("afm decode_stack: " + what);
}

// Output columns of a quantized product (w [N, K * bits / 32]) and its input size.
void product_dims(const mx::array& w, int bits, int& n, int& k) {
  n = w.shape(0);
  k = w.shape(1) * 32 / bits;
}

}  // namespace

std::shared_ptr<const DecodeStackPlan> decode_stack_plan(std::vector<mx::array> weights,
                                                         DecodeStackShape shape) {
  const LayerSlots sl = slots(shape);
  const int L = shape.layers;
  check(L > 0 && int(weights.size()) == L * sl.count, "wrong number of layer weights");
  check(int(shape.group_sizes.size()) == 4 * L && int(shape.bits.size()) == 4 * L,
        "group_sizes and bits need 4 entries a layer");
  const int hq = shape.n_heads, hkv = shape.n_kv_heads, hd = shape.head_dim;
  check(hq > 0 && hkv > 0 && hq % hkv == 0 && hd > 0, "bad head counts");
  check(shape.rope_dims > 0 && shape.rope_dims % 2 == 0 && shape.rope_dims <= hd,
        "rope dims must be even and at most the head size");
  for (const auto& a : weights)  // read as row-major buffers: evaluated parameters, as loaded
    check(a.is_available() && a.flags().row_contiguous,
          "weights, norms and biases must be evaluated and row-contiguous");
  const int D = weights[sl.in_norm].ndim() == 1 ? weights[sl.in_norm].shape(0) : 0;
  for (int l = 0; l < L; ++l) {
    const mx::array* a = weights.data() + size_t(l) * sl.count;
    const int* gs = shape.group_sizes.data() + 4 * l;
    const int* bits = shape.bits.data() + 4 * l;
    const int prod[4] = {sl.qkv, sl.o, sl.gate_up, sl.down};
    int n[4], k[4];
    for (int p = 0; p < 4; ++p) {
      const mx::array& w = a[prod[p]];
      check(qmm_format_ok(bits[p], gs[p]),
            "bits and group size must be 4 or 8 with 32, 64 or 128, 5 with 32 or 6 with 16");
      check(w.dtype() == mx::uint32 && w.ndim() == 2, "weights must be uint32 [N, K]");
      product_dims(w, bits[p], n[p], k[p]);
      const mx::Dtype st = a[prod[p] + 1].dtype();
      for (int j = 1; j < 3; ++j)
        check((st == mx::float32 || st == mx::float16) && a[prod[p] + j].dtype() == st &&
                  a[prod[p] + j].shape() == mx::Shape({n[p], k[p] / gs[p]}),
              "scales and biases must be both float32 or both float16 [N, K / group_size]");
    }
    const int wqkv = (hq + 2 * hkv) * hd;
    check(k[0] == D && n[0] >= wqkv, "the qkv product must map D to (Hq + 2 Hkv) * head_dim");
    check(k[1] == hq * hd && n[1] == D, "o_proj must map Hq * head_dim to D");
    check(k[2] == D && n[2] % 2 == 0, "the gate/up product must map D to 2F");
    check(k[3] == n[2] / 2 && n[3] == D, "down_proj must map F to D");
    const int biases[4] = {sl.qkv_bias, sl.o_bias, sl.gate_up_bias, sl.down_bias};
    for (int p = 0; p < 4; ++p)
      if (biases[p] >= 0)
        check(a[biases[p]].dtype() == mx::float32 && a[biases[p]].size() == size_t(n[p]),
              "a bias must be float32 [N]");
    for (int nw : {sl.in_norm, sl.post_norm})
      check(a[nw].dtype() == mx::float32 && a[nw].ndim() == 1 && a[nw].shape(0) == D,
            "norm weights must be float32 [D]");
  }
  return std::make_shared<const DecodeStackPlan>(
      DecodeStackPlan{std::move(shape), std::move(weights), D});
}

std::vector<mx::array> decode_stack(const std::shared_ptr<const DecodeStackPlan>& plan,
                                    const mx::array& h,
                                    const mx::array& pos,
                                    const mx::array& start,
                                    const std::vector<mx::array>& buffers,
                                    int idx,
                                    const std::vector<char>& in_place) {
  const DecodeStackShape& shape = plan->shape;
  const int L = shape.layers;
  check(int(buffers.size()) == 2 * L, "keys and values of every layer are needed");
  check(h.dtype() == mx::float32 && h.ndim() == 3 && h.shape(1) == 1, "h must be [B, 1, D] f32");
  const int B = h.shape(0);
  check(h.shape(2) == plan->hidden, "h must be as wide as the layers' hidden size D");
  for (const auto* a : {&pos, &start})
    check(a->dtype() == mx::int32 && a->ndim() == 1 && a->shape(0) == B,
          "pos and start must be int32 [B]");
  for (int l = 0; l < L; ++l) {
    const mx::array& kb = buffers[2 * l];
    const mx::array& vb = buffers[2 * l + 1];
    check(kb.dtype() == mx::float32 && vb.dtype() == mx::float32 && kb.ndim() == 4 &&
              kb.shape() == vb.shape() && kb.shape(0) == B && kb.shape(1) == shape.n_kv_heads &&
              kb.shape(3) == shape.head_dim,
          "keys and values must be float32 [B, Hkv, cap, head_dim]");
    check(idx >= 0 && idx < kb.shape(2), "the cache row is past the buffer");
  }
  // The op writes row idx of each buffer in place. A buffer may be written when nothing else
  // shares its memory (a slice kept by the prefix or prompt cache, say), or when the caller
  // vouches for it (in_place: the op's own buffer of the step before, the cache not trimmed
  // since; while that step still runs MLX holds the buffer too, so its count says nothing).
  // Any other buffer is copied first. Only row idx is written: past every row that a reader of
  // the cache as it was before this step reads.
  std::vector<mx::array> inputs{h, pos, start};
  auto s = mx::default_stream(mx::Device::cpu);
  for (int i = 0; i < 2 * L; ++i) {
    const mx::array& b = buffers[i];
    const bool vouched = i / 2 < int(in_place.size()) && in_place[i / 2];
    const bool alone = b.is_available() && b.flags().row_contiguous &&
        b.data_shared_ptr()->is_owned() && b.data_shared_ptr().use_count() == 1;
    if (vouched || alone) {
      inputs.push_back(b);
    } else {
      // a fresh buffer with the same values (mx::copy would share b's: MLX arrays are
      // immutable, so its Copy only copies what it must); x * 1 is exact for every float
      inputs.push_back(mx::multiply(b, mx::array(1.0f), s));
      g_copies.fetch_add(1, std::memory_order_relaxed);
    }
  }
  std::vector<mx::array> out{mx::array(
      h.shape(), mx::float32, std::make_shared<DecodeStackCPU>(s, plan, idx), inputs)};
  out.insert(out.end(), inputs.begin() + kFirstBuffer, inputs.end());
  return out;
}

void DecodeStackCPU::eval_cpu(const std::vector<mx::array>& inputs,
                              std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  std::vector<mx::array> in;
  for (const auto& a : inputs) in.push_back(weak(a));
  const bool avx2 = small_gemm_available();
  // the plan (shared with the Python side) holds the weights while the step runs
  enc.dispatch([in = std::move(in), plan = plan_, idx = idx_, out = weak(out),
                sl = slots(plan_->shape), avx2]() mutable {
    const DecodeStackShape& s = plan->shape;
    const std::vector<mx::array>& w = plan->weights;
    // the products and attention run back to back: helpers poll between them
    HotPool hot(s.poll_us);
    const mx::array& h = in[0];
    const int B = h.shape(0), D = h.shape(2);
    const int hq = s.n_heads, hkv = s.n_kv_heads, hd = s.head_dim;
    const int32_t* pos = in[1].data<int32_t>();
    const int32_t* start = in[2].data<int32_t>();
    const int threads = s.threads > 0 ? s.threads : num_threads();
    auto norm_row = avx2 ? AFM_AVX2_OR_PORTABLE(rms_norm_row) : fast_portable::rms_norm_row;
    auto silu = avx2 ? AFM_AVX2_OR_PORTABLE(silu_mul) : fast_portable::silu_mul;
    // scratch, sized for the widest layer
    int wqkv = 0, f2 = 0, gmax = 1;
    for (int l = 0; l < s.layers; ++l) {
      const mx::array* a = w.data() + l * sl.count;
      wqkv = std::max(wqkv, int(a[sl.qkv].shape(0)));
      f2 = std::max(f2, int(a[sl.gate_up].shape(0)));
      gmax = std::max({gmax, D / s.group_sizes[4 * l], D / s.group_sizes[4 * l + 2],
                       hq * hd / s.group_sizes[4 * l + 1],
                       (int(a[sl.gate_up].shape(0)) / 2) / s.group_sizes[4 * l + 3]});
    }
    std::vector<float> x(size_t(B) * D), xn(size_t(B) * D), qkv(size_t(B) * wqkv),
        att(size_t(B) * hq * hd), r(size_t(B) * D), gu(size_t(B) * f2), act(size_t(B) * f2 / 2),
        xsum(size_t(B) * gmax);
    copy_row_major(h, x.data());
    // every layer rotates by the same positions: one set of RoPE tables for the step
    const std::vector<float> tables =
        detail::rope_tables(pos, B, s.rope_dims, s.rope_base, s.rope_scale);
    auto product = [&](const mx::array* a, int slot, int bias, int p, const float* xin,
                       float* y) {
      const int gs = s.group_sizes[p], bits = s.bits[p];
      const mx::array& wt = a[slot];
      const int N = wt.shape(0), K = wt.shape(1) * 32 / bits;
      qmm_auto(xin, B, wt.data<uint32_t>(), a[slot + 1].data<void>(), a[slot + 2].data<void>(),
               a[slot + 1].dtype() == mx::float16, N, K, gs, bits, xsum.data(), y, threads);
      if (bias >= 0) {  // as `y + bias` in MLX: one float add per element
        const float* bp = a[bias].data<float>();
        for (int b = 0; b < B; ++b)
          for (int j = 0; j < N; ++j) y[size_t(b) * N + j] += bp[j];
      }
      return N;
    };
    auto norm = [&](const mx::array& nw) {
      for (int b = 0; b < B; ++b)
        norm_row(x.data() + size_t(b) * D, nw.data<float>(), xn.data() + size_t(b) * D, D, s.eps);
    };
    for (int l = 0; l < s.layers; ++l) {
      const mx::array* a = w.data() + l * sl.count;
      // this layer's cache buffers, written in place (see decode_stack)
      float* kp = const_cast<float*>(in[kFirstBuffer + 2 * l].data<float>());
      float* vp = const_cast<float*>(in[kFirstBuffer + 2 * l + 1].data<float>());
      const int cap = in[kFirstBuffer + 2 * l].shape(2);
      // attention
      norm(a[sl.in_norm]);
      const int W = product(a, sl.qkv, sl.qkv_bias, 4 * l, xn.data(), qkv.data());
      detail::kv_append_rows(qkv.data(), W, hq * hd, kp, B, hkv, cap, hd, idx, tables.data(),
                             s.rope_dims, s.rope_traditional, avx2);
      detail::kv_append_rows(qkv.data(), W, (hq + hkv) * hd, vp, B, hkv, cap, hd, idx,
                             nullptr, s.rope_dims, s.rope_traditional, avx2);
      const int64_t bs = int64_t(hkv) * cap * hd;
      const Strided4 kv{kp, {bs, int64_t(cap) * hd, hd, 1}};
      const Strided4 vv{vp, {bs, int64_t(cap) * hd, hd, 1}};
      detail::decode_attention_rows(qkv.data(), W, kv, vv, B, hkv, hd, hd, tables.data(), start,
                                    hq, idx + 1, s.attn_scale, s.rope_dims,
                                    s.rope_traditional, avx2, att.data());
      product(a, sl.o, sl.o_bias, 4 * l + 1, att.data(), r.data());
      for (size_t i = 0; i < x.size(); ++i) x[i] = x[i] + r[i];
      // MLP
      norm(a[sl.post_norm]);
      const int F2 = product(a, sl.gate_up, sl.gate_up_bias, 4 * l + 2, xn.data(), gu.data());
      const int F = F2 / 2;
      for (int b = 0; b < B; ++b)
        silu(gu.data() + size_t(b) * F2, gu.data() + size_t(b) * F2 + F,
             act.data() + size_t(b) * F, F);
      product(a, sl.down, sl.down_bias, 4 * l + 3, act.data(), r.data());
      for (size_t i = 0; i < x.size(); ++i) x[i] = x[i] + r[i];
    }
    std::copy(x.begin(), x.end(), out.data<float>());
  });
}

uint64_t decode_stack_copies() {
  return g_copies.load();
}

void DecodeStackCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmDecodeStackCPU runs on the CPU only");
}

}  // namespace afm
