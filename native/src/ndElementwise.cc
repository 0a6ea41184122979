#include "ndElementwise.h"

#include <algorithm>
#include <cmath>

#include "threadPool.h"
#include "unaryKernels.h"

namespace clawloop {
namespace {

constexpr size_t kGrain = 1 << 15;

// Runs out[row, j] = f(a[offA + j·sa], b[offB + j·sb]) over the output in flat element ranges
// (one per thread, whatever the row count: a same-shape op is a single long row); within a range,
// row by row, with the inner loop specialised on which side is contiguous or broadcast, so the
// compiler vectorises it.
template <typename A, typename R, typename F>
void forRows(const BroadcastPlan& p, const A* a, const A* b, R* out, F f) {
  const size_t inner = p.inner();
  const int64_t sa = p.strideA[p.rank - 1], sb = p.strideB[p.rank - 1];
  const size_t n = p.size();
  parallelFor(n, kGrain, [&](size_t s, size_t e) {
    while (s < e) {
      const size_t r = s / inner, j0 = s % inner, j1 = std::min(inner, j0 + (e - s));
      int64_t oa, ob;
      p.rowOffsets(r, &oa, &ob);
      const A* x = a + oa;
      const A* y = b + ob;
      R* o = out + r * inner;
      if (sa == 1 && sb == 1) {
        for (size_t j = j0; j < j1; j++) o[j] = f(x[j], y[j]);
      } else if (sa == 1 && sb == 0) {
        const A yv = y[0];
        for (size_t j = j0; j < j1; j++) o[j] = f(x[j], yv);
      } else if (sa == 0 && sb == 1) {
        const A xv = x[0];
        for (size_t j = j0; j < j1; j++) o[j] = f(xv, y[j]);
      } else {
        for (size_t j = j0; j < j1; j++) o[j] = f(x[j * sa], y[j * sb]);
      }
      s += j1 - j0;
    }
  });
}

template <typename T, typename R>
void dispatch(NdBinary op, const BroadcastPlan& p, const T* a, const T* b, R* out) {
  switch (op) {
    case NdBinary::Add: return forRows(p, a, b, out, [](T x, T y) { return R(x + y); });
    case NdBinary::Sub: return forRows(p, a, b, out, [](T x, T y) { return R(x - y); });
    case NdBinary::Mul: return forRows(p, a, b, out, [](T x, T y) { return R(x * y); });
    case NdBinary::Div: return forRows(p, a, b, out, [](T x, T y) { return R(x / y); });
    case NdBinary::Max: return forRows(p, a, b, out, [](T x, T y) { return R(std::isnan(double(x)) || x > y ? x : y); });
    case NdBinary::Min: return forRows(p, a, b, out, [](T x, T y) { return R(std::isnan(double(x)) || x < y ? x : y); });
    case NdBinary::SquaredDiff: return forRows(p, a, b, out, [](T x, T y) { return R((x - y) * (x - y)); });
    case NdBinary::Pow: return forRows(p, a, b, out, [](T x, T y) { return R(std::pow(double(x), double(y))); });
    default: return;
  }
}

template <typename T>
void compare(NdBinary op, const BroadcastPlan& p, const T* a, const T* b, int32_t* out) {
  switch (op) {
    case NdBinary::Equal: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x == y); });
    case NdBinary::NotEqual: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x != y); });
    case NdBinary::Greater: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x > y); });
    case NdBinary::GreaterEqual: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x >= y); });
    case NdBinary::Less: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x < y); });
    case NdBinary::LessEqual: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x <= y); });
    case NdBinary::LogicalAnd: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x != 0 && y != 0); });
    case NdBinary::LogicalOr: return forRows(p, a, b, out, [](T x, T y) { return int32_t(x != 0 || y != 0); });
    default: return;
  }
}

template <typename F>
void map(size_t n, F f) {
  parallelFor(n, kGrain, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) f(i);
  });
}

}  // namespace

void binaryF32(NdBinary op, const BroadcastPlan& p, const float* a, const float* b, void* out) {
  if (writesBool(op)) return compare(op, p, a, b, static_cast<int32_t*>(out));
  if (op == NdBinary::FloorDiv)  // int32, as tfjs's floorDiv
    return forRows(p, a, b, static_cast<int32_t*>(out), [](float x, float y) { return static_cast<int32_t>(std::floor(x / y)); });
  dispatch(op, p, a, b, static_cast<float*>(out));
}

void binaryI32(NdBinary op, const BroadcastPlan& p, const int32_t* a, const int32_t* b, int32_t* out) {
  if (writesBool(op)) return compare(op, p, a, b, out);
  if (op == NdBinary::FloorDiv || op == NdBinary::Div)
    return forRows(p, a, b, out, [](int32_t x, int32_t y) { return int32_t(std::floor(double(x) / double(y))); });
  dispatch(op, p, a, b, out);
}

