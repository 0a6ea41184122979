#include "unaryKernels.h"

#include "threadPool.h"

namespace clawloop {

void unary(Unary op, const float* x, float* out, size_t n) {
  parallelFor(n, 1 << 16, [&](size_t begin, size_t end) {
    switch (op) {
      case Unary::Exp:
        for (size_t i = begin; i < end; i++) out[i] = expApprox(x[i]);
        break;
      case Unary::Sigmoid:
        for (size_t i = begin; i < end; i++) out[i] = 1.0f / (1.0f + expApprox(-x[i]));
        break;
      case Unary::Square:
        for (size_t i = begin; i < end; i++) out[i] = x[i] * x[i];
        break;
      case Unary::Sqrt:
        for (size_t i = begin; i < end; i++) out[i] = std::sqrt(x[i]);
        break;
      case Unary::Rsqrt:
        for (size_t i = begin; i < end; i++) out[i] = 1.0f / std::sqrt(x[i]);
        break;
      case Unary::Neg:
        for (size_t i = begin; i < end; i++) out[i] = -x[i];
        break;
    }
  });
}

}  // namespace clawloop
