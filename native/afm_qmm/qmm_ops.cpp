// The primitive's CPU evaluation, instruction-set dispatch and a small persistent thread pool.
#include "qmm_ops.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <pthread.h>
#include <unistd.h>

#include "mlx/allocator.h"
#include "mlx/backend/cpu/encoder.h"
#include "qmm_api.h"
#include "sgemm_ops.h"

namespace afm {

namespace {

using Kernel = void (*)(const QmmArgs&, int, int);
using Prep = void (*)(const QmmArgs&, float*);
using Deq = void (*)(const QmmArgs&, int, int, float*);
using Gemm = void (*)(const float*, int, int, const float*, int, int, float*, int);
using PanelPack = void (*)(const QmmArgs&, int, float*);
using Panels = void (*)(const float*, int, int, const float*, int, float*, int);

bool cpu_has(Isa isa) {
#ifdef QMM_X86
  switch (isa) {
    case Isa::Avx512:
    case Isa::Avx512x256:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") &&
          __builtin_cpu_supports("f16c");
    case Isa::VnniInt8:
    case Isa::VnniInt8x3:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
          __builtin_cpu_supports("fma");
    case Isa::Avx2:
    case Isa::Avx2Int8:
    case Isa::Avx2Int8x3:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
          __builtin_cpu_supports("f16c");
    default:
      return true;
  }
#else
  return isa == Isa::Portable;
#endif
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx512x256:
      return "avx512-256";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx2Int8:
      return "avx2-int8";
    case Isa::VnniInt8:
      return "vnni-int8";
    case Isa::VnniInt8x3:
      return "vnni-int8x3";
    case Isa::Avx2Int8x3:
      return "avx2-int8x3";
    default:
      return "portable";
  }
}

Isa parse_isa(const std::string& s) {
  if (s.empty() || s == "auto") return Isa::Auto;
  if (s == "avx512") return Isa::Avx512;
  if (s == "avx512-256") return Isa::Avx512x256;
  if (s == "avx2") return Isa::Avx2;
  if (s == "portable") return Isa::Portable;
  if (s == "avx2-int8") return Isa::Avx2Int8;
  if (s == "vnni-int8") return Isa::VnniInt8;
  if (s == "vnni-int8x3") return Isa::VnniInt8x3;
  if (s == "avx2-int8x3") return Isa::Avx2Int8x3;
  throw std::invalid_argument(
      "afm_qmm: unknown isa '" + s + "' (auto, avx512, avx512-256, avx2, vnni-int8, vnni-int8x3, "
      "avx2-int8, avx2-int8x3, portable)");
}

Isa best_isa() {
  for (Isa i : {Isa::Avx512, Isa::Avx2})
    if (cpu_has(i)) return i;
  return Isa::Portable;
}

// What "auto" means at 4 and 8 bits once the engine has timed the paths (0: not timed, the best
// supported); AFM_QMM_ISA still wins over it.
std::atomic<int> g_auto_isa[4] = {0, 0, 0, 0};

// A bit width's slot: 4, 8, planar 5, planar 6.
int bits_slot(int bits) {
  return bits == 8 ? 1 : bits == 5 ? 2 : bits == 6 ? 3 : 0;
}

std::atomic<int>& auto_slot(int bits) {
  return g_auto_isa[bits_slot(bits)];
}

// What "auto" runs for products of one row of x (decode at batch 1) at 4 and 8 bits, where the
// engine timed a one-row path faster than the batch's (0: the same as auto_slot's).
std::atomic<int> g_row_isa[4] = {0, 0, 0, 0};

std::atomic<int>& row_slot(int bits) {
  return g_row_isa[bits_slot(bits)];
}

// The environment, read once (at import, or when the Python side calls reload_environment after
// changing it): getenv on every call could race with a setenv elsewhere in the process
// (engine/blas.py sets BLAS variables), which is undefined behaviour.
struct EnvSettings {
  std::string isa;  // AFM_QMM_ISA as set ("" when unset)
  int threads = 0;  // AFM_QMM_THREADS (<= 0: unset)
};

std::mutex g_env_mu;
EnvSettings g_env;
std::atomic<int> g_blas_rows{16};
std::atomic<int> g_sgemm_rows{32};  // from this many rows the tiles use sgemm (qmm_gemm.h below)
std::atomic<int> g_panel_rows{16};  // from this many rows the tiles use the panel product
std::atomic<bool> g_blas_bf16{false};  // many rows on AMX bfloat16 tiles (set_blas_bf16)

std::atomic<int> g_row_threads{1};  // threads for one-row calls (decode at batch 1)
std::atomic<int> g_spin_us{0};      // how long an idle pool worker spins before it sleeps
std::atomic<int> g_hot{0};          // > 0 while a multi-op primitive runs (HotPool)
std::atomic<int> g_hot_us{0};       // how long idle workers poll then (the latest HotPool's)
std::atomic<int> g_env_isa{0};      // parsed AFM_QMM_ISA (Isa::Auto when unset)
std::atomic<bool> g_env_bad{false};  // AFM_QMM_ISA names no path (resolve throws)
std::atomic<int> g_env_threads{0};

void store_env(const EnvSettings& e) {
  std::lock_guard<std::mutex> lk(g_env_mu);
  g_env = e;
  bool bad = false;
  Isa isa = Isa::Auto;
  try {
    isa = parse_isa(e.isa);
  } catch (const std::invalid_argument&) {
    bad = true;
  }
  g_env_isa.store(int(isa));
  g_env_bad.store(bad);
  g_env_threads.store(e.threads);
}

Isa env_isa() {
  if (g_env_bad.load()) {
    std::string name;
    {
      std::lock_guard<std::mutex> lk(g_env_mu);
      name = g_env.isa;
    }
    return parse_isa(name);  // throws the message naming the value
  }
  return Isa(g_env_isa.load());
}

Isa resolve(Isa isa, int bits = 0, int rows = 0) {
  if (isa == Isa::Auto) {  // AFM_QMM_ISA, else the path timed at these bits, else the widest
    isa = env_isa();
    if (isa == Isa::Auto && bits && rows == 1) {
      const int timed = row_slot(bits).load();
      if (timed) return Isa(timed);
    }
    if (isa == Isa::Auto && bits) {
      const int timed = auto_slot(bits).load();
      if (timed) return Isa(timed);  // checked against the CPU when it was set
    }
    if (isa == Isa::Auto) return best_isa();
  }
  if (!cpu_has(isa))
    throw std::invalid_argument(std::string("afm_qmm: this CPU lacks ") + isa_name(isa));
  return isa;
}

Kernel kernel_for(Isa isa) {
#ifdef QMM_X86
  if (isa == Isa::Avx512) return qmm_avx512;
  if (isa == Isa::Avx512x256) return qmm_avx512_256;
  if (isa == Isa::VnniInt8) return qmm_vnni;
  if (isa == Isa::VnniInt8x3) return qmm_vnni_x3;
  if (isa == Isa::Avx2Int8x3) return qmm_avx2_int8_x3;
  if (isa == Isa::Avx2Int8) return qmm_avx2_int8;
  if (isa == Isa::Avx2) return qmm_avx2;
#endif
  return qmm_portable;
}

// The order of x (its prep) a per-row float kernel reads.
Prep prep_for(Kernel kernel) {
#ifdef QMM_X86
  if (kernel == qmm_avx512) return qmm_avx512_prep;
  if (kernel == qmm_avx512_256) return qmm_avx512_256_prep;
  if (kernel == qmm_avx2) return qmm_avx2_prep;
#endif
  return qmm_portable_prep;
}

// The tiles' order of x (prep), dequantization and product, one unit's: AVX-512's on a CPU
// with it whichever vector path the per-row calls take (the timed choice may pick AVX2,
// AVX-512 on 256-bit vectors or VNNI there), else the per-row path's unit (AVX2's for AVX2
// multiply-adds).
struct TilePath {
  Prep prep;
  Deq deq;
  Gemm gemm;  // the small-M product (AVX-512 only: with 16 registers of 8 lanes its 2 x 4
              // blocks lose to the per-row kernels, 0.6x at 16 rows; sgemm runs instead)
  PanelPack pack = nullptr;  // the large-M product on panels of x (AVX-512 only)
  Panels panels = nullptr;
};
TilePath tile_path(Kernel kernel) {
#ifdef QMM_X86
  if (kernel != qmm_portable && cpu_has(Isa::Avx512))
    return {qmm_avx512_prep, qmm_avx512_deq, qmm_avx512_gemm, qmm_avx512_pack_panel,
            qmm_avx512_panels};
  if (kernel != qmm_portable) return {qmm_avx2_prep, qmm_avx2_deq, nullptr};
#endif
  return {qmm_portable_prep, qmm_portable_deq, nullptr};
}

// Whether a product of M rows of x and depth K takes the tile path (never when blas_rows() is 0):
// from panel_rows() rows where the kernel has the panel product (below blas_rows() too: the
// per-row kernels pass over the weights once per 8 rows, so 9-15 rows cost them two passes,
// while a panel of 16 costs the same from 1 row to 16); from blas_rows() rows where the kernel
// has its own small-M product (below sgemm_rows()); through sgemm from blas_rows() rows when
// K < 1024, twice that for deeper products, where the per-row kernels keep up longer (16 rows,
// vectorized tiles: K 576-896 1.10-1.15x faster through sgemm, K 1536-4864 0.85-0.9x); never
// without a BLAS or those products.
bool tiles_for(int M, int K, int blas_at, Kernel kernel) {
  if (blas_at <= 0) return false;
  const int panel_at = g_panel_rows.load();
  if (tile_path(kernel).panels && panel_at > 0 && M >= panel_at) return true;
  if (M < blas_at) return false;
  if (tile_path(kernel).gemm && M < g_sgemm_rows.load()) return true;
  return blas_sgemm() && M >= (K < 1024 ? blas_at : 2 * blas_at);
}

// The int8 kernels' quantization of x (nullptr for the float kernels).
using Quant = void (*)(const QmmArgs&, int8_t*, float*, float*);
Quant quant_for(Kernel kernel) {
#ifdef QMM_X86
  if (kernel == qmm_vnni) return qmm_vnni_quant;
  if (kernel == qmm_vnni_x3) return qmm_vnni_quant3;
  if (kernel == qmm_avx2_int8_x3) return qmm_avx2_int8_quant3;
  if (kernel == qmm_avx2_int8) return qmm_avx2_int8_quant;
#endif
  return nullptr;
}

// Rows of xq an int8 kernel's quantization writes per row of x (xd and xsum: one).
int planes_for(Kernel kernel) {
#ifdef QMM_X86
  if (kernel == qmm_vnni_x3 || kernel == qmm_avx2_int8_x3) return 3;
#endif
  return 1;
}

// The CPUs online, read once: std::thread::hardware_concurrency() reads them from /sys (three
// system calls, ~7 us), and num_threads() is asked for every product and attention call.
int hardware_threads() {
  static const int n = std::max(1, int(std::thread::hardware_concurrency()));
  return n;
}

int env_threads() {
  const int n = g_env_threads.load();
  return n > 0 ? n : hardware_threads();
}

std::atomic<int> g_threads{0};

// Workers sleep on a condition variable between calls; the calling thread takes part. Tasks
// are claimed one at a time from a counter that carries the call's generation, and the caller
// waits for the tasks to be done, not for the helpers: a helper that wakes late (its core busy
// with other work) finds nothing left to claim, and the caller never waits on it.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void run(int ntasks, int nthreads, const std::function<void(int)>& fn) {
    std::lock_guard<std::mutex> call(call_mu_);  // one parallel region at a time
    int helpers = std::min(nthreads, ntasks) - 1;
    if (helpers <= 0) {
      for (int i = 0; i < ntasks; ++i) fn(i);
      return;
    }
    grow(helpers);
    uint32_t gen;
    bool wake;
    {
      std::lock_guard<std::mutex> lk(mu_);
      // the counter's high half carries the call's generation: 32 bits that wrap (0 skipped, a
      // new worker's "seen" value), compared as 32 bits
      if (++generation_ == 0) ++generation_;
      gen = generation_;
      job_ = &fn;
      ntasks_ = ntasks;
      active_ = helpers;
      done_.store(0);
      next_.store(uint64_t(gen) << 32);
      posted_.store(gen, std::memory_order_release);  // spinning workers see it here
      wake = sleepers_ > 0;
    }
    if (wake) cv_.notify_all();  // a spinning worker needs no system call
    work(gen, &fn, ntasks);
    for (int spin = 0; spin < 64 && done_.load(std::memory_order_acquire) < ntasks; ++spin)
      std::this_thread::yield();
    if (done_.load(std::memory_order_acquire) < ntasks) {
      std::unique_lock<std::mutex> lk(mu_);
      done_cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) >= ntasks; });
    }
  }

 private:
  // Runs tasks of generation gen until none is left; fn is used only after a claim succeeds,
  // so only while its call is still waiting for that task.
  void work(uint32_t gen, const std::function<void(int)>* fn, int ntasks) {
    uint64_t c = next_.load();
    for (;;) {
      if (uint32_t(c >> 32) != gen || int(c & 0xffffffffu) >= ntasks) return;
      if (!next_.compare_exchange_weak(c, c + 1)) continue;
      (*fn)(int(c & 0xffffffffu));
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == ntasks) {
        std::lock_guard<std::mutex> lk(mu_);
        done_cv_.notify_one();
      }
      c = next_.load();
    }
  }

  // Up to AFM_QMM_SPIN_US microseconds of polling for the next call before sleeping: a decode
  // step posts a call every few tens of microseconds, and a wake-up through the kernel takes
  // about as long as a small matmul (the worker would arrive when the work is done).
  void spin(uint32_t seen) {
    const int us = std::max(g_spin_us.load(std::memory_order_relaxed),
                            g_hot.load(std::memory_order_relaxed) > 0
                                ? g_hot_us.load(std::memory_order_relaxed)
                                : 0);
    if (us <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    for (int i = 0;; ++i) {
      if (posted_.load(std::memory_order_acquire) != seen) return;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return;
    }
  }

  void grow(int n) {
    while (int(workers_.size()) < n) {
      int id = int(workers_.size());
      workers_.emplace_back([this, id] { loop(id); });
    }
  }

  void loop(int id) {
    uint32_t seen = 0;
    for (;;) {
      const std::function<void(int)>* fn;
      int ntasks;
      spin(seen);
      {
        std::unique_lock<std::mutex> lk(mu_);
        ++sleepers_;
        cv_.wait(lk, [&] { return stop_ || (generation_ != seen && id < active_); });
        --sleepers_;
        if (stop_) return;
        seen = generation_;
        fn = job_;
        ntasks = ntasks_;
      }
      work(seen, fn, ntasks);
    }
  }

  std::mutex call_mu_, mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<uint64_t> next_{0};
  std::atomic<uint32_t> posted_{0};  // generation_, readable without the lock
  int sleepers_ = 0;                 // workers waiting on cv_ (under mu_)
  std::atomic<int> done_{0};
  int ntasks_ = 0, active_ = 0;
  uint32_t generation_ = 0;
  bool stop_ = false;

 public:
  void set_generation(uint64_t g) {  // test hook (no call in flight: call_mu_ held)
    std::lock_guard<std::mutex> call(call_mu_);
    std::lock_guard<std::mutex> lk(mu_);
    generation_ = uint32_t(g);
  }
  uint64_t generation() {
    std::lock_guard<std::mutex> lk(mu_);
    return generation_;
  }
};

