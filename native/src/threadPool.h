// A small persistent thread pool for ClawLoop's element-wise and fused kernels (BLAS has its own).
#pragma once
#include <cstddef>
#include <functional>

namespace clawloop {

// Sets the number of threads (>= 1) used by parallelFor. Not safe to call while another thread may
// be inside parallelFor: addon.cc calls it once per process (initThreads).
void setPoolThreads(int n);
int poolThreads();

// Runs fn(begin, end) over [0, n) split into contiguous chunks, `chunksPerThread` per thread
// (default one), and waits. Threads take chunks in turn until none is left, so with several per
// thread a thread the OS has descheduled holds up at most one small chunk, not a whole share.
// Runs inline when n is small (below `grain` items per thread) or the pool has one thread.
void parallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn, size_t chunksPerThread = 1);

}  // namespace clawloop