void unaryF32(NdUnary op, const float* x, float* out, size_t n) {
  switch (op) {
    case NdUnary::Abs: return map(n, [&](size_t i) { out[i] = std::fabs(x[i]); });
    case NdUnary::Neg: return map(n, [&](size_t i) { out[i] = -x[i]; });
    case NdUnary::Exp: return map(n, [&](size_t i) { out[i] = expApprox(x[i]); });
    case NdUnary::Log: return map(n, [&](size_t i) { out[i] = std::log(x[i]); });
    case NdUnary::Sqrt: return map(n, [&](size_t i) { out[i] = std::sqrt(x[i]); });
    case NdUnary::Rsqrt: return map(n, [&](size_t i) { out[i] = 1.0f / std::sqrt(x[i]); });
    case NdUnary::Square: return map(n, [&](size_t i) { out[i] = x[i] * x[i]; });
    case NdUnary::Sigmoid: return map(n, [&](size_t i) { out[i] = 1.0f / (1.0f + expApprox(-x[i])); });
    case NdUnary::Sign: return map(n, [&](size_t i) { out[i] = x[i] > 0 ? 1.0f : x[i] < 0 ? -1.0f : 0.0f; });
    case NdUnary::Floor: return map(n, [&](size_t i) { out[i] = std::floor(x[i]); });
    case NdUnary::Ceil: return map(n, [&](size_t i) { out[i] = std::ceil(x[i]); });
    case NdUnary::Round: return map(n, [&](size_t i) { out[i] = std::nearbyint(x[i]); });
    case NdUnary::Tanh: return map(n, [&](size_t i) { out[i] = std::tanh(x[i]); });
    // log(1 + e^x) without overflow: max(x, 0) + log1p(e^−|x|).
    case NdUnary::Softplus: return map(n, [&](size_t i) { out[i] = std::max(x[i], 0.0f) + std::log1p(std::exp(-std::fabs(x[i]))); });
    case NdUnary::Relu: return map(n, [&](size_t i) { out[i] = x[i] > 0 ? x[i] : 0.0f; });
    case NdUnary::Log1p: return map(n, [&](size_t i) { out[i] = std::log1p(x[i]); });
    case NdUnary::Reciprocal: return map(n, [&](size_t i) { out[i] = 1.0f / x[i]; });
    case NdUnary::LogicalNot: return map(n, [&](size_t i) { out[i] = x[i] == 0 ? 1.0f : 0.0f; });
  }
}

bool unaryI32(NdUnary op, const int32_t* x, int32_t* out, size_t n) {
  switch (op) {
    case NdUnary::Abs: map(n, [&](size_t i) { out[i] = x[i] < 0 ? -x[i] : x[i]; }); return true;
    case NdUnary::Neg: map(n, [&](size_t i) { out[i] = -x[i]; }); return true;
    case NdUnary::Sign: map(n, [&](size_t i) { out[i] = x[i] > 0 ? 1 : x[i] < 0 ? -1 : 0; }); return true;
    case NdUnary::Square: map(n, [&](size_t i) { out[i] = x[i] * x[i]; }); return true;
    case NdUnary::LogicalNot: map(n, [&](size_t i) { out[i] = x[i] == 0; }); return true;
    case NdUnary::Relu: map(n, [&](size_t i) { out[i] = x[i] > 0 ? x[i] : 0; }); return true;
    default: return false;
  }
}

void select4(const int32_t* cond, size_t condSize, const uint32_t* t, const uint32_t* e, uint32_t* out, size_t n) {
  const size_t inner = condSize == n ? 1 : n / condSize;
  map(n, [&](size_t i) { out[i] = cond[i / inner] ? t[i] : e[i]; });
}

void castF32ToI32(const float* x, int32_t* out, size_t n, bool toBool) {
  if (toBool) return map(n, [&](size_t i) { out[i] = x[i] != 0; });
  map(n, [&](size_t i) { out[i] = std::isfinite(x[i]) ? static_cast<int32_t>(static_cast<int64_t>(x[i])) : 0; });
}

void castI32ToF32(const int32_t* x, float* out, size_t n) {
  map(n, [&](size_t i) { out[i] = static_cast<float>(x[i]); });
}

void castI32ToBool(const int32_t* x, int32_t* out, size_t n) {
  map(n, [&](size_t i) { out[i] = x[i] != 0; });
}

void clipF32(const float* x, float lo, float hi, float* out, size_t n) {
  map(n, [&](size_t i) { out[i] = std::isnan(x[i]) ? x[i] : std::min(hi, std::max(lo, x[i])); });
}

void addNF32(const float* const* inputs, size_t count, float* out, size_t n) {
  parallelFor(n, kGrain, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) out[i] = inputs[0][i];
    for (size_t k = 1; k < count; k++)
      for (size_t i = s; i < e; i++) out[i] += inputs[k][i];
  });
}

}  // namespace clawloop