std::atomic<bool> g_forked{false};  // set in a forked child (pthread_atfork)

Pool& pool() {
  // Leaked on purpose: no joins during interpreter teardown. A forked child has none of the
  // parent's workers, so it starts a pool of its own (the parent's copy is left untouched).
  // The child learns it from a fork handler, not from comparing getpid() on every call (a
  // system call each, ~50 a decode step).
  static std::atomic<Pool*> p{[] {
    pthread_atfork(nullptr, nullptr, [] { g_forked.store(true); });
    return new Pool();
  }()};
  if (g_forked.load(std::memory_order_acquire)) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lk(mu);
    if (g_forked.load()) {
      p.store(new Pool());
      g_forked.store(false);
    }
  }
  return *p.load(std::memory_order_acquire);
}

// Points a at float32 or float16 scales and biases.
void set_scales(QmmArgs& a, const void* scales, const void* biases, bool half) {
  if (half) {
    a.scales = a.biases = nullptr;
    a.hscales = static_cast<const uint16_t*>(scales);
    a.hbiases = static_cast<const uint16_t*>(biases);
  } else {
    a.scales = static_cast<const float*>(scales);
    a.biases = static_cast<const float*>(biases);
    a.hscales = a.hbiases = nullptr;
  }
}

bool scale_dtype_ok(const mx::array& scales, const mx::array& biases) {
  return scales.dtype() == biases.dtype() &&
      (scales.dtype() == mx::float32 || scales.dtype() == mx::float16);
}

