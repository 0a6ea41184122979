// Indexing kernels of the native backend: gather rows from 16-bit weights (the embedding),
// gather/scatter by N-d indices, padding and filling.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tensorBuf.h"

namespace clawloop {

// out[o, i, :] = widen(x[o, idx[i], :]) for a 16-bit x (embedding lookups read BF16/F16 weights
// without a float32 copy of the table). Returns the position of the first index out of range, or -1.
int64_t gatherHalf(const uint16_t* x, Kind kind, const int32_t* idx, size_t numIdx, size_t outer, size_t axisSize, size_t inner,
                   float* out);

// out[s, :] = x[Σ_d idx[s, d]·strides[d] + :] for `numSlices` slices of `sliceSize` elements;
// returns the first slice whose index is out of range (>= limit), or -1.
int64_t gatherNd4(const uint32_t* x, size_t xSize, const int32_t* idx, size_t numSlices, int nd, const int64_t* strides, size_t sliceSize,
                  uint32_t* out);

// out = zeros, then out[Σ_d idx[s, d]·strides[d] + :] += updates[s, :] (duplicates add up).
int64_t scatterNdF32(const int32_t* idx, const float* updates, size_t numSlices, int nd, const int64_t* strides, size_t sliceSize,
                     float* out, size_t outSize);

// Copies x [shape] into the middle of out [shape + before + after], filling the border with value.
void pad4(const uint32_t* x, const int64_t* shape, const int64_t* before, const int64_t* after, int rank, uint32_t value, uint32_t* out);

void fill4(uint32_t* out, size_t n, uint32_t value);

}  // namespace clawloop
