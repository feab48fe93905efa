// Portable build of the kernel (baseline ISA; GCC/Clang vector extensions lower to what exists).
#define QMM_VL 4
#define QMM_ENTRY qmm_portable
#include "qmm_kernel.h"
