// AVX-512 VNNI build of the int8-activation kernel (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512vnni -mfma; 256-bit vectors only).
#define QMM_I8_VNNI 1
#define QMM_I8_ENTRY qmm_vnni
#define QMM_I8_QUANT qmm_vnni_quant
#include "qmm_int8.h"
