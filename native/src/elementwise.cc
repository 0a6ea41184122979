#include "elementwise.h"

#include <algorithm>
#include <cmath>

#include "threadPool.h"
#include "unaryKernels.h"

namespace clawloop {
namespace {

template <Binary op>
inline float apply(float x, float y) {
  if constexpr (op == Binary::Add) return x + y;
  if constexpr (op == Binary::Sub) return x - y;
  if constexpr (op == Binary::Mul) return x * y;
  return x / y;
}

// Each pattern is a loop the compiler vectorises; work is split by rows (or by elements for Same
// and the scalar cases), so every thread writes its own contiguous part of out.
template <Binary op>
void run(Broadcast mode, const float* a, const float* b, float* out, size_t rows, size_t cols) {
  const size_t n = rows * cols;
  const size_t grain = 1 << 15;
  switch (mode) {
    case Broadcast::Same:
      parallelFor(n, grain, [&](size_t s, size_t e) {
        for (size_t i = s; i < e; i++) out[i] = apply<op>(a[i], b[i]);
      });
      break;
    case Broadcast::ScalarB: {
      const float y = b[0];
      parallelFor(n, grain, [&](size_t s, size_t e) {
        for (size_t i = s; i < e; i++) out[i] = apply<op>(a[i], y);
      });
      break;
    }
    case Broadcast::ScalarA: {
      const float x = a[0];
      parallelFor(n, grain, [&](size_t s, size_t e) {
        for (size_t i = s; i < e; i++) out[i] = apply<op>(x, b[i]);
      });
      break;
    }
    case Broadcast::RowB:
      parallelFor(rows, std::max<size_t>(1, grain / cols), [&](size_t s, size_t e) {
        for (size_t r = s; r < e; r++) {
          const float* x = a + r * cols;
          float* o = out + r * cols;
          for (size_t c = 0; c < cols; c++) o[c] = apply<op>(x[c], b[c]);
        }
      });
      break;
    case Broadcast::RowA:
      parallelFor(rows, std::max<size_t>(1, grain / cols), [&](size_t s, size_t e) {
        for (size_t r = s; r < e; r++) {
          const float* y = b + r * cols;
          float* o = out + r * cols;
          for (size_t c = 0; c < cols; c++) o[c] = apply<op>(a[c], y[c]);
        }
      });
      break;
    case Broadcast::ColB:
      parallelFor(rows, std::max<size_t>(1, grain / cols), [&](size_t s, size_t e) {
        for (size_t r = s; r < e; r++) {
          const float* x = a + r * cols;
          const float y = b[r];
          float* o = out + r * cols;
          for (size_t c = 0; c < cols; c++) o[c] = apply<op>(x[c], y);
        }
      });
      break;
    case Broadcast::ColA:
      parallelFor(rows, std::max<size_t>(1, grain / cols), [&](size_t s, size_t e) {
        for (size_t r = s; r < e; r++) {
          const float x = a[r];
          const float* y = b + r * cols;
          float* o = out + r * cols;
          for (size_t c = 0; c < cols; c++) o[c] = apply<op>(x, y[c]);
        }
      });
      break;
  }
}

}  // namespace

void binary(Binary op, Broadcast mode, const float* a, const float* b, float* out, size_t rows, size_t cols) {
  switch (op) {
    case Binary::Add:
      return run<Binary::Add>(mode, a, b, out, rows, cols);
    case Binary::Sub:
      return run<Binary::Sub>(mode, a, b, out, rows, cols);
    case Binary::Mul:
      return run<Binary::Mul>(mode, a, b, out, rows, cols);
    case Binary::Div:
      return run<Binary::Div>(mode, a, b, out, rows, cols);
  }
}

void reduceSum(const float* x, float* out, size_t outer, size_t axis, size_t inner) {
  if (inner == 1) {
    // Sums of contiguous runs: one per output, accumulated in 8 lanes so the loop vectorises.
    parallelFor(outer, std::max<size_t>(1, (1 << 15) / std::max<size_t>(axis, 1)), [&](size_t s, size_t e) {
      for (size_t o = s; o < e; o++) {
        const float* p = x + o * axis;
        float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t k = 0;
        for (; k + 8 <= axis; k += 8)
          for (int l = 0; l < 8; l++) lanes[l] += p[k + l];
        float total = 0;
        for (; k < axis; k++) total += p[k];
        for (int l = 0; l < 8; l++) total += lanes[l];
        out[o] = total;
      }
    });
    return;
  }
  // Column sums: split the inner range across threads, accumulate row after row (vectorised over i).
  for (size_t o = 0; o < outer; o++) {
    const float* base = x + o * axis * inner;
    float* dst = out + o * inner;
    parallelFor(inner, std::max<size_t>(64, (1 << 15) / std::max<size_t>(axis, 1)), [&](size_t s, size_t e) {
      for (size_t i = s; i < e; i++) dst[i] = 0;
      for (size_t k = 0; k < axis; k++) {
        const float* row = base + k * inner;
        for (size_t i = s; i < e; i++) dst[i] += row[i];
      }
    });
  }
}

void softmaxRows(const float* x, float* out, size_t rows, size_t cols) {
  parallelFor(rows, std::max<size_t>(1, (1 << 14) / std::max<size_t>(cols, 1)), [&](size_t s, size_t e) {
    for (size_t r = s; r < e; r++) {
      const float* p = x + r * cols;
      float* o = out + r * cols;
      // Separate loops (max, exp, sum, scale) so each one vectorises; reductions use 8 lanes.
      float mx8[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
      size_t c = 0;
      for (; c + 8 <= cols; c += 8)
        for (int l = 0; l < 8; l++) mx8[l] = std::max(mx8[l], p[c + l]);
      float mx = -INFINITY;
      for (; c < cols; c++) mx = std::max(mx, p[c]);
      for (int l = 0; l < 8; l++) mx = std::max(mx, mx8[l]);
      for (c = 0; c < cols; c++) o[c] = expApprox(p[c] - mx);
      float sum8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      float sum = 0;
      for (c = 0; c + 8 <= cols; c += 8)
        for (int l = 0; l < 8; l++) sum8[l] += o[c + l];
      for (; c < cols; c++) sum += o[c];
      for (int l = 0; l < 8; l++) sum += sum8[l];
      const float inv = 1.0f / sum;
      for (c = 0; c < cols; c++) o[c] *= inv;
    }
  });
}

}  // namespace clawloop