// Group sums of x into a.xsum (the int8 paths write the sums of their rounded x instead).
void group_sums(const QmmArgs& a) {
  const int G = a.K / a.group_size;
  float* xsum = const_cast<float*>(a.xsum);
  for (int m = 0; m < a.M; ++m)
    for (int g = 0; g < G; ++g) {
      const float* p = a.x + size_t(m) * a.K + size_t(g) * a.group_size;
      float s = 0.f;
      for (int k = 0; k < a.group_size; ++k) s += p[k];
      xsum[size_t(m) * G + g] = s;
    }
}


// Many rows on AMX tiles in bfloat16 (opt-in, set_blas_bf16; qmm_amx.cpp): x rounded to
// bfloat16 once and laid out for the tiles, then panels of 32 weight rows dequantized straight
// to bfloat16 and multiplied with all of it (float32 sums). Inexact: each weight and activation
// is rounded to 8 significant bits (~0.25% of a product's RMS on random inputs).
void run_qmm_amx_bf16(const QmmArgs& a) {
#ifdef AFM_HAS_AMX
  const int ld = qmm_xp_stride(a.K);
  std::unique_ptr<uint16_t[]> xv(new uint16_t[amx_x_size(a.M, a.K)]);
  // x into the tiles' layout 16 rows at a time over the pool: permuted (the weights' order),
  // rounded, pair-interleaved
  pool().run((a.M + 15) / 16, num_threads(), [&](int t) {
    QmmArgs rows = a;
    rows.x = a.x + size_t(t) * 16 * a.K;
    rows.M = std::min(16, a.M - t * 16);
    thread_local std::vector<float> xp;
    thread_local std::vector<uint16_t> xb;
    xp.resize(size_t(16) * ld);
    xb.resize(size_t(16) * ld);
    qmm_avx512_prep(rows, xp.data());
    to_bf16(xp.data(), xb.data(), size_t(rows.M) * ld);
    amx_prep_x(xb.data(), ld, rows.M, a.K, xv.get() + size_t(t) * 16 * a.K);
  });
  pool().run((a.N + 31) / 32, num_threads(), [&](int t) {
    thread_local std::vector<uint16_t> panel;
    panel.resize(size_t(32) * a.K);
    qmm_amx_bf16_panel(a, xv.get(), t * 32, panel.data());
  });
#else
  (void)a;
  throw std::logic_error("afm_qmm: built without AMX tiles");
#endif
}

