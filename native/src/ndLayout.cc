#include "ndLayout.h"

#include <algorithm>
#include <cstring>

#include "threadPool.h"

namespace clawloop {

int64_t gatherHalf(const uint16_t* x, Kind kind, const int32_t* idx, size_t numIdx, size_t outer, size_t axisSize, size_t inner,
                   float* out) {
  for (size_t i = 0; i < numIdx; i++) {
    if (idx[i] < 0 || static_cast<size_t>(idx[i]) >= axisSize) return static_cast<int64_t>(i);
  }
  parallelFor(outer * numIdx, 64, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; r++) {
      const size_t o = r / numIdx, i = r % numIdx;
      widen(x + (o * axisSize + idx[i]) * inner, kind, out + r * inner, inner);
    }
  });
  return -1;
}

int64_t gatherNd4(const uint32_t* x, size_t xSize, const int32_t* idx, size_t numSlices, int nd, const int64_t* strides, size_t sliceSize,
                  uint32_t* out) {
  for (size_t s = 0; s < numSlices; s++) {
    int64_t off = 0;
    for (int d = 0; d < nd; d++) off += static_cast<int64_t>(idx[s * nd + d]) * strides[d];
    if (off < 0 || static_cast<size_t>(off) + sliceSize > xSize) return static_cast<int64_t>(s);
    std::memcpy(out + s * sliceSize, x + off, sliceSize * sizeof(uint32_t));
  }
  return -1;
}

int64_t scatterNdF32(const int32_t* idx, const float* updates, size_t numSlices, int nd, const int64_t* strides, size_t sliceSize,
                     float* out, size_t outSize) {
  std::fill_n(out, outSize, 0.0f);
  for (size_t s = 0; s < numSlices; s++) {
    int64_t off = 0;
    for (int d = 0; d < nd; d++) off += static_cast<int64_t>(idx[s * nd + d]) * strides[d];
    if (off < 0 || static_cast<size_t>(off) + sliceSize > outSize) return static_cast<int64_t>(s);
    float* dst = out + off;
    const float* src = updates + s * sliceSize;
    for (size_t j = 0; j < sliceSize; j++) dst[j] += src[j];
  }
  return -1;
}

void pad4(const uint32_t* x, const int64_t* shape, const int64_t* before, const int64_t* after, int rank, uint32_t value, uint32_t* out) {
  int64_t outShape[16], outStride[16];
  size_t outSize = 1, rows = 1;
  for (int d = rank - 1; d >= 0; d--) {
    outShape[d] = before[d] + shape[d] + after[d];
    outStride[d] = static_cast<int64_t>(outSize);
    outSize *= outShape[d];
  }
  fill4(out, outSize, value);
  if (rank == 0) {
    out[0] = x[0];
    return;
  }
  for (int d = 0; d < rank - 1; d++) rows *= shape[d];
  const int64_t inner = shape[rank - 1];
  parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)), [&](size_t s, size_t e) {
    for (size_t r = s; r < e; r++) {
      size_t rem = r;
      int64_t off = before[rank - 1];
      for (int d = rank - 2; d >= 0; d--) {
        off += (static_cast<int64_t>(rem % shape[d]) + before[d]) * outStride[d];
        rem /= shape[d];
      }
      std::memcpy(out + off, x + r * inner, inner * sizeof(uint32_t));
    }
  });
}

void fill4(uint32_t* out, size_t n, uint32_t value) {
  parallelFor(n, 1 << 16, [&](size_t s, size_t e) { std::fill(out + s, out + e, value); });
}

}  // namespace clawloop
