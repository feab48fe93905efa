// AVX-512 (F, BW, VL) instructions on 256-bit vectors (compiled with -mavx512f -mavx512bw
// -mavx512vl -mfma -mf16c): the AVX2 kernel's tiles and order of x, with 4-bit codes turned
// into floats by one two-table permute (vpermt2ps reads an index's low 4 bits) instead of a
// mask and a convert. Where AVX-512 runs on 256-bit units (AMD Zen 4) it is the fastest exact
// path at one row: 10-16% faster than AVX2 on a 9728 x 896 4-bit product.
#define QMM_VL 8
#define QMM_LUT4 1
#define QMM_ENTRY qmm_avx512_256
#define QMM_PREP qmm_avx512_256_prep
#define QMM_DEQ qmm_avx512_256_deq
#include "qmm_kernel.h"