// Rows from which the opt-in AMX bfloat16 tiles take over (fewer: the per-row int8 kernels).
constexpr int kAmxRows = 16;

// Weight rows per tile. Through sgemm: 64 (fewer leave the BLAS re-packing all of x for a
// sliver of columns: MKL, one thread, 1024 x 4864 x 16 at 24 GMAC/s against 47 at 128 columns;
// a 4864-deep product of 1024 rows on two Zen 4 cores 82.6 -> 56.6 ms from 16 to 64 rows). The
// small-M product: a multiple of 16 up to 64, at most ~256 KB of floats (in L2).
int tile_rows(int K, bool sgemm) {
  if (sgemm) return 64;
  return std::max(16, std::min(64, (65536 / std::max(1, K)) / 16 * 16));
}

// Many rows on the panel product (qmm_panels.h): x packed into panels over the pool, then each
// task dequantizes a tile of 64 weight rows and multiplies every panel with it.
void run_qmm_panels(const QmmArgs& a, const TilePath& path) {
  const int P = (a.M + QMM_PANEL_ROWS - 1) / QMM_PANEL_ROWS;
  const size_t size = qmm_panels_size(a.M, a.K);
  std::unique_ptr<float, decltype(&std::free)> panels(
      static_cast<float*>(std::aligned_alloc(64, (size * sizeof(float) + 63) / 64 * 64)),
      &std::free);
  if (!panels) throw std::bad_alloc();
  float* px = panels.get();
  pool().run(P, num_threads(), [&](int p) { path.pack(a, p, px); });
  constexpr int NB = 64;
  const int ntasks = (a.N + NB - 1) / NB;
  pool().run(ntasks, num_threads(), [&](int t) {
    const int n0 = t * NB, nb = std::min(a.N, n0 + NB) - n0;
    thread_local std::vector<float> tile;
    tile.resize(size_t(NB) * a.K);
    path.deq(a, n0, nb, tile.data());
    path.panels(px, a.M, a.K, tile.data(), nb, a.out + n0, a.N);
  });
}

