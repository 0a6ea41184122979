#pragma once
#include <cstddef>

namespace clawloop {

// C[i] = op(A[i]) · op(B[i]) for i in [0, batch), row-major; op transposes when asked.
// Strides are in elements between consecutive matrices; a stride of 0 broadcasts one matrix.
void gemmBatched(const float* a, const float* b, float* c, size_t batch, int m, int n, int k, bool transA, bool transB,
                 size_t strideA, size_t strideB, size_t strideC);

}  // namespace clawloop
