// Fast-op kernels, AVX2 + FMA path (compiled with -mavx2 -mfma).
#define AFM_FAST_NS fast_avx2
#include "fast_kernels.h"
