// N-d index plans: broadcasting two operands against an output shape, and strided copies, with
// adjacent dimensions merged wherever the memory layout allows, so inner loops run over long
// contiguous rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clawloop {

constexpr int kMaxRank = 8;

// Output of `rank` dims (shape), and for each operand the element stride of every dim (0 where
// it broadcasts). Dims are merged, so rank is as small as the layout allows (>= 1).
struct BroadcastPlan {
  int rank = 1;
  int64_t shape[kMaxRank] = {1};
  int64_t strideA[kMaxRank] = {0};
  int64_t strideB[kMaxRank] = {0};
  size_t size() const {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= shape[i];
    return n;
  }
  // Elements per row (the last dim) and rows (everything before it).
  size_t inner() const { return shape[rank - 1]; }
  size_t rows() const { return size() / (inner() ? inner() : 1); }
  // Offsets of row r's first element in a and b.
  void rowOffsets(size_t r, int64_t* offA, int64_t* offB) const {
    int64_t oa = 0, ob = 0;
    for (int d = rank - 2; d >= 0; d--) {
      const int64_t i = static_cast<int64_t>(r % shape[d]);
      r /= shape[d];
      oa += i * strideA[d];
      ob += i * strideB[d];
    }
    *offA = oa;
    *offB = ob;
  }
};

// Plans out = f(a, b) with NumPy broadcasting; false when the shapes do not broadcast to `out`.
bool planBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::vector<int64_t>& out, BroadcastPlan* plan);

// A strided view of a source: dst (contiguous, `shape`) [i...] = src[offset + Σ i_d · stride_d].
struct StridedView {
  int rank = 1;
  int64_t shape[kMaxRank] = {1};
  int64_t stride[kMaxRank] = {1};
  int64_t offset = 0;
};

// Merges dims of a view where contiguous (stride[d] == stride[d+1]·shape[d+1]) and drops size-1 dims.
void simplify(StridedView* v);

// Copies a strided view into contiguous dst, for elements of `elemBytes` bytes (2 or 4).
void stridedCopy(const void* src, const StridedView& view, void* dst, size_t elemBytes);

}  // namespace clawloop
