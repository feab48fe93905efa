// AVX2 + FMA build of the kernel (this file is compiled with -mavx2 -mfma -mf16c).
#define QMM_VL 8
// one-row 4-bit codes by a mask alone (qvec_masked), over 2 weight rows at a time with one
// accumulator chain each: on AMD Zen 1 1.17-1.19x the shifted codes over 4 rows and two chains
// at one row (4864 x 896, 896 x 4864, 1536 x 576; either change alone 1.0-1.08x)
#define QMM_MASK4 1
#define QMM_FOLD_NR 2
#define QMM_FOLD_CHAINS 1
#define QMM_ENTRY qmm_avx2
#define QMM_PREP qmm_avx2_prep
#define QMM_DEQ qmm_avx2_deq
#include "qmm_kernel.h"
