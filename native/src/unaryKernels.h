// Element-wise float32 maps, threaded.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace clawloop {

enum class Unary { Exp = 0, Sigmoid = 1, Square = 2, Sqrt = 3, Rsqrt = 4, Neg = 5 };

void unary(Unary op, const float* x, float* out, size_t n);

// exp(x) for float32, written so compilers vectorise the loop: Cody-Waite range reduction
// x = n·ln2 + r with |r| <= ln2/2, a degree-5 polynomial for e^r (Cephes' coefficients, about
// 1 ulp), and 2^n built in the exponent bits. Inputs are clamped to the float range, so
// exp(-1e9) gives 2^-126 (≈1e-38) instead of 0: harmless next to any term of order 1.
inline float expApprox(float x) {
  x = std::min(std::max(x, -87.33654f), 88.72283f);
  const float n = std::floor(x * 1.44269504088896341f + 0.5f);
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return e * scale;
}

}  // namespace clawloop
