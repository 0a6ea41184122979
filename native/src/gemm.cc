#include "gemm.h"

#include "blas.h"
#include "threadPool.h"

namespace clawloop {

void gemmBatched(const float* a, const float* b, float* c, size_t batch, int m, int n, int k, bool transA, bool transB,
                 size_t strideA, size_t strideB, size_t strideC) {
  const int lda = transA ? m : k;
  const int ldb = transB ? k : n;
  auto one = [&](size_t i) {
    if (m == 1) {
      // A row vector times a matrix (decoding one token): GEMV streams B once, which GEMM's packing does not.
      // c = op(B)ᵀ·a: for B [k, n] row-major that is B transposed; for Bᵀ stored [n, k] it is B as stored.
      cblas_sgemv(CblasRowMajor, transB ? CblasNoTrans : CblasTrans, transB ? n : k, transB ? k : n, 1.0f, b + i * strideB, ldb,
                  a + i * strideA, 1, 0.0f, c + i * strideC, 1);
      return;
    }
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f,
                a + i * strideA, lda, b + i * strideB, ldb, 0.0f, c + i * strideC, n);
  };
  // Many small products (attention heads): one BLAS thread each, spread over our pool.
  // Few large ones: let BLAS thread inside each product. All of them tiny (a decoded token's
  // attention: tens of microseconds on one core): on the calling thread, where waking a worker
  // costs as much, and a worker the OS has descheduled would hold the caller up for a time slice.
  // (BLAS runs products this small on one thread whatever its setting, so the values are the same.)
  const double flops = 2.0 * m * n * k;
  if (flops * static_cast<double>(batch) < 1e6) {
    for (size_t i = 0; i < batch; i++) one(i);
    return;
  }
  if (batch >= 2 && flops < 4e6 && poolThreads() > 1) {
    int saved = blasGetThreads();
    blasSetThreads(1);
    parallelFor(batch, 1, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; i++) one(i);
    });
    blasSetThreads(saved);
    return;
  }
  for (size_t i = 0; i < batch; i++) one(i);
}

}  // namespace clawloop
