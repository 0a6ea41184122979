// Element-wise kernels of the native backend on N-d tensors with NumPy broadcasting: arithmetic,
// comparisons and logic (bool is int32 0/1), maps, select, cast and clip; all threaded.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ndPlan.h"

namespace clawloop {

// Binary ops. Arithmetic ones keep the operands' type; comparisons and logic write int32 0/1, and
// FloorDiv writes int32 (as tfjs's floorDiv does).
enum class NdBinary : int32_t {
  Add = 0, Sub = 1, Mul = 2, Div = 3, Max = 4, Min = 5,
  Equal = 6, NotEqual = 7, Greater = 8, GreaterEqual = 9, Less = 10, LessEqual = 11,
  LogicalAnd = 12, LogicalOr = 13, FloorDiv = 14, SquaredDiff = 15, Pow = 16
};
inline bool writesBool(NdBinary op) { return op >= NdBinary::Equal && op <= NdBinary::LogicalOr; }

void binaryF32(NdBinary op, const BroadcastPlan& p, const float* a, const float* b, void* out);
void binaryI32(NdBinary op, const BroadcastPlan& p, const int32_t* a, const int32_t* b, int32_t* out);

// Maps. On int32 only Abs, Neg, Sign, Square and LogicalNot are defined.
enum class NdUnary : int32_t {
  Abs = 0, Neg = 1, Exp = 2, Log = 3, Sqrt = 4, Rsqrt = 5, Square = 6, Sigmoid = 7, Sign = 8,
  Floor = 9, Tanh = 10, Softplus = 11, LogicalNot = 12, Ceil = 13, Round = 14, Relu = 15, Log1p = 16, Reciprocal = 17
};
void unaryF32(NdUnary op, const float* x, float* out, size_t n);
bool unaryI32(NdUnary op, const int32_t* x, int32_t* out, size_t n);

// out = cond ? t : e; cond has t's size, or one value per row of `inner` elements.
void select4(const int32_t* cond, size_t condSize, const uint32_t* t, const uint32_t* e, uint32_t* out, size_t n);

// Casts between float32 and int32 (truncating toward zero, as JavaScript's Int32Array does), and
// to bool (x != 0).
void castF32ToI32(const float* x, int32_t* out, size_t n, bool toBool);
void castI32ToF32(const int32_t* x, float* out, size_t n);
void castI32ToBool(const int32_t* x, int32_t* out, size_t n);

void clipF32(const float* x, float lo, float hi, float* out, size_t n);

// out = Σ inputs (all of n elements).
void addNF32(const float* const* inputs, size_t count, float* out, size_t n);

}  // namespace clawloop
