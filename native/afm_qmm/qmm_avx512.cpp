// AVX-512 (F, BW, VL) build of the kernel (compiled with -mavx512f -mavx512bw -mavx512vl -mfma
// -mf16c).
#define QMM_VL 16
#define QMM_LUT4 1  // 4-bit codes to floats by one permute (vpermps reads 4 index bits)
#define QMM_ENTRY qmm_avx512
#define QMM_PREP qmm_avx512_prep
#define QMM_DEQ qmm_avx512_deq
#define QMM_DEQ_BF16 qmm_avx512_deq_bf16
#define QMM_GEMM qmm_avx512_gemm
#define QMM_PANELS qmm_avx512_panels
#define QMM_PANEL_PACK qmm_avx512_pack_panel
#include "qmm_kernel.h"
