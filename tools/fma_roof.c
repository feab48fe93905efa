// The float32 multiply-add roof of one core: 12 independent FMA chains, 256- and 512-bit.
//   gcc -O2 -mavx512f -mfma tools/fma_roof.c -o /tmp/fma_roof && /tmp/fma_roof
// (run two at once for two cores; a CPU without AVX-512 stops at the 512-bit line). BENCHMARKS.md
// states each kernel's speed against this figure.
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  const long n = 200000000;
  __m256 a[12], b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) a[i] = _mm256_set1_ps((float)i);
  double t = now();
  for (long k = 0; k < n; k++)
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) a[i] = _mm256_fmadd_ps(a[i], b, c);
  t = now() - t;
  float s = 0;
  for (int i = 0; i < 12; i++) s += a[i][0];
  printf("256-bit FMA: %.1f GMAC/s on one thread (%g)\n", n * 12.0 * 8 / t / 1e9, s);
  fflush(stdout);
  __m512 z[12], zb = _mm512_set1_ps(0.999999f), zc = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) z[i] = _mm512_set1_ps((float)i);
  t = now();
  for (long k = 0; k < n / 2; k++)
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) z[i] = _mm512_fmadd_ps(z[i], zb, zc);
  t = now() - t;
  s = 0;
  for (int i = 0; i < 12; i++) s += z[i][0];
  printf("512-bit FMA: %.1f GMAC/s on one thread (%g)\n", n / 2 * 12.0 * 16 / t / 1e9, s);
  return 0;
}
