// AVX2 build of the int8-activation kernel, for CPUs without VNNI (compiled with -mavx2 -mfma).
#define QMM_I8_VNNI 0
#define QMM_I8_ENTRY qmm_avx2_int8
#define QMM_I8_QUANT qmm_avx2_int8_quant
#define QMM_I8_ENTRY3 qmm_avx2_int8_x3
#define QMM_I8_QUANT3 qmm_avx2_int8_quant3
#include "qmm_int8.h"
