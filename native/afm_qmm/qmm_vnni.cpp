// AVX-512 VNNI build of the int8-activation kernel (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512vnni -mfma; 256-bit vectors only).
#define QMM_I8_VNNI 1
#define QMM_I8_ENTRY qmm_vnni
#define QMM_I8_QUANT qmm_vnni_quant
#define QMM_I8_ENTRY3 qmm_vnni_x3
#define QMM_I8_QUANT3 qmm_vnni_quant3
#include "qmm_int8.h"
