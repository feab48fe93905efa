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

#ifdef AFM_FAST_AVX2
#define AFM_AVX2_OR_PORTABLE(f) fast_avx2::f
#else
#define AFM_AVX2_OR_PORTABLE(f) fast_portable::f
#endif

namespace afm {

namespace {

// Where each layer's arrays sit in the primitive's inputs (after h, pos, start).
struct LayerSlots {
  int in_norm, qkv, qkv_bias, o, o_bias, post_norm, gate_up, gate_up_bias, down, down_bias, keys,
      values, count;
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
  l.keys = take(1);
  l.values = take(1);
  l.count = at;
  return l;
}

constexpr int kFirstLayer = 3;  // inputs: h, pos, start, then the layers

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

std::vector<mx::array> decode_stack(
    const mx::array& h,
    const mx::array& pos,
    const mx::array& start,
    const std::vector<mx::array>& layer_arrays,
    const DecodeStackShape& shape) {
  const LayerSlots sl = slots(shape);
  const int L = shape.layers;
  check(L > 0 && int(layer_arrays.size()) == L * sl.count, "wrong number of layer arrays");
  check(int(shape.group_sizes.size()) == 4 * L && int(shape.bits.size()) == 4 * L,
        "group_sizes and bits need 4 entries a layer");
  check(h.dtype() == mx::float32 && h.ndim() == 3 && h.shape(1) == 1, "h must be [B, 1, D] f32");
  const int B = h.shape(0), D = h.shape(2);
  const int hq = shape.n_heads, hkv = shape.n_kv_heads, hd = shape.head_dim;
  check(hq > 0 && hkv > 0 && hq % hkv == 0 && hd > 0, "bad head counts");
  check(shape.rope_dims > 0 && shape.rope_dims % 2 == 0 && shape.rope_dims <= hd,
        "rope dims must be even and at most the head size");
  for (const auto* a : {&pos, &start})
    check(a->dtype() == mx::int32 && a->ndim() == 1 && a->shape(0) == B,
          "pos and start must be int32 [B]");
  std::vector<mx::Shape> shapes{{B, 1, D}};
  std::vector<mx::Dtype> dtypes{mx::float32};
  for (int l = 0; l < L; ++l) {
    const mx::array* a = layer_arrays.data() + size_t(l) * sl.count;
    const int* gs = shape.group_sizes.data() + 4 * l;
    const int* bits = shape.bits.data() + 4 * l;
    const int prod[4] = {sl.qkv, sl.o, sl.gate_up, sl.down};
    int n[4], k[4];
    for (int p = 0; p < 4; ++p) {
      const mx::array& w = a[prod[p]];
      check(bits[p] == 4 || bits[p] == 8, "bits must be 4 or 8");
      check(gs[p] == 32 || gs[p] == 64 || gs[p] == 128, "group size must be 32, 64 or 128");
      check(w.dtype() == mx::uint32 && w.ndim() == 2, "weights must be uint32 [N, K]");
      product_dims(w, bits[p], n[p], k[p]);
      for (int j = 1; j < 3; ++j)
        check(a[prod[p] + j].dtype() == mx::float32 &&
                  a[prod[p] + j].shape() == mx::Shape({n[p], k[p] / gs[p]}),
              "scales and biases must be float32 [N, K / group_size]");
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
    const mx::array& kb = a[sl.keys];
    const mx::array& vb = a[sl.values];
    check(kb.dtype() == mx::float32 && vb.dtype() == mx::float32 && kb.ndim() == 4 &&
              kb.shape() == vb.shape() && kb.shape(0) == B && kb.shape(1) == hkv &&
              kb.shape(3) == hd,
          "keys and values must be float32 [B, Hkv, cap, head_dim]");
    check(shape.idx >= 0 && shape.idx < kb.shape(2), "the cache row is past the buffer");
    shapes.push_back(kb.shape());
    shapes.push_back(vb.shape());
    dtypes.push_back(mx::float32);
    dtypes.push_back(mx::float32);
  }
  // weights, norms and biases are read as row-major buffers: evaluated parameters, as loaded
  for (int l = 0; l < L; ++l)
    for (int j = 0; j < sl.count; ++j) {
      if (j == sl.keys || j == sl.values) continue;  // any strides: copied when not donated
      const mx::array& a = layer_arrays[size_t(l) * sl.count + j];
      check(a.is_available() && a.flags().row_contiguous,
            "weights, norms and biases must be evaluated and row-contiguous");
    }
  std::vector<mx::array> inputs{h, pos, start};
  inputs.insert(inputs.end(), layer_arrays.begin(), layer_arrays.end());
  return mx::array::make_arrays(
      std::move(shapes), std::move(dtypes),
      std::make_shared<DecodeStackCPU>(mx::default_stream(mx::Device::cpu), shape),
      std::move(inputs));
}

void DecodeStackCPU::eval_cpu(const std::vector<mx::array>& inputs,
                              std::vector<mx::array>& outputs) {
  auto& enc = mx::cpu::get_command_encoder(stream());
  for (auto& a : inputs) enc.set_input_array(a);
  const LayerSlots sl = slots(shape_);
  const int L = shape_.layers;
  outputs[0].set_data(mx::allocator::malloc(outputs[0].nbytes()));
  // A cache buffer is written in place when no other array (a slice kept by the prefix or
  // prompt cache) shares its memory, or when the caller vouches for it (in_place: the buffers
  // are this op's outputs of the step before, and the cache was not trimmed since). MLX's
  // is_donatable() cannot decide it here: each output of a multi-output primitive holds its
  // own copy of the inputs, and while the step before still runs (a pipelined decode builds
  // and evaluates step k + 1 during step k) MLX holds its buffers too. Only row idx is
  // written, past every row a reader of the cache before this step may read.
  std::vector<char> donated(size_t(2 * L));
  for (int l = 0; l < L; ++l)
    for (int j = 0; j < 2; ++j) {
      const mx::array& in = inputs[kFirstLayer + l * sl.count + (j ? sl.values : sl.keys)];
      mx::array& out = outputs[1 + 2 * l + j];
      const bool vouched = l < int(shape_.in_place.size()) && shape_.in_place[l];
      donated[2 * l + j] = in.flags().row_contiguous && in.data_shared_ptr()->is_owned() &&
          (vouched || in.data_shared_ptr().use_count() == 1);
      if (donated[2 * l + j]) {
        out.copy_shared_buffer(in);
      } else {
        out.set_data(mx::allocator::malloc(out.nbytes()));
        g_copies.fetch_add(1, std::memory_order_relaxed);
      }
    }
  for (auto& o : outputs) enc.set_output_array(o);
  std::vector<mx::array> in, out;
  for (const auto& a : inputs) in.push_back(weak(a));
  for (const auto& a : outputs) out.push_back(weak(a));
  const bool avx2 = small_gemm_available();
  enc.dispatch([in = std::move(in), out = std::move(out), donated = std::move(donated),
                s = shape_, sl, avx2]() mutable {
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
      const mx::array* a = in.data() + kFirstLayer + l * sl.count;
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
    auto product = [&](const mx::array* a, int slot, int bias, int p, const float* xin,
                       float* y) {
      const int gs = s.group_sizes[p], bits = s.bits[p];
      const mx::array& w = a[slot];
      const int N = w.shape(0), K = w.shape(1) * 32 / bits;
      qmm_auto(xin, B, w.data<uint32_t>(), a[slot + 1].data<float>(), a[slot + 2].data<float>(),
               N, K, gs, bits, xsum.data(), y, threads);
      if (bias >= 0) {  // as `y + bias` in MLX: one float add per element
        const float* bp = a[bias].data<float>();
        for (int b = 0; b < B; ++b)
          for (int j = 0; j < N; ++j) y[size_t(b) * N + j] += bp[j];
      }
      return N;
    };
    auto norm = [&](const mx::array& w) {
      for (int b = 0; b < B; ++b)
        norm_row(x.data() + size_t(b) * D, w.data<float>(), xn.data() + size_t(b) * D, D, s.eps);
    };
    for (int l = 0; l < s.layers; ++l) {
      const mx::array* a = in.data() + kFirstLayer + l * sl.count;
      const mx::array& kin = a[sl.keys];
      const mx::array& vin = a[sl.values];
      mx::array& kout = out[1 + 2 * l];
      mx::array& vout = out[2 + 2 * l];
      if (!donated[2 * l]) copy_row_major(kin, kout.data<float>());
      if (!donated[2 * l + 1]) copy_row_major(vin, vout.data<float>());
      const int cap = kin.shape(2);
      // attention
      norm(a[sl.in_norm]);
      const int W = product(a, sl.qkv, sl.qkv_bias, 4 * l, xn.data(), qkv.data());
      detail::kv_append_rows(qkv.data(), W, hq * hd, kout.data<float>(), B, hkv, cap, hd, s.idx,
                             pos, s.rope_dims, s.rope_traditional, s.rope_base, s.rope_scale,
                             avx2);
      detail::kv_append_rows(qkv.data(), W, (hq + hkv) * hd, vout.data<float>(), B, hkv, cap, hd,
                             s.idx, nullptr, s.rope_dims, s.rope_traditional, s.rope_base,
                             s.rope_scale, avx2);
      const int64_t bs = int64_t(hkv) * cap * hd;
      const Strided4 kv{kout.data<float>(), {bs, int64_t(cap) * hd, hd, 1}};
      const Strided4 vv{vout.data<float>(), {bs, int64_t(cap) * hd, hd, 1}};
      detail::decode_attention_rows(qkv.data(), W, kv, vv, B, hkv, hd, hd, pos, start, hq,
                                    s.idx + 1, s.attn_scale, s.rope_dims, s.rope_traditional,
                                    s.rope_base, s.rope_scale, avx2, att.data());
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
    std::copy(x.begin(), x.end(), out[0].data<float>());
  });
}

uint64_t decode_stack_copies() {
  return g_copies.load();
}

void DecodeStackCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmDecodeStackCPU runs on the CPU only");
}

}  // namespace afm
