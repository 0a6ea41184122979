// The per-CPU-family kernels behind halfGemv (halfGemv.h). Each computes the rows [j0, j1) of W
// against every row of x; the dispatcher splits W's rows over threads.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tensorBuf.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define CLAWLOOP_X86_KERNELS 1
// vdpbf16ps intrinsics: GCC 10 and clang 9 onwards.
#if (defined(__clang__) && __clang_major__ >= 9) || (!defined(__clang__) && __GNUC__ >= 10)
#define CLAWLOOP_AVX512BF16_KERNEL 1
#endif
#endif

namespace clawloop {

struct GemvJob {
  const float* x;       // [m, k] activations
  const uint16_t* xbf;  // [m, k] the activations rounded to bfloat16 (the avx512bf16 kernel only)
  const uint16_t* w;    // [n, k] weights, BF16 or F16
  Kind kind;
  int m, k;
  size_t n;
  float* y;  // [m, n]
};

void gemvRowsScalar(const GemvJob& g, size_t j0, size_t j1);

// A tile's R rows of W are R·k contiguous values, and the next tile's follow them. The hardware
// prefetchers stop at every 4 KB page, and a BF16 row of 2,048 values is exactly one page, so a
// tile reading R rows at once starts R streams that each run out after a page. Instead, while
// a tile consumes `done` bytes of its own rows, the kernel asks for the same share of the next
// tile, one cache line a row step: a single linear stream one tile ahead. (A prefetch never
// faults, so the last tile's reach past W's end is harmless.)
inline void prefetchNextTile(const uint16_t* w, size_t tileValues, size_t doneBytes, int lines) {
  const char* p = reinterpret_cast<const char*>(w + tileValues) + doneBytes;
  for (int l = 0; l < lines; l++) __builtin_prefetch(p + 64 * l, 0, 3);
}
#if defined(CLAWLOOP_X86_KERNELS)
void gemvRowsAvx2(const GemvJob& g, size_t j0, size_t j1);
void gemvRowsAvx512(const GemvJob& g, size_t j0, size_t j1);
#endif
#if defined(CLAWLOOP_AVX512BF16_KERNEL)
void gemvRowsAvx512Bf16(const GemvJob& g, size_t j0, size_t j1);
#endif

}  // namespace clawloop
