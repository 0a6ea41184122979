#include "memBandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>

#include "threadPool.h"

namespace clawloop {

Bandwidth readBandwidth(size_t bytes, int passes) {
  const size_t words = std::max<size_t>(bytes / 8, 1024) / 64 * 64;
  std::unique_ptr<uint64_t[]> buf(new (std::nothrow) uint64_t[words]);
  if (!buf) return {0, words * 8, poolThreads()};
  uint64_t* data = buf.get();
  // Written by the threads that will read it, so on a multi-socket machine each part sits on its
  // reader's node, and no page is left unmapped (a read of one would cost a fault, not bandwidth).
  parallelFor(words, 1 << 16, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) data[i] = i * 0x9e3779b97f4a7c15ull;
  });
  std::atomic<uint64_t> sink{0};
  double best = 0;
  for (int p = 0; p < std::max(passes, 1); p++) {
    const auto t0 = std::chrono::steady_clock::now();
    parallelFor(words, 1 << 16, [&](size_t s, size_t e) {
      // Eight independent integer sums: the compiler vectorises them at any -march (integer
      // addition may be reordered), so the loop is bound by memory, not by adds.
      uint64_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (size_t i = s; i + 8 <= e; i += 8)
        for (int u = 0; u < 8; u++) acc[u] += data[i + u];
      uint64_t t = 0;
      for (int u = 0; u < 8; u++) t += acc[u];
      sink.fetch_add(t, std::memory_order_relaxed);
    }, 8);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, static_cast<double>(words * 8) / s);
  }
  return {best, words * 8, poolThreads()};
}

}  // namespace clawloop
