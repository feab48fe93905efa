// Float32 matmul over the pool: each task is one block of output columns (cblas_sgemv for one
// row, the AVX2 small-batch kernel for 2-32 rows, cblas_sgemm beyond).
//
// Threaded BLAS libraries split a matmul statically and wait at a barrier for every thread, so
// one thread descheduled by other work (the server's HTTP side shares the cores) stalls the
// whole call. Here every block is a single-threaded sgemm claimed from the pool's counter: a
// helper that is late leaves its blocks to the caller, so a busy core costs its share of the
// work, not a stall. cblas_sgemm is looked up at run time (dlsym), so the module loads without
// a BLAS; has_sgemm() tells the Python side whether this path can run.
#include "sgemm_ops.h"

#include <dlfcn.h>

#include <algorithm>
#include <stdexcept>

#include "mlx/allocator.h"
#include "mlx/backend/cpu/encoder.h"
#include "fast_ops.h"
#include "qmm_ops.h"

namespace afm {

namespace {

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
constexpr int kSmallRows = 32;
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                       float, float*, int);

using Sgemv = void (*)(int, int, int, int, float, const float*, int, const float*, int, float,
                      float*, int);

Sgemm sgemm_fn() {
  static Sgemm fn = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
  return fn;
}

// One row of activations (decode at batch 1) is a matrix-vector product: BLAS libraries stream
// the weights faster through sgemv than through a one-row sgemm (MKL, a 32000 x 512 LM head
// over two threads: 7.8 -> 6.0-6.8 ms).
Sgemv sgemv_fn() {
  static Sgemv fn = reinterpret_cast<Sgemv>(dlsym(RTLD_DEFAULT, "cblas_sgemv"));
  return fn;
}

void run_sgemm(const float* x, const float* w, float* out, int M, int N, int K) {
  Sgemm sgemm = sgemm_fn();
  int threads = num_threads();
  const double work = double(M) * N * K;
  if (work < 2.5e5) threads = 1;  // waking a helper costs more than it saves
  // ~4 blocks per thread so a late helper's share is picked up in small pieces
  int nb = (N + 4 * threads - 1) / (4 * threads);
  nb = std::max(64, (nb + 15) / 16 * 16);
  if (threads == 1) nb = N;
  const int ntasks = (N + nb - 1) / nb;
  Sgemv sgemv = M == 1 ? sgemv_fn() : nullptr;
  // 2-32 rows (a decode batch): BLAS packs the whole weight matrix for each call, which costs
  // more than the product; the AVX2 kernel streams the weights once (1.2-2x, fast_kernels.h)
  const bool small = !sgemv && M <= kSmallRows && small_gemm_available();
  parallel_for(ntasks, threads, [&](int t) {
    const int n0 = t * nb, n = std::min(N, n0 + nb) - n0;
    if (sgemv) {
      sgemv(kRowMajor, kNoTrans, n, K, 1.0f, w + size_t(n0) * K, K, x, 1, 0.0f, out + n0, 1);
      return;
    }
    if (small) {
      small_gemm_nt(x, M, w + size_t(n0) * K, n, K, out + n0, N);
      return;
    }
    sgemm(kRowMajor, kNoTrans, kTrans, M, n, K, 1.0f, x, K, w + size_t(n0) * K, K, 0.0f,
          out + n0, N);
  });
}

}  // namespace

bool has_sgemm() {
  return sgemm_fn() != nullptr;
}

SgemmFn blas_sgemm() {
  return sgemm_fn();
}

void to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

mx::array matmul_nt(const mx::array& x, const mx::array& w) {
  if (!has_sgemm()) throw std::runtime_error("afm sgemm: no cblas_sgemm in this process");
  if (x.dtype() != mx::float32 || w.dtype() != mx::float32)
    throw std::invalid_argument("afm sgemm: x and w must be float32");
  if (x.ndim() < 1 || w.ndim() != 2 || x.shape(-1) != w.shape(1))
    throw std::invalid_argument("afm sgemm: x must be [..., K] and w [N, K]");
  const int K = x.shape(-1), N = w.shape(0);
  auto s = mx::default_stream(mx::Device::cpu);
  auto row_major = [&](const mx::array& a) {
    return a.is_available() && a.flags().row_contiguous ? a : mx::contiguous(a, false, s);
  };
  // x as it is ([..., K], any strides: eval copies a strided one), no reshape node
  auto out_shape = x.shape();
  out_shape.back() = N;
  return mx::array(out_shape, mx::float32, std::make_shared<ParallelSgemmCPU>(s),
                   {x, row_major(w)});
}

void ParallelSgemmCPU::eval_cpu(
    const std::vector<mx::array>& inputs,
    std::vector<mx::array>& outputs) {
  auto& x = inputs[0];
  auto& w = inputs[1];
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const int K = x.shape(-1), N = w.shape(0);
  const int M = K ? int(x.size() / K) : 0;
  const bool strided = !x.flags().row_contiguous && M > 0 && K > 0;
  mx::array xc = strided ? mx::array({M, K}, mx::float32, nullptr, {}) : x;
  if (strided) {
    xc.set_data(mx::allocator::malloc(xc.nbytes()));
    enc.add_temporary(xc);
  }
  const float* xp = xc.data<float>();
  const float* wp = w.data<float>();
  float* op = out.data<float>();
  enc.dispatch([xp, wp, op, M, N, K, strided, x = weak(x)]() {
    if (M == 0 || N == 0) return;
    if (strided) copy_row_major(x, const_cast<float*>(xp));
    if (K == 0) {
      std::fill(op, op + size_t(M) * N, 0.0f);
      return;
    }
    run_sgemm(xp, wp, op, M, N, K);
  });
}

void ParallelSgemmCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmParallelSgemmCPU runs on the CPU only");
}

}  // namespace afm
