// A small persistent thread pool for ClawLoop's element-wise and fused kernels (BLAS has its own).
#pragma once
#include <cstddef>
#include <functional>

namespace clawloop {

// Sets the number of threads (>= 1) used by parallelFor. Not safe to call while another thread may
// be inside parallelFor: addon.cc calls it once per process (initThreads).
void setPoolThreads(int n);
int poolThreads();

// Runs fn(begin, end) over [0, n) split into contiguous chunks, one per thread, and waits.
// Runs inline when n is small (below `grain` items per thread) or the pool has one thread.
void parallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

}  // namespace clawloop
