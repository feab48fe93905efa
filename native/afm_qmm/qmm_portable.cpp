// Portable build of the kernel (baseline ISA; GCC/Clang vector extensions lower to what exists).
#define QMM_VL 4
#define QMM_ENTRY qmm_portable
#define QMM_PREP qmm_portable_prep
#define QMM_DEQ qmm_portable_deq
#include "qmm_kernel.h"