// Many rows (decode batches, prefill): each task dequantizes a tile of weight rows once
// (vectorized, in the kernel's order of x) and multiplies all of x, permuted once into that
// order, with it: below sgemm_rows() rows (or without a BLAS) by the kernel's own small-M
// product (qmm_gemm.h: 1.2-1.4x sgemm at 16 rows), from there by the BLAS's single-threaded
// sgemm, which runs near the FMA peak at hundreds of rows where the per-row kernels (tuned for
// 1-8 rows) reach a fraction of it. The dequantization costs K per weight row against M * K
// multiply-adds. Exact float arithmetic: the sums differ from the float kernels' only in order.
void run_qmm_tiles(const QmmArgs& a, Kernel kernel) {
  if (g_blas_bf16.load() && a.M >= kAmxRows) return run_qmm_amx_bf16(a);
  const TilePath path = tile_path(kernel);
  if (path.panels && g_panel_rows.load() > 0 && a.M >= g_panel_rows.load())
    return run_qmm_panels(a, path);
  // (tiles_for: one of the two exists)
  const SgemmFn sgemm = path.gemm && a.M < g_sgemm_rows.load() ? nullptr : blas_sgemm();
  const int NB = tile_rows(a.K, sgemm != nullptr);
  const int ld = qmm_xp_stride(a.K);
  std::unique_ptr<float[]> xp(new float[size_t(a.M) * ld]);
  path.prep(a, xp.get());
  const float* x = xp.get();
  const int ntasks = (a.N + NB - 1) / NB;
  pool().run(ntasks, num_threads(), [&](int t) {
    const int n0 = t * NB, nb = std::min(a.N, n0 + NB) - n0;
    thread_local std::vector<float> tile;
    tile.resize(size_t(NB) * a.K);
    path.deq(a, n0, nb, tile.data());
    if (!sgemm) return path.gemm(x, ld, a.M, tile.data(), a.K, nb, a.out + n0, a.N);
    sgemm(kCblasRowMajor, kCblasNoTrans, kCblasTrans, a.M, nb, a.K, 1.0f, x, ld, tile.data(),
          a.K, 0.0f, a.out + n0, a.N);
  });
}

// The float kernel of an int8 one's vector unit (itself for the float kernels).
Kernel float_kernel(Kernel kernel) {
#ifdef QMM_X86
  if (kernel == qmm_vnni || kernel == qmm_vnni_x3) return qmm_avx512;
  if (kernel == qmm_avx2_int8 || kernel == qmm_avx2_int8_x3) return qmm_avx2;
#endif
  return kernel;
}

void run_qmm(const QmmArgs& a, Kernel kernel, int row_threads = 0) {
  // the int8 kernels take planar codes in whole chunks of 64 only
  if (qmm_planar(a.bits) && a.K % 64) kernel = float_kernel(kernel);
  // the kernel's form of x (int8 with the sums of the rounded x, or floats with their group
  // sums, permuted by its prep), then blocks of output columns over the pool
  QmmArgs ai = a;
  std::vector<int8_t> xq;
  std::vector<float> xd;
  std::unique_ptr<float[]> xp;  // not zeroed: prep writes every value the kernel reads
  if (Quant quant = quant_for(kernel)) {
    xq.resize(size_t(a.M) * planes_for(kernel) * a.K);
    xd.resize(size_t(a.M) * (a.K / a.group_size));
    quant(a, xq.data(), xd.data(), const_cast<float*>(a.xsum));
    ai.xq = xq.data();
    ai.xd = xd.data();
  } else {
    group_sums(a);
    const Prep prep = prep_for(kernel);
    xp.reset(new float[size_t(a.M) * qmm_xp_stride(a.K)]);
    prep(a, xp.get());
    ai.xp = xp.get();
  }
  const QmmArgs& args = ai;
  const double work = double(a.N) * a.K * (a.M + 4);  // weight unpacking costs ~4 rows
  int threads = num_threads();
  if (work < 1.5e6) threads = 1;  // waking threads costs more than it saves
  // One row (decode at batch 1): one thread. The quantized weights are small enough that a
  // second thread gains little, and under `afm serve` it takes the core the engine's Python
  // needs to build the next step, which overlaps only the step's last ops (MLX's CPU
  // async_eval runs a few dozen ops ahead of compute): measured 4-bit c=1 +10-20%, 8-bit +5-15%.
  // A large one-row product (an LM head: 49152 x 576 is 1.3-2.6 ms on one thread) still pays
  // for a second thread: 2642 -> 1837 us for SmolLM2's 8-bit head, timed alone on this VM.
  if (a.M == 1 && double(a.N) * a.K < 8e6)
    threads = std::min(threads, std::max(1, row_threads > 0 ? row_threads : g_row_threads.load()));
  // output columns per task: 16, or for a few rows (the weights stream from memory) runs of at
  // least 16 that split the columns into ~8 per thread, so that each thread reads long
  // stretches of consecutive weight rows (the prefetchers follow them) rather than 16 rows here
  // and 16 there between the other thread's
  int NB = 16;
  if (a.M <= 4 && threads > 1) NB = std::max(16, (a.N / (8 * threads) + 15) / 16 * 16);
  int ntasks = (a.N + NB - 1) / NB;
  pool().run(ntasks, threads, [&](int t) {
    int n0 = t * NB, n1 = std::min(a.N, n0 + NB);
    kernel(args, n0, n1);
  });
}

}  // namespace

std::vector<std::string> supported_isas() {
  std::vector<std::string> out;
  for (Isa i : {Isa::Avx512, Isa::Avx512x256, Isa::Avx2, Isa::Portable})
    if (cpu_has(i)) out.push_back(isa_name(i));
  return out;
}

std::vector<std::string> int8_isas() {
  std::vector<std::string> out;
  for (Isa i : {Isa::VnniInt8, Isa::Avx2Int8})
    if (cpu_has(i)) out.push_back(isa_name(i));
  return out;
}

std::vector<std::string> plane_isas() {
  std::vector<std::string> out;
  for (Isa i : {Isa::VnniInt8x3, Isa::Avx2Int8x3})
    if (cpu_has(i)) out.push_back(isa_name(i));
  return out;
}

Isa resolve_isa(const std::string& isa) {
  return resolve(parse_isa(isa));
}

