// Python module engine._afm_qmm (nanobind, sharing MLX's array type through the "mlx" domain).
#include <cstdlib>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "decode_stack.h"
#include "fast_ops.h"
#include "qmm_ops.h"
#include "sgemm_ops.h"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_afm_qmm, m) {
  nb::module_::import_("mlx.core");
  m.doc() = "Native quantized matmul for MLX's CPU backend (AFM).";
  {  // the environment, read once here; later changes arrive through set_environment
    const char* isa = std::getenv("AFM_QMM_ISA");
    const char* threads = std::getenv("AFM_QMM_THREADS");
    afm::set_environment(isa ? isa : "", threads ? std::atoi(threads) : 0);
  }
  m.def(
      "quantized_matmul",
      &afm::quantized_matmul,
      "x"_a,
      "w"_a,
      "scales"_a,
      "biases"_a,
      "group_size"_a,
      "bits"_a,
      "isa"_a = "auto",
      "x @ dequantize(w, scales, biases).T on the CPU; x, scales, biases float32, w uint32.");
  m.def(
      "quantized_rows",
      &afm::quantized_rows,
      "ids"_a,
      "w"_a,
      "scales"_a,
      "biases"_a,
      "group_size"_a,
      "bits"_a,
      "Rows ids of dequantize(w, scales, biases) (an embedding lookup), float32.");
  m.def("supported_isas", &afm::supported_isas, "Instruction sets this CPU can run, best first.");
  m.def("int8_isas", &afm::int8_isas,
        "Paths this CPU runs that round activations to int8 (vnni-int8, avx2-int8).");
  m.def("plane_isas", &afm::plane_isas,
        "Paths this CPU runs that take activations as three int8 digit planes (vnni-int8x3, "
        "avx2-int8x3).");
  m.def("default_isa", &afm::default_isa, "The path 'auto' picks (AFM_QMM_ISA overrides).");
  m.def("auto_isa", &afm::auto_isa, "bits"_a, "The path 'auto' runs at these bits.");
  m.def("row_isa", &afm::row_isa, "bits"_a, "The path 'auto' runs for one row of x at these bits.");
  m.def("row_pass_ms", &afm::row_pass_ms, "weights"_a, "group_sizes"_a, "bits"_a, "isas"_a,
        "repeats"_a,
        "Ms of one row through the layers (w, scales, biases of each) on each path, as the "
        "one-op decode step runs its products: [round][path], rounds after a warm-up one.");
  m.def("set_row_isa", &afm::set_row_isa, "bits"_a, "isa"_a,
        "Make 'auto' run this path for one row of x at these bits ('auto': as for more rows).");
  m.def("set_auto_isa", &afm::set_auto_isa, "bits"_a, "isa"_a,
        "Make 'auto' run this path at these bits ('auto' resets; AFM_QMM_ISA still wins).");
  m.def("set_num_threads", &afm::set_num_threads, "n"_a, "Threads per call; <= 0 resets.");
  m.def("num_threads", &afm::num_threads, "Threads per call.");
  m.def("set_environment", &afm::set_environment, "isa"_a, "threads"_a,
        "AFM_QMM_ISA ('' = unset) and AFM_QMM_THREADS (<= 0 = unset) as now set; the module "
        "reads the environment itself only at import.");
  m.def("set_blas_rows", &afm::set_blas_rows, "rows"_a,
        "Rows of x from which 'auto' quantized matmuls take the BLAS tile path (0: never).");
  m.def("blas_rows", &afm::blas_rows, "Rows of x from which the BLAS tile path runs.");
  m.def("set_sgemm_rows", &afm::set_sgemm_rows, "rows"_a,
        "From this many rows the tile path multiplies through sgemm, not its own kernel.");
  m.def("sgemm_rows", &afm::sgemm_rows, "Rows from which the tiles use sgemm.");
  m.def("set_panel_rows", &afm::set_panel_rows, "rows"_a,
        "From this many rows (0: never) the tiles use the kernel's panel product (AVX-512).");
  m.def("set_attention_panels", &afm::set_attention_panels, "on"_a,
        "Whether long-query attention may run on AVX-512 panels instead of the BLAS (default "
        "on; both float32); returns the setting.");
  m.def("attention_panels", &afm::attention_panels,
        "Whether long-query attention may run on AVX-512 panels.");
  m.def("panel_rows", &afm::panel_rows, "Rows from which the tiles use the panel product.");
  m.def("set_blas_bf16", &afm::set_blas_bf16, "on"_a,
        "Many-row products on AMX bfloat16 tiles (inexact); returns whether they are on.");
  m.def("blas_bf16", &afm::blas_bf16, "Whether many-row products run on AMX bfloat16 tiles.");
  m.def("amx_bf16_available", &afm::amx_bf16_available,
        "Whether this CPU has AMX-BF16 tiles and the OS lets this process use them.");
  m.def("set_row_threads", &afm::set_row_threads, "n"_a,
        "Threads for one-row quantized matmuls (decode at batch 1; at most the threads per call).");
  m.def("row_threads", &afm::row_threads, "Threads for one-row quantized matmuls.");
  m.def("set_pool_spin_us", &afm::set_pool_spin_us, "us"_a,
        "Microseconds an idle pool worker polls for the next call before it sleeps (0: sleep).");
  m.def("pool_spin_us", &afm::pool_spin_us, "Microseconds an idle pool worker polls.");
  m.def("set_pool_generation", &afm::set_pool_generation, "generation"_a,
        "Test hook: set the thread pool's call counter (its 32-bit wrap).");
  m.def("pool_generation", &afm::pool_generation, "The thread pool's call counter.");
  m.def("has_sgemm", &afm::has_sgemm, "Whether a cblas_sgemm is loaded in this process.");
  m.def(
      "matmul_nt",
      &afm::matmul_nt,
      "x"_a,
      "w"_a,
      "x @ w.T in float32 on the CPU, blocks of output columns over the thread pool.");
  m.def("rms_norm", &afm::rms_norm, "x"_a, "weight"_a.none(), "eps"_a,
        "mx.fast.rms_norm as one CPU primitive (float32).");
  m.def("rope", &afm::rope, "x"_a, "dims"_a, "traditional"_a, "base"_a, "scale"_a, "offset"_a,
        "freqs"_a.none(), "mx.fast.rope as one CPU primitive (float32; offset int32 [] or [B]).");
  m.def("sdpa", &afm::sdpa, "q"_a, "k"_a, "v"_a, "scale"_a, "mask"_a.none(), "causal"_a,
        "Scaled dot-product attention as one CPU primitive (float32, GQA, strided K/V).");
  m.def("sdpa_tiled", &afm::sdpa_tiled, "q"_a, "k"_a, "v"_a, "scale"_a, "mask"_a.none(),
        "causal"_a,
        "sdpa for long queries (prefill): tiled, online softmax, no Lq x Lk score matrix.");
  m.def("argmax_last", &afm::argmax_last, "x"_a,
        "mx.argmax(x, axis=-1) of float32 x as uint32 (the first largest; a NaN counts as "
        "largest), rows over the pool.");
  m.def("silu_mul", &afm::silu_mul, "gate"_a, "x"_a,
        "silu(gate) * x (mlx-lm's swiglu) as one CPU primitive (float32, equal shapes).");
  m.def("kv_append", &afm::kv_append, "buf"_a, "src"_a, "col"_a, "idx"_a, "pos"_a.none(),
        "dims"_a, "traditional"_a, "base"_a, "scale"_a,
        "buf [B, H, cap, D] with row idx of each head from src [B, 1, W] columns col.. "
        "(rotated at pos [B] when given); in buf's memory when donatable.");
  m.def("decode_attention", &afm::decode_attention, "src"_a, "keys"_a, "values"_a, "pos"_a,
        "start"_a, "n_heads"_a, "n_keys"_a, "scale"_a, "dims"_a, "traditional"_a, "base"_a,
        "rope_scale"_a,
        "One query per row: RoPE of src's query columns, attention over rows [start[b], n_keys) "
        "of the KV buffers; [B, 1, n_heads * D].");
  nb::class_<afm::DecodeStackPlan>(m, "DecodeStackPlan",
                                   "A model's decode step, its weights checked once.")
      .def(
          "step",
          [](std::shared_ptr<afm::DecodeStackPlan> plan, const afm::mx::array& h,
             const afm::mx::array& pos, const afm::mx::array& start,
             const std::vector<afm::mx::array>& buffers, int idx,
             const std::vector<bool>& in_place) {
            std::vector<char> vouched(in_place.begin(), in_place.end());
            auto out = afm::decode_stack(plan, h, pos, start, buffers, idx, vouched);
            // only the buffers replaced by a copy: the others are the arrays given
            nb::dict copied;
            for (size_t i = 0; i < buffers.size(); ++i)
              if (out[1 + i].id() != buffers[i].id()) copied[nb::int_(i)] = nb::cast(out[1 + i]);
            return nb::make_tuple(out[0], copied);
          },
          "h"_a, "pos"_a, "start"_a, "buffers"_a, "idx"_a, "in_place"_a,
          "One step: (h_out, {buffer index: the copy written instead of that buffer}).");
  m.def(
      "decode_stack_plan",
      [](const std::vector<afm::mx::array>& weights, int layers, int n_heads, int n_kv_heads,
         int head_dim, float attn_scale, float eps, int rope_dims, bool rope_traditional,
         float rope_base, float rope_scale, bool qkv_bias, bool o_bias, bool gate_up_bias,
         bool down_bias, const std::vector<int>& group_sizes, const std::vector<int>& bits,
         int threads, int poll_us) {
        afm::DecodeStackShape s;
        s.layers = layers;
        s.n_heads = n_heads;
        s.n_kv_heads = n_kv_heads;
        s.head_dim = head_dim;
        s.attn_scale = attn_scale;
        s.eps = eps;
        s.rope_dims = rope_dims;
        s.rope_traditional = rope_traditional;
        s.rope_base = rope_base;
        s.rope_scale = rope_scale;
        s.qkv_bias = qkv_bias;
        s.o_bias = o_bias;
        s.gate_up_bias = gate_up_bias;
        s.down_bias = down_bias;
        s.group_sizes = group_sizes;
        s.bits = bits;
        s.threads = threads;
        s.poll_us = poll_us;
        return std::const_pointer_cast<afm::DecodeStackPlan>(afm::decode_stack_plan(weights, s));
      },
      "weights"_a, "layers"_a, "n_heads"_a, "n_kv_heads"_a, "head_dim"_a, "attn_scale"_a,
      "eps"_a, "rope_dims"_a, "rope_traditional"_a, "rope_base"_a, "rope_scale"_a, "qkv_bias"_a,
      "o_bias"_a, "gate_up_bias"_a, "down_bias"_a, "group_sizes"_a, "bits"_a, "threads"_a = 0,
      "poll_us"_a = 50,
      "A decode step's transformer layers (one query per row) as one CPU primitive: the weights "
      "and shape checked once, for DecodeStackPlan.step each step (decode_stack.h).");
  m.def("decode_stack_copies", &afm::decode_stack_copies,
        "Cache buffers decode_stack copied (not written in place) since the process began.");
  m.def("silu_mul_halves", &afm::silu_mul_halves, "y"_a,
        "silu(y[..., :F]) * y[..., F:] as one CPU primitive (float32).");
}
