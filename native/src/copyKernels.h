// Data-movement kernels on 4-byte elements (float32 or int32): gather rows, concatenate and split
// along an axis. Shapes are reduced to [outer, axis, inner] by the caller.
#pragma once
#include <cstddef>
#include <cstdint>

namespace clawloop {

// out[o, i, :] = x[o, idx[i], :] for o < outer, i < numIdx; rows of `inner` elements.
// Returns the position of the first index outside [0, axisSize), or -1 when all are valid.
int64_t gather4(const uint32_t* x, const int32_t* idx, size_t numIdx, size_t outer, size_t axisSize, size_t inner, uint32_t* out);

// For each o < outer, the inputs' blocks (block[i] elements each) follow one another in out.
void concat4(const uint32_t* const* inputs, const size_t* block, size_t numInputs, size_t outer, uint32_t* out);

// The inverse of concat4.
void split4(const uint32_t* x, uint32_t* const* outputs, const size_t* block, size_t numOutputs, size_t outer);

}  // namespace clawloop
