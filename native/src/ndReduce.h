// Reductions over the middle axis of x viewed as [outer, axis, inner], softmax over rows, top-k.
#pragma once
#include <cstddef>
#include <cstdint>

namespace clawloop {

enum class NdReduce : int32_t { Sum = 0, Mean = 1, Max = 2, Min = 3, ArgMax = 4, ArgMin = 5, Prod = 6, Any = 7, All = 8 };

// out[o·inner + i] = reduce_k x[(o·axis + k)·inner + i]. ArgMax/ArgMin write int32 indices (the
// first one on ties); Any/All read and write int32 0/1.
void reduceF32(NdReduce op, const float* x, void* out, size_t outer, size_t axis, size_t inner);
void reduceI32(NdReduce op, const int32_t* x, int32_t* out, size_t outer, size_t axis, size_t inner);

// The k largest entries of each row of x [rows, cols], largest first (ties: lower index first).
void topK(const float* x, size_t rows, size_t cols, size_t k, float* values, int32_t* indices);

}  // namespace clawloop
