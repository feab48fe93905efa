// MLX op and primitive: out = x @ w.T for float32 on the CPU, split over the kernel's thread
// pool in blocks of output columns, each block one single-threaded cblas_sgemm call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mlx/ops.h"
#include "mlx/primitives.h"

namespace afm {

namespace mx = mlx::core;

// Whether a cblas_sgemm is visible in the process (AFM preloads MKL or OpenBLAS globally).
bool has_sgemm();

// x: [..., K] float32; w: [N, K] float32 (a Linear layer's weight).
mx::array matmul_nt(const mx::array& x, const mx::array& w);

class ParallelSgemmCPU : public mx::Primitive {
 public:
  explicit ParallelSgemmCPU(mx::Stream s) : mx::Primitive(s) {}
  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  void eval_gpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override;
  const char* name() const override {
    return "AfmParallelSgemmCPU";
  }
  bool is_equivalent(const mx::Primitive&) const override {
    return true;
  }
};

}  // namespace afm

namespace afm {
// cblas_sgemm as loaded in the process (nullptr without a BLAS), for other kernels' tiles.
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                         int, float, float*, int);
SgemmFn blas_sgemm();
// float32 -> bfloat16, round to nearest even (NaN kept a NaN).
void to_bf16(const float* src, uint16_t* dst, size_t n);
enum { kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112 };
}  // namespace afm
