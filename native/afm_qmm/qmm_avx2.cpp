// AVX2 + FMA build of the kernel (this file is compiled with -mavx2 -mfma -mf16c).
#define QMM_VL 8
#define QMM_ENTRY qmm_avx2
#define QMM_PREP qmm_avx2_prep
#define QMM_DEQ qmm_avx2_deq
#include "qmm_kernel.h"
