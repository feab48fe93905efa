// attn_panels.h on AVX2 + FMA (compiled with -mavx2 -mfma): 8 lanes, panels of 16 query rows,
// 6 x 2 accumulators (12 of the 16 registers, with two panel vectors and a broadcast).
#include "attn_panels.h"
#include "simd_exp.h"

namespace afm {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int VL = 8, NV = 2, RB = 6;
  static V load(const float* p) { return _mm256_load_ps(p); }
  static void store(float* p, V x) { _mm256_store_ps(p, x); }
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V exp(V x) { return exp8(x); }
  // s where key <= pos[lane], else low
  static V past(int key, const int* pos, V s, V low) {
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(key),
                                         _mm256_load_si256(reinterpret_cast<const __m256i*>(pos)));
    return _mm256_blendv_ps(s, low, _mm256_castsi256_ps(m));
  }
};

}  // namespace

void attend_tiled_avx2(const TiledArgs& a, int b, int g, int l0, int lqb) {
  AttnPanels<Avx2>::attend(a, b, g, l0, lqb);
}

int attend_panel_rows_avx2() {
  return AttnPanels<Avx2>::PR;
}

}  // namespace afm
