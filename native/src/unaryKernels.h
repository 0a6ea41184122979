// Element-wise float32 maps, threaded.
#pragma once
#include <cstddef>

namespace clawloop {

enum class Unary { Exp = 0, Sigmoid = 1 };

void unary(Unary op, const float* x, float* out, size_t n);

}  // namespace clawloop