std::string default_isa() {
  return isa_name(resolve(Isa::Auto));
}

std::string auto_isa(int bits) {
  return isa_name(resolve(Isa::Auto, bits));
}

namespace {

// A path named for an auto slot at `bits`: checked against the bits and this CPU.
Isa slot_isa(int bits, const std::string& isa) {
  if (bits != 4 && bits != 8 && !qmm_planar(bits))
    throw std::invalid_argument("afm_qmm: bits must be 4, 5, 6 or 8");
  const Isa i = parse_isa(isa);
  if (i != Isa::Auto && !cpu_has(i))
    throw std::invalid_argument(std::string("afm_qmm: this CPU lacks ") + isa_name(i));
  return i;
}

}  // namespace

void set_auto_isa(int bits, const std::string& isa) {
  auto_slot(bits).store(int(slot_isa(bits, isa)));
  row_slot(bits).store(0);  // a new choice for all rows replaces the one-row one
}

std::string row_isa(int bits) {
  return isa_name(resolve(Isa::Auto, bits, 1));
}

void set_row_isa(int bits, const std::string& isa) {
  row_slot(bits).store(int(slot_isa(bits, isa)));
}

void set_num_threads(int n) {
  g_threads.store(n > 0 ? n : 0);
}

void set_environment(const std::string& isa, int threads) {
  store_env(EnvSettings{isa, threads});
}

void set_blas_rows(int rows) {
  g_blas_rows.store(std::max(0, rows));
}

int blas_rows() {
  return g_blas_rows.load();
}

void set_sgemm_rows(int rows) {
  g_sgemm_rows.store(std::max(0, rows));
}

int sgemm_rows() {
  return g_sgemm_rows.load();
}

void set_panel_rows(int rows) {
  g_panel_rows.store(std::max(0, rows));
}

int panel_rows() {
  return g_panel_rows.load();
}

bool set_blas_bf16(bool on) {
  const bool ok = on && amx_bf16_available();
  g_blas_bf16.store(ok);
  return ok;
}

bool blas_bf16() {
  return g_blas_bf16.load();
}

const AmxAttention* amx_attention_if_on() {
#ifdef AFM_HAS_AMX
  return g_blas_bf16.load() ? amx_attention() : nullptr;
#else
  return nullptr;
#endif
}

bool amx_bf16_available() {
#ifdef AFM_HAS_AMX
  return cpu_has(Isa::Avx512) && amx_bf16_ready();
#else
  return false;
#endif
}

void set_row_threads(int n) {
  g_row_threads.store(std::max(1, n));
}

int row_threads() {
  return g_row_threads.load();
}

void set_pool_spin_us(int us) {
  g_spin_us.store(std::max(0, us));
}

int pool_spin_us() {
  return g_spin_us.load();
}

HotPool::HotPool(int poll_us) {
  g_hot_us.store(std::max(0, poll_us));
  g_hot.fetch_add(1);
}

HotPool::~HotPool() {
  g_hot.fetch_sub(1);
}

namespace {

// One product on `kernel` as "auto" runs it: BLAS tiles from blas_at rows (0: never), else the
// kernel's row path over the pool (row_threads as in qmm_auto).
void run_auto(const QmmArgs& a, Kernel kernel, int blas_at, int row_threads) {
  if (tiles_for(a.M, a.K, blas_at, kernel))
    run_qmm_tiles(a, kernel);
  else
    run_qmm(a, kernel, row_threads);
}

}  // namespace

void qmm_auto(const float* x, int M, const uint32_t* w, const void* scales,
              const void* biases, bool half_scales, int N, int K, int group_size, int bits,
              float* xsum, float* out, int row_threads) {
  const Isa isa = resolve(Isa::Auto, bits, M);
  const bool blas = env_isa() == Isa::Auto;
  const int blas_at = blas ? g_blas_rows.load() : 0;
  QmmArgs a{x, w, nullptr, nullptr, xsum, out, M, N, K, group_size, bits};
  set_scales(a, scales, biases, half_scales);
  run_auto(a, kernel_for(isa), blas_at, row_threads);
}

std::vector<std::vector<double>> row_pass_ms(const std::vector<mx::array>& weights,
                                const std::vector<int>& group_sizes,
                                const std::vector<int>& bits,
                                const std::vector<std::string>& isas, int repeats) {
  const size_t n = group_sizes.size();
  if (weights.size() != 3 * n || bits.size() != n || n == 0)
    throw std::invalid_argument("afm_qmm row_pass_ms: w, scales, biases and sizes of each layer");
  struct Layer {
    QmmArgs a;
  };
  std::vector<Layer> layers;
  int kmax = 0, nmax = 0;
  for (size_t i = 0; i < n; ++i) {
    const mx::array &w = weights[3 * i], &sc = weights[3 * i + 1], &bi = weights[3 * i + 2];
    for (const mx::array* a : {&w, &sc, &bi})
      if (!a->is_available() || !a->flags().row_contiguous)
        throw std::invalid_argument("afm_qmm row_pass_ms: arrays must be evaluated");
    if (!qmm_format_ok(bits[i], group_sizes[i]) || w.dtype() != mx::uint32 || w.ndim() != 2 ||
        !scale_dtype_ok(sc, bi) ||
        sc.shape() != mx::Shape({w.shape(0), w.shape(1) * 32 / bits[i] / group_sizes[i]}) ||
        bi.shape() != sc.shape())
      throw std::invalid_argument("afm_qmm row_pass_ms: shapes of w, scales, biases");
    const int N = w.shape(0), K = w.shape(1) * 32 / bits[i];
    QmmArgs a{nullptr, w.data<uint32_t>(), nullptr, nullptr, nullptr, nullptr, 1, N, K,
              group_sizes[i], bits[i]};
    set_scales(a, sc.data<void>(), bi.data<void>(), sc.dtype() == mx::float16);
    layers.push_back({a});
    kmax = std::max(kmax, K);
    nmax = std::max(nmax, N);
  }
  std::vector<Kernel> kernels;
  for (const auto& isa : isas) kernels.push_back(kernel_for(resolve(parse_isa(isa))));
  std::vector<float> x(kmax), xsum(kmax), out(nmax);
  for (int k = 0; k < kmax; ++k) x[k] = std::sin(0.37f * float(k)) * (1.0f + float(k % 7));
  const int threads = num_threads();
  const int blas_at = env_isa() == Isa::Auto ? g_blas_rows.load() : 0;
  HotPool hot(50);  // the one-op step's default AFM_DECODE_STACK_POLL_US
  std::vector<std::vector<double>> rounds;
  for (int r = 0; r <= std::max(1, repeats); ++r) {
    std::vector<double> round(isas.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      for (Layer& l : layers) {
        QmmArgs a = l.a;
        a.x = x.data();
        a.xsum = xsum.data();
        a.out = out.data();
        run_auto(a, kernels[i], blas_at, threads);
      }
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      round[i] = ms;
    }
    if (r > 0) rounds.push_back(std::move(round));
  }
  return rounds;
}

