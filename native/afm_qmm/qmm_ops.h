// MLX op and primitive: out = x @ dequantize(w, scales, biases).T on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlx/backend/cpu/encoder.h"
#include "mlx/ops.h"
#include "mlx/primitives.h"

struct AmxAttention;  // qmm_api.h

namespace afm {

namespace mx = mlx::core;

enum class Isa : int { Auto = 0, Portable = 1, Avx2 = 2, Avx512 = 3, Avx2Int8 = 4, VnniInt8 = 5,
                       Avx512x256 = 6, VnniInt8x3 = 7, Avx2Int8x3 = 8 };

// x: [..., K] float32; w: uint32 [N, K * bits / 32]; scales, biases: float32 [N, K / gs].
mx::array quantized_matmul(
    const mx::array& x,
    const mx::array& w,
    const mx::array& scales,
    const mx::array& biases,
    int group_size,
    int bits,
    const std::string& isa);

// Rows `ids` (any integer array) of dequantize(w, scales, biases): an embedding lookup in one op
// (MLX's CPU dequantize is a graph of shifts, masks and broadcasts). Out: ids.shape + [K].
mx::array quantized_rows(
    const mx::array& ids,
    const mx::array& w,
    const mx::array& scales,
    const mx::array& biases,
    int group_size,
    int bits);

std::vector<std::string> supported_isas();  // exact float paths, best first
std::vector<std::string> int8_isas();       // paths rounding x to int8 this CPU runs
std::vector<std::string> plane_isas();      // int8 digit-plane paths (float32-level x)
std::string default_isa();                  // AFM_QMM_ISA or the best supported
std::string auto_isa(int bits);             // what "auto" runs at `bits` (AFM_QMM_ISA, timed, best)
void set_auto_isa(int bits, const std::string& isa);  // the timed choice for "auto"; "auto" resets
std::string row_isa(int bits);              // what "auto" runs for one row of x at `bits`
void set_row_isa(int bits, const std::string& isa);  // the timed one-row choice; "auto" resets
// Milliseconds of one row of x through every layer (weights: w, scales, biases of each in turn,
// evaluated and row-contiguous), for each path of `isas` in turn, in each of `repeats` rounds
// after a warm-up one (result[round][path]: a round's paths run back to back, so their ratio
// within a round is the paired comparison): products as the one-op decode step runs them (on
// the calling thread and the pool's, its helpers polling between products), without MLX's
// per-op dispatch in between.
std::vector<std::vector<double>> row_pass_ms(const std::vector<mx::array>& weights,
                                const std::vector<int>& group_sizes,
                                const std::vector<int>& bits,
                                const std::vector<std::string>& isas, int repeats);
Isa resolve_isa(const std::string& isa);    // "auto" -> AFM_QMM_ISA or the best; throws if absent
void set_num_threads(int n);                // <= 0: back to AFM_QMM_THREADS or all cores
int num_threads();
// AFM_QMM_ISA and AFM_QMM_THREADS as the Python side read them (its os.environ): the extension
// never calls getenv after import. isa "" means unset; threads <= 0 means unset.
void set_environment(const std::string& isa, int threads);
// Calls with at least this many rows of x (and "auto" asked, no forced path) dequantize tiles
// of weight rows once and multiply them with the BLAS's sgemm (prefill); 0 turns it off.
void set_blas_rows(int rows);
int blas_rows();
// From this many rows the tiles are multiplied by the BLAS's sgemm (where one is loaded); fewer
// rows, or no BLAS, take the kernel's own product (qmm_gemm.h).
void set_sgemm_rows(int rows);
// From this many rows (0: never) the tiles are multiplied by the kernel's panel product
// (qmm_panels.h, AVX-512 CPUs), before sgemm.
void set_panel_rows(int rows);
int panel_rows();
int sgemm_rows();
// Many-row products (from blas_rows() rows) on AMX bfloat16 tiles instead of the float32 BLAS
// tiles (inexact: opt-in); returns whether they are on (false on CPUs without AMX-BF16).
bool set_blas_bf16(bool on);
bool blas_bf16();
// Whether this CPU has AMX-BF16 (and AVX-512) and the OS lets this process use the tiles.
bool amx_bf16_available();
// The AMX attention products when the tiles are on (set_blas_bf16), else nullptr.
const AmxAttention* amx_attention_if_on();
void set_row_threads(int n);
int row_threads();
void set_pool_spin_us(int us);
int pool_spin_us();
// While one lives, an idle pool worker polls up to poll_us microseconds for the next call before
// it sleeps (a primitive that runs many small parallel steps back to back, like decode_stack,
// holds one for its duration: its gaps are a few microseconds, a wake-up through the kernel
// takes tens, and once it ends the workers sleep again).
struct HotPool {
  explicit HotPool(int poll_us);
  ~HotPool();
  HotPool(const HotPool&) = delete;
  HotPool& operator=(const HotPool&) = delete;
};
// x [M, K] (row-major) @ dequantize(w, scales, biases).T into out [M, N] (scales and biases
// float32, or float16 with half_scales), as a quantized_matmul
// primitive asked for "auto" computes it (the same kernel, or BLAS tiles from blas_rows() rows),
// inside a dispatched task; xsum is scratch [M, K / group_size]. row_threads > 0: threads for
// M == 1 (else set_row_threads's); the sums do not depend on the thread count.
void qmm_auto(const float* x, int M, const uint32_t* w, const void* scales,
              const void* biases, bool half_scales, int N, int K, int group_size, int bits,
              float* xsum, float* out, int row_threads = 0);
// Test hook: the thread pool's call counter (to drive its 32-bit wrap without 2^32 calls).
void set_pool_generation(uint64_t generation);
uint64_t pool_generation();
// The start of each primitive's eval_cpu here: allocates outputs[0] and registers the inputs
// and the output with the stream's CPU encoder, which the caller then dispatches work to.
mx::cpu::CommandEncoder& begin_eval(
    const mx::Stream& s,
    const std::vector<mx::array>& inputs,
    mx::array& out);

// An array captured by a dispatched task: its data without the graph (MLX's own CPU ops do the
// same, so the graph is never released on the stream's thread).
inline mx::array weak(const mx::array& a) {
  return mx::array::unsafe_weak_copy(a);
}

// A row-major float32 copy of x (any strides) into dst, inside a dispatched task. Kernels take
// x as it comes (no reshape or contiguous node in the graph) and copy only a strided one.
void copy_row_major(const mx::array& x, float* dst);
// Runs fn(0..ntasks-1) on the kernel's thread pool (the caller takes part), at most nthreads.
void parallel_for(int ntasks, int nthreads, const std::function<void(int)>& fn);

class QuantizedMatmulCPU : public mx::Primitive {
 public:
  // blas: the caller asked for "auto" (no forced path), so many rows may take the tile path
  QuantizedMatmulCPU(mx::Stream s, int group_size, int bits, Isa isa, bool blas)
      : mx::Primitive(s), group_size_(group_size), bits_(bits), isa_(isa), blas_(blas) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmQuantizedMatmulCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override;

 private:
  int group_size_, bits_;
  Isa isa_;
  bool blas_;
};

class QuantizedRowsCPU : public mx::Primitive {
 public:
  QuantizedRowsCPU(mx::Stream s, int group_size, int bits)
      : mx::Primitive(s), group_size_(group_size), bits_(bits) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmQuantizedRowsCPU";
  }
  bool is_equivalent(const mx::Primitive& other) const override {
    auto& o = static_cast<const QuantizedRowsCPU&>(other);
    return group_size_ == o.group_size_ && bits_ == o.bits_;
  }

 private:
  int group_size_, bits_;
};

}  // namespace afm
