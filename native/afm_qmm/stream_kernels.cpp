// Standalone timing of one-row (or few-row) quantized matmuls whose weights come from memory,
// not a cache: L distinct N x K layers per pass (pick L * N * K * bits / 8 well past the L3),
// the exact AVX2 float path against the int8 paths (AVX2, VNNI), one thread, the call split into 16-column
// tasks like the module's pool. Not part of the module; the figures behind the int8 path's
// one-weight-row tiles (BENCHMARKS.md, "Int8 activations on VNNI").
//
// Build (from the repository root, -O3 like the module):
//   g++ -O3 -std=c++17 -Inative/afm_qmm -c native/afm_qmm/qmm_avx2.cpp -mavx2 -mfma -o /tmp/q_avx2.o
//   g++ -O3 -std=c++17 -Inative/afm_qmm -c native/afm_qmm/qmm_avx2_int8.cpp -mavx2 -mfma \
//       -o /tmp/q_avx2_int8.o
//   g++ -O3 -std=c++17 -Inative/afm_qmm -c native/afm_qmm/qmm_vnni.cpp -mavx512f -mavx512bw \
//       -mavx512vl -mavx512vnni -mfma -o /tmp/q_vnni.o
//   g++ -O3 -std=c++17 -Inative/afm_qmm native/afm_qmm/stream_kernels.cpp /tmp/q_avx2.o \
//       /tmp/q_avx2_int8.o /tmp/q_vnni.o -o /tmp/stream_kernels
// Run: /tmp/stream_kernels BITS N K L [M]      e.g. /tmp/stream_kernels 8 3072 512 64
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "qmm_api.h"

namespace {

double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s BITS N K LAYERS [ROWS]\n", argv[0]);
    return 2;
  }
  const int bits = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]), L = atoi(argv[4]);
  const int M = argc > 5 ? atoi(argv[5]) : 1, gs = 64, G = K / gs;
  std::vector<std::vector<uint32_t>> w(L);
  std::vector<std::vector<float>> s(L), b(L);
  for (int l = 0; l < L; ++l) {
    w[l].resize(size_t(N) * K * bits / 32);
    for (auto& v : w[l]) v = uint32_t(rand()) * 2654435761u;
    s[l].assign(size_t(N) * G, 0.01f);
    b[l].assign(size_t(N) * G, -0.1f);
  }
  std::vector<float> x(size_t(M) * K), xs(size_t(M) * G), out(size_t(M) * N),
      xp(size_t(M) * qmm_xp_stride(K)), xd(size_t(M) * G);
  std::vector<int8_t> xq(size_t(M) * K);
  for (auto& v : x) v = rand() / float(RAND_MAX) - 0.5f;
  using Kernel = void (*)(const QmmArgs&, int, int);
  using Quant = void (*)(const QmmArgs&, int8_t*, float*, float*);
  const struct {
    const char* name;
    Kernel kernel;
    Quant quant;  // nullptr: the float path (its prep)
  } paths[] = {{"avx2", qmm_avx2, nullptr},
               {"avx2-int8", qmm_avx2_int8, qmm_avx2_int8_quant},
               {"vnni-int8", qmm_vnni, qmm_vnni_quant}};
  for (const auto& p : paths) {
    double best = 1e9;
    for (int rep = 0; rep < 15; ++rep) {
      const double t0 = now();
      for (int l = 0; l < L; ++l) {
        QmmArgs a{x.data(), w[l].data(), s[l].data(), b[l].data(), xs.data(), out.data(),
                  M, N, K, gs, bits};
        if (p.quant) {
          p.quant(a, xq.data(), xd.data(), xs.data());
          a.xq = xq.data();
          a.xd = xd.data();
        } else {
          qmm_avx2_prep(a, xp.data());
          a.xp = xp.data();
        }
        for (int n = 0; n < N; n += 16) p.kernel(a, n, std::min(N, n + 16));
      }
      best = std::min(best, now() - t0);
    }
    const double bytes = double(L) * N * K * bits / 8;
    printf("%s bits=%d %dx%d x%d layers, %d row(s): %.0f us per pass, %.1f GB/s of weights\n",
           p.name, bits, N, K, L, M, best * 1e6, bytes / best / 1e9);
  }
  return 0;
}
