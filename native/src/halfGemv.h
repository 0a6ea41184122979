// Decoding's matrix-vector products with 16-bit weights: y [m, n] = x [m, k] · Wᵀ for W [n, k]
// stored bfloat16 or IEEE half (a checkpoint's frozen weights, often memory-mapped) and a few rows
// of float32 activations (m = 1 when decoding one sequence). Each weight is read once, straight
// from its 16-bit storage, so the product runs at the speed memory streams W.
//
// One binary carries a kernel per CPU family, each compiled for its instruction set with
// function-level target attributes whatever -march the addon is built with, and the CPU's cpuid
// picks one at run time:
//   avx512bf16  vdpbf16ps: activations rounded to bfloat16, products accumulated in float32 (as
//               PyTorch's and llama.cpp's BF16 paths); BF16 weights only
//   avx512f     weights widened 16 at a time in registers (shift for BF16, vcvtph2ps for F16), FMA
//   avx2        the same 8 at a time (AVX2 + FMA, and F16C for F16 weights)
//   scalar      any CPU (and arm64 today)
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tensorBuf.h"

namespace clawloop {

enum class GemvPath : int { Scalar = 0, Avx2 = 1, Avx512 = 2, Avx512Bf16 = 3 };
constexpr int kGemvPaths = 4;

// "scalar", "avx2", "avx512f", "avx512bf16".
const char* gemvPathName(GemvPath p);
// False when `name` is none of those.
bool parseGemvPath(const std::string& name, GemvPath* out);

// Why `p` cannot multiply weights of `kind` in this process (the CPU or the OS lacks a feature,
// or the compiler that built the addon had no support for it), or "" when it can.
std::string gemvUnavailable(GemvPath p, Kind kind);

// The path products with weights of `kind` use: the fastest available, unless setGemvPath chose.
GemvPath gemvPath(Kind kind);
// Chooses the path for `kind`; returns false (changing nothing) when it is unavailable.
bool setGemvPath(Kind kind, GemvPath p);

// y [m, n] = x [m, k] · Wᵀ with W [n, k] of `kind` (BF16 or F16), through `p` (available, see
// gemvUnavailable), rows of W spread over the kernel threads. Any m works; it is meant for few.
void halfGemv(GemvPath p, const float* x, const uint16_t* w, Kind kind, float* y, int m, size_t n, int k);

// One weight matrix of halfGemvMany: W [n, k] and its product y [m, n].
struct GemvPart {
  const uint16_t* w;
  size_t n;
  float* y;
};

// halfGemv for several weight matrices of one `kind` that multiply the same x (a layer's query,
// key and value projections; its gate and up projections): one pass of the kernel threads over
// all their rows, so the threads wake, share the work and wait once instead of once a matrix.
void halfGemvMany(GemvPath p, const float* x, const std::vector<GemvPart>& parts, Kind kind, int m, int k);

}  // namespace clawloop
