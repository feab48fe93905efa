// Standalone check and timing of one kernel build, outside MLX and Python (not part of the
// module). Checks out = x @ dequantize(w).T against a double-precision reference (the
// tolerance of tests/test_qkernels.py: |out - ref| <= 2e-5 * sum|x * w|), or times one thread
// by its CPU time (the best of 60 short runs: steady on a shared machine).
//
// Build (from the repository root; KERNEL one of qmm_avx2 qmm_avx512 qmm_avx512_256
// qmm_portable, with that file and its -m flags) with -O3 like the module (at -O2 the tiles unroll differently and the
// timings mislead: QMM_FOLD_NR=1 looked 1.7x faster at one row, and is slower at -O3), e.g.
//   g++ -O3 -std=c++17 -mavx2 -mfma -mf16c -Inative/afm_qmm -DKERNEL=qmm_avx2
//       native/afm_qmm/check_kernels.cpp native/afm_qmm/qmm_avx2.cpp -o /tmp/qmm_check
// A QMM_VEC_ONLY build of a wider kernel checks AVX-512's lane logic on an AVX2 CPU: a file
// /tmp/v16.cpp holding the five lines "#define QMM_VL 16", "#define QMM_VEC_ONLY 1",
// "#define QMM_ENTRY qmm_v16", "#define QMM_PREP qmm_v16_prep" and '#include "qmm_kernel.h"',
// built as above with -DKERNEL=qmm_v16 and /tmp/v16.cpp in place of qmm_avx2.cpp.
// -DINT8 with KERNEL=qmm_vnni (qmm_vnni.cpp, -mavx512vnni as well) or qmm_avx2_int8 builds an
// int8-activation kernel; its reference takes x rounded as the kernel rounds it.
// Run: /tmp/qmm_check check      (every bits / group size / row count on odd shapes)
//      /tmp/qmm_check half       (float16 scales and biases give the float32 copy's bits)
//      /tmp/qmm_check time N K M BITS [GS]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "qmm_api.h"

#ifndef KERNEL
#error "define KERNEL (e.g. -DKERNEL=qmm_avx2)"
#endif
#define QMM_CAT2(a, b) a##b
#define QMM_CAT(a, b) QMM_CAT2(a, b)
void KERNEL(const QmmArgs& a, int n0, int n1);
#ifdef INT8
void QMM_CAT(KERNEL, _quant)(const QmmArgs& a, int8_t* xq, float* xd, float* xsum);
#else
void QMM_CAT(KERNEL, _prep)(const QmmArgs& a, float* xp);
#endif

namespace {

struct Case {
  int N, K, M, bits, gs;
  std::vector<uint32_t> w;
  std::vector<float> s, b, x, xs, out, xp, xd;
  std::vector<int8_t> xq;
  QmmArgs a{};

  Case(int N_, int K_, int M_, int bits_, int gs_) : N(N_), K(K_), M(M_), bits(bits_), gs(gs_) {
    const int G = K / gs;
    w.resize(size_t(N) * K * bits / 32);
    for (auto& v : w) v = uint32_t(rand()) * 2654435761u ^ uint32_t(rand());
    s.resize(size_t(N) * G);
    b.resize(size_t(N) * G);
    x.resize(size_t(M) * K);
    for (auto& v : s) v = 0.005f + 0.02f * (rand() / float(RAND_MAX));
    for (auto& v : b) v = -0.1f + 0.05f * (rand() / float(RAND_MAX));
    for (auto& v : x) v = rand() / float(RAND_MAX) - 0.5f;
    xs.resize(size_t(M) * G);
    for (int m = 0; m < M; ++m)
      for (int g = 0; g < G; ++g) {
        float t = 0.f;
        for (int k = 0; k < gs; ++k) t += x[size_t(m) * K + g * gs + k];
        xs[size_t(m) * G + g] = t;
      }
    out.resize(size_t(M) * N);
    xp.resize(size_t(M) * qmm_xp_stride(K));
    xq.resize(size_t(M) * K);
    xd.resize(size_t(M) * G);
    a = QmmArgs{x.data(), w.data(), s.data(), b.data(), xs.data(), out.data(), M, N, K, gs, bits};
  }

  // Scales and biases rounded to float16 values; returns their float16 copies.
  std::vector<uint16_t> halve(std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const _Float16 f = _Float16(v[i]);
      std::memcpy(&h[i], &f, sizeof f);
      v[i] = half_to_float(h[i]);
    }
    return h;
  }

  void run() {
#ifdef INT8
    QMM_CAT(KERNEL, _quant)(a, xq.data(), xd.data(), xs.data());
    a.xq = xq.data();
    a.xd = xd.data();
#else
    QMM_CAT(KERNEL, _prep)(a, xp.data());
    a.xp = xp.data();
#endif
    KERNEL(a, 0, N);
  }

