// The machine's memory read bandwidth, measured: what decoding, which streams every weight once a
// token, can at best reach. benchLarge prints it beside decode's streamed GB/s.
#pragma once
#include <cstddef>

namespace clawloop {

struct Bandwidth {
  double bytesPerSecond;  // the best of the passes
  size_t bytes;           // the buffer read each pass
  int threads;            // the kernel threads that read it
};

// Reads a freshly written buffer of `bytes` (make it several times the last-level cache) `passes`
// times with the kernel threads, in contiguous chunks as halfGemv reads weights, and times each pass.
// Returns bytesPerSecond 0 when the buffer cannot be allocated.
Bandwidth readBandwidth(size_t bytes, int passes);

}  // namespace clawloop
