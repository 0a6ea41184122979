// The one BLAS routine ClawLoop needs, from OpenBLAS (Linux) or Accelerate (macOS).
#pragma once

#if defined(CLAWLOOP_ACCELERATE)
#include <Accelerate/Accelerate.h>
inline void blasSetThreads(int) {}
inline int blasGetThreads() { return 0; }
#else
#include <cblas.h>
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}
inline void blasSetThreads(int n) { openblas_set_num_threads(n); }
inline int blasGetThreads() { return openblas_get_num_threads(); }
#endif
