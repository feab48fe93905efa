// A whole decode step's transformer layers (llama / qwen2: RMSNorm, fused q/k/v, RoPE, the
// KV cache append, attention, o_proj, residual, RMSNorm, fused gate/up, SiLU gate, down_proj,
// residual) as ONE MLX primitive on the CPU, for one query per row of a BatchKVCache.
//
// Per decode step, MLX's CPU backend costs a dispatch, an allocation and graph-building time
// for every node (~14 per layer with the native decode layers: 428 for a 30-layer model), and
// each node's work is too small to spread over both cores. Here the same kernels run in the
// same order inside one task (outputs bit-identical to the per-layer route), small matmuls are
// split over the kernel's pool while its workers poll instead of sleeping (HotPool), and the
// Python side builds one node instead of 30 layers' worth.
#pragma once

#include <memory>
#include <vector>

#include "mlx/ops.h"
#include "mlx/primitives.h"

namespace afm {

namespace mx = mlx::core;

struct DecodeStackShape {
  int layers = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
  float attn_scale = 1.f, eps = 1e-5f;
  int rope_dims = 0;
  bool rope_traditional = false;
  float rope_base = 10000.f, rope_scale = 1.f;
  bool qkv_bias = false, o_bias = false, gate_up_bias = false, down_bias = false;
  // (group size, bits) of each layer's four quantized products: qkv, o, gate_up, down
  std::vector<int> group_sizes, bits;
  int threads = 0;  // pool threads for the products (<= 0: all)
  int poll_us = 50;  // how long idle pool workers poll for the next product (0: sleep)
};

// A model's decode step, checked once: its shape, its layers' weights (per layer, in order:
// input norm weight [D]; qkv w, scales, biases (+ bias); o w, scales, biases (+ bias);
// post-attention norm weight [D]; gate_up w, scales, biases (+ bias); down w, scales, biases
// (+ bias)) and the hidden size D they take. The weights are held by the op, not graph inputs:
// they are evaluated parameters, and ~600 inputs cost MLX's graph walks more than the step's
// other work (measured: ~1.2 ms a step).
struct DecodeStackPlan {
  DecodeStackShape shape;
  std::vector<mx::array> weights;
  int hidden = 0;
};

// Checks weights against shape (throws on a mismatch): once a model, not every step (the ~400
// weights of a 30-layer model took 0.25 ms a step to convert from Python and check).
std::shared_ptr<const DecodeStackPlan> decode_stack_plan(std::vector<mx::array> weights,
                                                         DecodeStackShape shape);

// One step on a plan. h: [B, 1, D] float32; pos, start: int32 [B] (the cache's offsets and left
// padding); buffers: keys_0, values_0, keys_1, ... ([B, Hkv, cap, head_dim] float32); idx: the
// cache row this step writes (the keys attended: rows [0, idx]); in_place, per layer: the
// caller vouches that its buffers may be written in place (they are this op's outputs of the
// step before and the cache was not trimmed since). Returns [h_out, keys_0, values_0, ...]: the
// hidden state after the last layer (before the final norm), and the buffers the op writes row
// idx of in place: each given buffer, or a copy of it when something else may share its memory
// (see decode_stack.cpp).
std::vector<mx::array> decode_stack(const std::shared_ptr<const DecodeStackPlan>& plan,
                                    const mx::array& h,
                                    const mx::array& pos,
                                    const mx::array& start,
                                    const std::vector<mx::array>& buffers,
                                    int idx,
                                    const std::vector<char>& in_place);

// Cache buffers decode_stack copied (another array may have shared their memory) so far.
uint64_t decode_stack_copies();

class DecodeStackCPU : public mx::Primitive {
 public:
  DecodeStackCPU(mx::Stream s, std::shared_ptr<const DecodeStackPlan> plan, int idx)
      : mx::Primitive(s), plan_(std::move(plan)), idx_(idx) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmDecodeStackCPU";
  }
  bool is_equivalent(const mx::Primitive&) const override {
    return false;
  }

 private:
  std::shared_ptr<const DecodeStackPlan> plan_;
  int idx_;
};

}  // namespace afm
