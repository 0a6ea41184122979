#include "ndPlan.h"

#include <algorithm>
#include <cstring>

#include "threadPool.h"

namespace clawloop {

bool planBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::vector<int64_t>& out, BroadcastPlan* plan) {
  const int rank = static_cast<int>(out.size());
  if (rank > kMaxRank || static_cast<int>(a.size()) > rank || static_cast<int>(b.size()) > rank) return false;
  int64_t sa[kMaxRank], sb[kMaxRank];
  int64_t accA = 1, accB = 1;
  for (int d = rank - 1; d >= 0; d--) {
    const int ia = d - (rank - static_cast<int>(a.size())), ib = d - (rank - static_cast<int>(b.size()));
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if ((da != out[d] && da != 1) || (db != out[d] && db != 1)) return false;
    sa[d] = da == out[d] && da != 1 ? accA : 0;
    sb[d] = db == out[d] && db != 1 ? accB : 0;
    accA *= da;
    accB *= db;
  }
  // Merge dim d into the next kept one when both operands stay linear across them; drop size-1 dims.
  int n = 0;
  int64_t shape[kMaxRank], pa[kMaxRank], pb[kMaxRank];
  for (int d = 0; d < rank; d++) {
    if (out[d] == 1) continue;
    if (n > 0 && pa[n - 1] == sa[d] * out[d] && pb[n - 1] == sb[d] * out[d]) {
      shape[n - 1] *= out[d];
      pa[n - 1] = sa[d];
      pb[n - 1] = sb[d];
      continue;
    }
    shape[n] = out[d];
    pa[n] = sa[d];
    pb[n] = sb[d];
    n++;
  }
  if (n == 0) {
    shape[0] = 1;
    pa[0] = pb[0] = 0;
    n = 1;
  }
  plan->rank = n;
  for (int d = 0; d < n; d++) {
    plan->shape[d] = shape[d];
    plan->strideA[d] = pa[d];
    plan->strideB[d] = pb[d];
  }
  return true;
}

void simplify(StridedView* v) {
  int n = 0;
  for (int d = 0; d < v->rank; d++) {
    if (v->shape[d] == 1) continue;
    if (n > 0 && v->stride[n - 1] == v->stride[d] * v->shape[d]) {
      v->shape[n - 1] *= v->shape[d];
      v->stride[n - 1] = v->stride[d];
      continue;
    }
    v->shape[n] = v->shape[d];
    v->stride[n] = v->stride[d];
    n++;
  }
  if (n == 0) {
    v->shape[0] = 1;
    v->stride[0] = 1;
    n = 1;
  }
  v->rank = n;
}

namespace {

template <typename T>
void copyRows(const T* src, const StridedView& v, T* dst) {
  const int r = v.rank;
  const int64_t inner = v.shape[r - 1], innerStride = v.stride[r - 1];
  size_t rows = 1;
  for (int d = 0; d < r - 1; d++) rows *= v.shape[d];
  // A swap of the last two dims (a batch of matrix transposes) goes tile by tile, so reads and
  // writes both stay in cache.
  const bool transpose2d = r >= 2 && innerStride != 1 && v.stride[r - 2] == 1;
  if (transpose2d) {
    const int64_t R = v.shape[r - 2], C = inner;  // dst is [batch, R, C]; src element (i, j) at i + j·innerStride
    const size_t batch = rows / R;
    parallelFor(batch * ((R + 31) / 32), 1, [&](size_t s, size_t e) {
      for (size_t t = s; t < e; t++) {
        const size_t bIdx = t / ((R + 31) / 32);
        const int64_t i0 = static_cast<int64_t>(t % ((R + 31) / 32)) * 32, i1 = std::min<int64_t>(R, i0 + 32);
        int64_t off = v.offset;
        size_t rem = bIdx;
        for (int d = r - 3; d >= 0; d--) {
          off += static_cast<int64_t>(rem % v.shape[d]) * v.stride[d];
          rem /= v.shape[d];
        }
        T* out = dst + bIdx * R * C;
        for (int64_t j0 = 0; j0 < C; j0 += 32) {
          const int64_t j1 = std::min<int64_t>(C, j0 + 32);
          for (int64_t i = i0; i < i1; i++)
            for (int64_t j = j0; j < j1; j++) out[i * C + j] = src[off + i + j * innerStride];
        }
      }
    });
    return;
  }
  parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)), [&](size_t s, size_t e) {
    for (size_t row = s; row < e; row++) {
      int64_t off = v.offset;
      size_t rem = row;
      for (int d = r - 2; d >= 0; d--) {
        off += static_cast<int64_t>(rem % v.shape[d]) * v.stride[d];
        rem /= v.shape[d];
      }
      T* out = dst + row * inner;
      if (innerStride == 1) {
        std::memcpy(out, src + off, inner * sizeof(T));
      } else {
        for (int64_t j = 0; j < inner; j++) out[j] = src[off + j * innerStride];
      }
    }
  });
}

}  // namespace

void stridedCopy(const void* src, const StridedView& view, void* dst, size_t elemBytes) {
  if (elemBytes == 2)
    copyRows(static_cast<const uint16_t*>(src), view, static_cast<uint16_t*>(dst));
  else
    copyRows(static_cast<const uint32_t*>(src), view, static_cast<uint32_t*>(dst));
}

}  // namespace clawloop
