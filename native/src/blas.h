// The BLAS routines ClawLoop needs, from OpenBLAS (Linux) or Accelerate (macOS).
#pragma once

#if defined(CLAWLOOP_ACCELERATE)
#include <Accelerate/Accelerate.h>
inline void blasSetThreads(int) {}
inline int blasGetThreads() { return 0; }
inline const char* blasCoreName() { return "accelerate"; }
#else
#include <cblas.h>
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char* openblas_get_corename(void);
}
inline void blasSetThreads(int n) { openblas_set_num_threads(n); }
inline int blasGetThreads() { return openblas_get_num_threads(); }
// The kernel set OpenBLAS picked for this CPU (e.g. Haswell, SkylakeX, Cooperlake, Zen).
inline const char* blasCoreName() { return openblas_get_corename(); }
#endif
