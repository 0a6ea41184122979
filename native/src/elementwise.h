// Element-wise binary ops with the broadcast patterns a transformer uses, sums over one run of
// axes, and a softmax over the last axis; all threaded.
#pragma once
#include <cstddef>

namespace clawloop {

enum class Binary { Add = 0, Sub = 1, Mul = 2, Div = 3 };

// How b (or a) broadcasts against the other operand, viewed as [rows, cols]:
//   Same: both [rows·cols]; ScalarB / ScalarA: one side has one element;
//   RowB / RowA: one side is [cols] (repeated for every row);
//   ColB / ColA: one side is [rows] (repeated along each row).
enum class Broadcast { Same = 0, ScalarB = 1, ScalarA = 2, RowB = 3, RowA = 4, ColB = 5, ColA = 6 };

void binary(Binary op, Broadcast mode, const float* a, const float* b, float* out, size_t rows, size_t cols);

// out[o·inner + i] = Σ_k x[(o·axis + k)·inner + i]
void reduceSum(const float* x, float* out, size_t outer, size_t axis, size_t inner);

// Softmax over the last axis of x viewed as [rows, cols].
void softmaxRows(const float* x, float* out, size_t rows, size_t cols);

}  // namespace clawloop
