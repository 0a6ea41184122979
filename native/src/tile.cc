#include "tile.h"

#include <algorithm>
#include <cstring>

namespace clawloop {
namespace {

// Copies the tiled block for dimensions [d, rank) of src into dst; returns the number of elements written.
size_t tileDim(const uint32_t* src, uint32_t* dst, const int64_t* shape, const int64_t* reps, int rank, int d) {
  if (d == rank - 1) {
    const size_t n = shape[d];
    if (n == 1) {
      std::fill_n(dst, reps[d], src[0]);  // a broadcast column: one value repeated
      return reps[d];
    }
    for (int64_t r = 0; r < reps[d]; r++) std::memcpy(dst + r * n, src, n * sizeof(uint32_t));
    return n * reps[d];
  }
  size_t inner = 1;
  for (int i = d + 1; i < rank; i++) inner *= shape[i];
  // Tile one copy of this dimension, then repeat the whole written block reps[d] times.
  size_t written = 0;
  for (int64_t i = 0; i < shape[d]; i++) written += tileDim(src + i * inner, dst + written, shape, reps, rank, d + 1);
  for (int64_t r = 1; r < reps[d]; r++) std::memcpy(dst + r * written, dst, written * sizeof(uint32_t));
  return written * reps[d];
}

}  // namespace

void tile4(const uint32_t* src, uint32_t* dst, const int64_t* shape, const int64_t* reps, int rank) {
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  tileDim(src, dst, shape, reps, rank, 0);
}

}  // namespace clawloop
