// Fast-op kernels, portable path.
#define AFM_FAST_NS fast_portable
#include "fast_kernels.h"