void set_pool_generation(uint64_t generation) {
  pool().set_generation(generation);
}

uint64_t pool_generation() {
  return pool().generation();
}

int num_threads() {
  int n = g_threads.load();
  return n > 0 ? n : env_threads();
}

void parallel_for(int ntasks, int nthreads, const std::function<void(int)>& fn) {
  pool().run(ntasks, nthreads, fn);
}

mx::array quantized_matmul(
    const mx::array& x,
    const mx::array& w,
    const mx::array& scales,
    const mx::array& biases,
    int group_size,
    int bits,
    const std::string& isa_s) {
  if (!qmm_format_ok(bits, group_size))
    throw std::invalid_argument(
        "afm_qmm: bits and group_size must be 4 or 8 with 32, 64 or 128, 5 (planar) with 32, "
        "or 6 (planar) with 16");
  if (x.dtype() != mx::float32 || !scale_dtype_ok(scales, biases) || w.dtype() != mx::uint32)
    throw std::invalid_argument(
        "afm_qmm: x must be float32, scales and biases both float32 or both float16, w uint32");
  if (x.ndim() < 1 || w.ndim() != 2 || scales.ndim() != 2 || biases.ndim() != 2)
    throw std::invalid_argument("afm_qmm: x must be [..., K], w/scales/biases 2-D");
  const int K = x.shape(-1);
  const int N = w.shape(0);
  if (K % group_size != 0 || w.shape(1) * 32 / bits != K || scales.shape(0) != N ||
      scales.shape(1) != K / group_size || biases.shape() != scales.shape())
    throw std::invalid_argument("afm_qmm: shapes of x, w, scales and biases do not match");
  const Isa asked = parse_isa(isa_s);
  const int rows = K ? int(x.size() / K) : 0;
  Isa isa = resolve(asked, bits, rows);
  const bool blas = asked == Isa::Auto && env_isa() == Isa::Auto;
  auto s = mx::default_stream(mx::Device::cpu);
  // evaluated row-contiguous arrays (weights, usually) go in as they are: fewer graph nodes
  auto row_major = [&](const mx::array& a) {
    return a.is_available() && a.flags().row_contiguous ? a : mx::contiguous(a, false, s);
  };
  // x goes in as it is, any shape [..., K] and strides (eval copies a strided one): a reshape
  // and a contiguous node per layer cost more than the rare copy
  auto out_shape = x.shape();
  out_shape.back() = N;
  return mx::array(
      out_shape,
      mx::float32,
      std::make_shared<QuantizedMatmulCPU>(s, group_size, bits, isa, blas),
      {x, row_major(w), row_major(scales), row_major(biases)});
}

mx::array quantized_rows(
    const mx::array& ids,
    const mx::array& w,
    const mx::array& scales,
    const mx::array& biases,
    int group_size,
    int bits) {
  if (!qmm_format_ok(bits, group_size))
    throw std::invalid_argument("afm_qmm: unsupported bits and group_size");
  if (!mx::issubdtype(ids.dtype(), mx::integer))
    throw std::invalid_argument("afm_qmm: ids must be integers");
  if (!scale_dtype_ok(scales, biases) || w.dtype() != mx::uint32)
    throw std::invalid_argument(
        "afm_qmm: scales and biases must be both float32 or both float16, and w uint32");
  if (w.ndim() != 2 || scales.ndim() != 2 || biases.shape() != scales.shape() ||
      scales.shape(0) != w.shape(0) || w.shape(1) * 32 / bits != scales.shape(1) * group_size)
    throw std::invalid_argument("afm_qmm: shapes of w, scales and biases do not match");
  auto s = mx::default_stream(mx::Device::cpu);
  auto row_major = [&](const mx::array& a) {
    return a.is_available() && a.flags().row_contiguous ? a : mx::contiguous(a, false, s);
  };
  auto shape = ids.shape();
  shape.push_back(int(w.shape(1) * 32 / bits));
  return mx::array(shape, mx::float32,
                   std::make_shared<QuantizedRowsCPU>(s, group_size, bits),
                   {row_major(ids), row_major(w), row_major(scales), row_major(biases)});
}