  // x as the int8 kernels round it (per group, to multiples of max|x| / 127), or x itself.
  std::vector<float> x_used() const {
    std::vector<float> r = x;
#ifdef INT8
    for (int m = 0; m < M; ++m)
      for (int g = 0; g < K / gs; ++g) {
        float* v = r.data() + size_t(m) * K + size_t(g) * gs;
        float amax = 0.f;
        for (int k = 0; k < gs; ++k) amax = std::max(amax, std::fabs(v[k]));
        const float inv = amax > 0.f ? 127.f / amax : 0.f, d = amax / 127.f;
        for (int k = 0; k < gs; ++k) v[k] = std::nearbyint(v[k] * inv) * d;
      }
#endif
    return r;
  }

  double worst() const {  // max |out - ref| / sum|x * w|
    const uint8_t* wb = reinterpret_cast<const uint8_t*>(w.data());
    const int G = K / gs;
    const std::vector<float> xu = x_used();
    double bad = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double ref = 0, mag = 0;
        for (int k = 0; k < K; ++k) {
          const size_t i = size_t(n) * K + k;
          const int q = int(qmm_code(wb + size_t(n) * K * bits / 8, K, bits, k));
          const double wv = double(s[size_t(n) * G + k / gs]) * q + b[size_t(n) * G + k / gs];
          ref += wv * xu[size_t(m) * K + k];
          mag += std::fabs(wv * x[size_t(m) * K + k]);
        }
        bad = std::max(bad, std::fabs(out[size_t(m) * N + n] - ref) / mag);
      }
    return bad;
  }
};

double cpu_s() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "check")) {
    int cases = 0, fails = 0;
    for (int bits : {4, 8, 5, 6})
      for (int gs : {16, 32, 64, 128})
        for (int M : {1, 2, 3, 5, 8, 13, 32})
          for (int shape = 0; shape < 3; ++shape) {
            if (!qmm_format_ok(bits, gs)) continue;
            const int N = shape == 0 ? 13 : shape == 1 ? 40 : 7;
            const int K = shape == 0 ? gs * 3 : shape == 1 ? 512 : gs * 5;
#ifdef INT8
            if (qmm_planar(bits) && K % 64) continue;  // the caller runs the float path there
#endif
            Case c(N, K, M, bits, gs);
            c.run();
            const double bad = c.worst();
            ++cases;
            if (!(bad <= 2e-5)) {
              ++fails;
              printf("FAIL N=%d K=%d M=%d bits=%d gs=%d: %.2e\n", N, K, M, bits, gs, bad);
            }
          }
    printf("%d cases, %d failed\n", cases, fails);
    return fails ? 1 : 0;
  }
  if (argc >= 2 && !std::strcmp(argv[1], "half")) {
    int cases = 0, fails = 0;
    for (int bits : {4, 8, 5, 6})
      for (int gs : {16, 32, 64, 128})
        for (int M : {1, 2, 3, 5, 8, 13, 32})
          for (int K : {gs * 3, 512, gs * 5}) {
            if (!qmm_format_ok(bits, gs) || K % 32) continue;
#ifdef INT8
            if (qmm_planar(bits) && K % 64) continue;
#endif
            Case c(37, K, M, bits, gs);
            const std::vector<uint16_t> hs = c.halve(c.s), hb = c.halve(c.b);
            c.run();
            const std::vector<float> full = c.out;
            c.a.scales = c.a.biases = nullptr;
            c.a.hscales = hs.data();
            c.a.hbiases = hb.data();
            c.run();
            ++cases;
            if (std::memcmp(full.data(), c.out.data(), full.size() * sizeof(float))) {
              ++fails;
              printf("FAIL K=%d M=%d bits=%d gs=%d: float16 scales give other bits\n", K, M,
                     bits, gs);
            }
          }
    printf("%d cases, %d failed\n", cases, fails);
    return fails ? 1 : 0;
  }
  if (argc >= 6 && !std::strcmp(argv[1], "time")) {
    Case c(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc > 6 ? atoi(argv[6]) : 64);
    c.run();
    double best = 1e9;
    for (int rep = 0; rep < 60; ++rep) {
      int n = 0;
      const double t0 = cpu_s();
      double t;
      do {
        c.run();
        ++n;
        t = cpu_s() - t0;
      } while (t < 0.005);
      best = std::min(best, t / n);
    }
    const double us = best * 1e6, bytes = c.w.size() * 4.0 + c.s.size() * 8.0;
    printf("N=%d K=%d rows=%d bits=%d gs=%d: %.1f us, %.2f GB/s of weights, %.1f GFLOP/s\n",
           c.N, c.K, c.M, c.bits, c.gs, us, bytes / us / 1e3, 2.0 * c.M * c.N * c.K / us / 1e3);
    return 0;
  }
  fprintf(stderr, "usage: %s check | half | time N K M BITS [GS]\n", argv[0]);
  return 2;
}
