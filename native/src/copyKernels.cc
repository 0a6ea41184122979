#include "copyKernels.h"

#include <cstring>

#include "threadPool.h"

namespace clawloop {

int64_t gather4(const uint32_t* x, const int32_t* idx, size_t numIdx, size_t outer, size_t axisSize, size_t inner, uint32_t* out) {
  for (size_t i = 0; i < numIdx; i++) {
    if (idx[i] < 0 || static_cast<size_t>(idx[i]) >= axisSize) return static_cast<int64_t>(i);
  }
  const size_t rowBytes = inner * sizeof(uint32_t);
  parallelFor(outer * numIdx, 1024, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; r++) {
      const size_t o = r / numIdx, i = r % numIdx;
      std::memcpy(out + r * inner, x + (o * axisSize + idx[i]) * inner, rowBytes);
    }
  });
  return -1;
}

void concat4(const uint32_t* const* inputs, const size_t* block, size_t numInputs, size_t outer, uint32_t* out) {
  size_t row = 0;
  for (size_t i = 0; i < numInputs; i++) row += block[i];
  parallelFor(outer, 64, [&](size_t begin, size_t end) {
    for (size_t o = begin; o < end; o++) {
      uint32_t* dst = out + o * row;
      for (size_t i = 0; i < numInputs; i++) {
        std::memcpy(dst, inputs[i] + o * block[i], block[i] * sizeof(uint32_t));
        dst += block[i];
      }
    }
  });
}

void split4(const uint32_t* x, uint32_t* const* outputs, const size_t* block, size_t numOutputs, size_t outer) {
  size_t row = 0;
  for (size_t i = 0; i < numOutputs; i++) row += block[i];
  parallelFor(outer, 64, [&](size_t begin, size_t end) {
    for (size_t o = begin; o < end; o++) {
      const uint32_t* src = x + o * row;
      for (size_t i = 0; i < numOutputs; i++) {
        std::memcpy(outputs[i] + o * block[i], src, block[i] * sizeof(uint32_t));
        src += block[i];
      }
    }
  });
}

}  // namespace clawloop