void QuantizedRowsCPU::eval_cpu(const std::vector<mx::array>& inputs,
                                std::vector<mx::array>& outputs) {
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  enc.dispatch([ids = weak(inputs[0]), w = weak(inputs[1]), sc = weak(inputs[2]),
                bi = weak(inputs[3]), out = weak(out), gs = group_size_, bits = bits_]() mutable {
    const int64_t n = int64_t(ids.size()), rows = w.shape(0);
    const int words = w.shape(1), k = words * 32 / bits, groups = k / gs;
    float* op = out.data<float>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t id;
      switch (ids.dtype()) {
        case mx::uint32: id = ids.data<uint32_t>()[i]; break;
        case mx::int32: id = ids.data<int32_t>()[i]; break;
        case mx::int64: id = ids.data<int64_t>()[i]; break;
        case mx::uint64: id = int64_t(ids.data<uint64_t>()[i]); break;
        case mx::int16: id = ids.data<int16_t>()[i]; break;
        case mx::uint16: id = ids.data<uint16_t>()[i]; break;
        case mx::int8: id = ids.data<int8_t>()[i]; break;
        default: id = ids.data<uint8_t>()[i]; break;
      }
      const int64_t raw = id;
      if (id < 0) id += rows;  // negative ids count from the end, like Python indexing
      if (id < 0 || id >= rows)  // a clamp would return another token's row without a word
        throw std::out_of_range("afm_qmm: quantized_rows: id " + std::to_string(raw) +
                                " is out of range for " + std::to_string(rows) + " rows");
      const uint32_t* wr = w.data<uint32_t>() + id * words;
      QmmArgs row{};
      set_scales(row, sc.data<void>(), bi.data<void>(), sc.dtype() == mx::float16);
      float* o = op + i * k;
      for (int g = 0; g < groups; ++g) {
        const float s = scale_at(row, size_t(id) * groups + g);
        const float b = bias_at(row, size_t(id) * groups + g);
        for (int j = g * gs; j < (g + 1) * gs; ++j) {
          const uint32_t q = qmm_code(reinterpret_cast<const uint8_t*>(wr), k, bits, j);
          o[j] = s * float(q) + b;
        }
      }
    }
  });
}

void QuantizedRowsCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmQuantizedRowsCPU runs on the CPU only");
}

mx::cpu::CommandEncoder& begin_eval(
    const mx::Stream& s,
    const std::vector<mx::array>& inputs,
    mx::array& out) {
  out.set_data(mx::allocator::malloc(out.nbytes()));
  auto& enc = mx::cpu::get_command_encoder(s);
  for (auto& a : inputs) enc.set_input_array(a);
  enc.set_output_array(out);
  return enc;
}

void copy_row_major(const mx::array& x, float* dst) {
  const int nd = int(x.ndim());
  const float* src = x.data<float>();
  if (nd == 0) {
    dst[0] = src[0];
    return;
  }
  std::vector<int64_t> idx(nd, 0);
  const auto& shape = x.shape();
  const auto& strides = x.strides();
  const int64_t inner = shape[nd - 1], inner_stride = strides[nd - 1];
  const int64_t rows = inner ? int64_t(x.size()) / inner : 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int d = 0; d < nd - 1; ++d) off += idx[d] * strides[d];
    for (int64_t i = 0; i < inner; ++i) dst[r * inner + i] = src[off + i * inner_stride];
    for (int d = nd - 2; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

void QuantizedMatmulCPU::eval_cpu(
    const std::vector<mx::array>& inputs,
    std::vector<mx::array>& outputs) {
  auto& x = inputs[0];
  auto& w = inputs[1];
  auto& scales = inputs[2];
  auto& biases = inputs[3];
  auto& out = outputs[0];
  auto& enc = begin_eval(stream(), inputs, out);
  const int K = x.shape(-1), N = w.shape(0);
  const int M = K ? int(x.size() / K) : 0;
  mx::array xsum({M, K / group_size_}, mx::float32, nullptr, {});
  xsum.set_data(mx::allocator::malloc(xsum.nbytes()));
  const bool strided = !x.flags().row_contiguous;
  mx::array xc = strided ? mx::array({M, K}, mx::float32, nullptr, {}) : x;
  if (strided) {
    xc.set_data(mx::allocator::malloc(xc.nbytes()));
    enc.add_temporary(xc);
  }
  QmmArgs a{xc.data<float>(), w.data<uint32_t>(), nullptr, nullptr,
            xsum.data<float>(), out.data<float>(), M, N, K, group_size_, bits_};
  set_scales(a, scales.data<void>(), biases.data<void>(), scales.dtype() == mx::float16);
  enc.add_temporary(xsum);
  Kernel kernel = kernel_for(isa_);
  const int blas_at = blas_ ? g_blas_rows.load() : 0;
  const bool tiles = tiles_for(M, K, blas_at, kernel);
  enc.dispatch([a, kernel, strided, tiles, x = weak(x)]() {
    if (strided) copy_row_major(x, const_cast<float*>(a.x));
    if (tiles)
      run_qmm_tiles(a, kernel);
    else
      run_qmm(a, kernel);
  });
}

void QuantizedMatmulCPU::eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) {
  throw std::runtime_error("AfmQuantizedMatmulCPU runs on the CPU only");
}

bool QuantizedMatmulCPU::is_equivalent(const mx::Primitive& other) const {
  auto& o = static_cast<const QuantizedMatmulCPU&>(other);
  return group_size_ == o.group_size_ && bits_ == o.bits_ && isa_ == o.isa_ &&
      blas_ == o.blas_;
}

}  // namespace afm
