// attn_panels.h on AVX-512 (compiled with -mavx512f -mavx512bw -mavx512vl -mfma): 16 lanes,
// panels of 48 query rows, 8 x 3 accumulators (24 of the 32 registers).
#include "attn_panels.h"
#include "simd_exp.h"

namespace afm {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int VL = 16, NV = 3, RB = 8;
  static V load(const float* p) { return _mm512_load_ps(p); }
  static void store(float* p, V x) { _mm512_store_ps(p, x); }
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V exp(V x) { return exp16(x); }
  // s where key <= pos[lane], else low
  static V past(int key, const int* pos, V s, V low) {
    const __mmask16 m = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(key), _mm512_load_si512(pos));
    return _mm512_mask_blend_ps(m, s, low);
  }
};

}  // namespace

void attend_tiled_avx512(const TiledArgs& a, int b, int g, int l0, int lqb) {
  AttnPanels<Avx512>::attend(a, b, g, l0, lqb);
}

int attend_panel_rows_avx512() {
  return AttnPanels<Avx512>::PR;
}

}  // namespace afm
