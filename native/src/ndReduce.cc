#include "ndReduce.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "elementwise.h"
#include "threadPool.h"

namespace clawloop {
namespace {

// One output per (o, i): a strided walk over k. Threads split the outputs.
template <typename T, typename R, typename Init, typename Step, typename Fin>
void reduceGeneric(const T* x, R* out, size_t outer, size_t axis, size_t inner, Init init, Step step, Fin fin) {
  parallelFor(outer * inner, std::max<size_t>(1, (1 << 14) / std::max<size_t>(axis, 1)), [&](size_t s, size_t e) {
    for (size_t j = s; j < e; j++) {
      const size_t o = j / inner, i = j % inner;
      const T* p = x + o * axis * inner + i;
      auto acc = init(p[0]);
      for (size_t k = 1; k < axis; k++) step(acc, p[k * inner], k);
      out[j] = fin(acc);
    }
  });
}

template <typename T>
struct ArgAcc {
  T best;
  int32_t at;
};

template <typename T, typename R>
bool reduceCommon(NdReduce op, const T* x, R* out, size_t outer, size_t axis, size_t inner) {
  const auto id = [](auto v) { return v; };
  switch (op) {
    case NdReduce::Max:
      reduceGeneric(x, out, outer, axis, inner, [](T v) { return v; }, [](T& a, T v, size_t) { a = (std::isnan(double(a)) || a >= v) ? a : v; }, id);
      return true;
    case NdReduce::Min:
      reduceGeneric(x, out, outer, axis, inner, [](T v) { return v; }, [](T& a, T v, size_t) { a = (std::isnan(double(a)) || a <= v) ? a : v; }, id);
      return true;
    case NdReduce::Prod:
      reduceGeneric(x, out, outer, axis, inner, [](T v) { return v; }, [](T& a, T v, size_t) { a *= v; }, id);
      return true;
    default:
      return false;
  }
}

template <typename T>
void argReduce(bool max, const T* x, int32_t* out, size_t outer, size_t axis, size_t inner) {
  reduceGeneric(
      x, out, outer, axis, inner, [](T v) { return ArgAcc<T>{v, 0}; },
      [max](ArgAcc<T>& a, T v, size_t k) {
        if (max ? v > a.best : v < a.best) a = ArgAcc<T>{v, static_cast<int32_t>(k)};
      },
      [](const ArgAcc<T>& a) { return a.at; });
}

}  // namespace

void reduceF32(NdReduce op, const float* x, void* out, size_t outer, size_t axis, size_t inner) {
  float* o = static_cast<float*>(out);
  if (axis == 0) {
    std::fill_n(o, outer * inner, op == NdReduce::Prod ? 1.0f : 0.0f);
    return;
  }
  if (op == NdReduce::Sum || op == NdReduce::Mean) {
    reduceSum(x, o, outer, axis, inner);
    if (op == NdReduce::Mean) {
      const float inv = 1.0f / static_cast<float>(axis);
      for (size_t j = 0; j < outer * inner; j++) o[j] *= inv;
    }
    return;
  }
  if (op == NdReduce::ArgMax || op == NdReduce::ArgMin)
    return argReduce(op == NdReduce::ArgMax, x, static_cast<int32_t*>(out), outer, axis, inner);
  reduceCommon(op, x, o, outer, axis, inner);
}

void reduceI32(NdReduce op, const int32_t* x, int32_t* out, size_t outer, size_t axis, size_t inner) {
  if (axis == 0) {
    std::fill_n(out, outer * inner, op == NdReduce::Prod || op == NdReduce::All ? 1 : 0);
    return;
  }
  const auto id = [](int64_t v) { return static_cast<int32_t>(v); };
  switch (op) {
    case NdReduce::Sum:
      return reduceGeneric(x, out, outer, axis, inner, [](int32_t v) { return int64_t(v); }, [](int64_t& a, int32_t v, size_t) { a += v; }, id);
    case NdReduce::Mean:
      return reduceGeneric(x, out, outer, axis, inner, [](int32_t v) { return int64_t(v); }, [](int64_t& a, int32_t v, size_t) { a += v; },
                           [axis](int64_t a) { return static_cast<int32_t>(a / static_cast<int64_t>(axis)); });
    case NdReduce::Any:
      return reduceGeneric(x, out, outer, axis, inner, [](int32_t v) { return int64_t(v != 0); }, [](int64_t& a, int32_t v, size_t) { a |= (v != 0); }, id);
    case NdReduce::All:
      return reduceGeneric(x, out, outer, axis, inner, [](int32_t v) { return int64_t(v != 0); }, [](int64_t& a, int32_t v, size_t) { a &= (v != 0); }, id);
    case NdReduce::ArgMax:
    case NdReduce::ArgMin:
      return argReduce(op == NdReduce::ArgMax, x, out, outer, axis, inner);
    default:
      reduceCommon(op, x, out, outer, axis, inner);
  }
}

void topK(const float* x, size_t rows, size_t cols, size_t k, float* values, int32_t* indices) {
  parallelFor(rows, 1, [&](size_t s, size_t e) {
    std::vector<int32_t> idx(cols);
    for (size_t r = s; r < e; r++) {
      const float* p = x + r * cols;
      std::iota(idx.begin(), idx.end(), 0);
      const auto better = [p](int32_t a, int32_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); };
      std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), better);
      for (size_t j = 0; j < k; j++) {
        values[r * k + j] = p[idx[j]];
        indices[r * k + j] = idx[j];
      }
    }
  });
}

}  // namespace clawloop
