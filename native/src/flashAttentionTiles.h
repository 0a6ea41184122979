// Tile loads shared by the flash attention's forward and backward passes: each copies a block of
// q, k or v into a zero-padded local buffer (D padded to Dp, a multiple of 16; missing rows and
// keys are zeros), so tileGemm never needs a ragged edge.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>

#include "flashAttention.h"

namespace clawloop {

inline size_t paddedHeadDim(size_t D) { return (D + 15) / 16 * 16; }

// Qb [kAttnRows, Dp] ← scale · q[t0 .. t0+n) of one head (qh: [T, D]).
inline void loadQueryBlock(const float* qh, size_t D, size_t Dp, size_t t0, size_t n, float scale, float* Qb) {
  std::fill_n(Qb, kAttnRows * Dp, 0.0f);
  for (size_t r = 0; r < n; r++)
    for (size_t d = 0; d < D; d++) Qb[r * Dp + d] = scale * qh[(t0 + r) * D + d];
}

// KTt [Dp, kAttnKeys] ← kT[:, s0 .. s0+kAttnKeys) of one KV head (kTh: [D, S]), zeros past S.
inline void loadKeyTile(const float* kTh, size_t D, size_t S, size_t Dp, size_t s0, float* KTt) {
  std::fill_n(KTt, Dp * kAttnKeys, 0.0f);
  const size_t n = std::min(kAttnKeys, S - s0);
  for (size_t d = 0; d < D; d++) std::memcpy(KTt + d * kAttnKeys, kTh + d * S + s0, n * sizeof(float));
}

// Vt [kAttnKeys, Dp] ← v[s0 .. s0+kAttnKeys) of one KV head (vh: [S, D]), zeros past S.
inline void loadValueTile(const float* vh, size_t D, size_t S, size_t Dp, size_t s0, float* Vt) {
  std::fill_n(Vt, kAttnKeys * Dp, 0.0f);
  const size_t n = std::min(kAttnKeys, S - s0);
  for (size_t j = 0; j < n; j++) std::memcpy(Vt + j * Dp, vh + (s0 + j) * D, D * sizeof(float));
}

// The largest of a tile row's kAttnKeys values, and their sum, in 8 lanes: each lane's running
// result is independent, so compilers vectorise without reassociating float arithmetic.
inline float tileRowMax(const float* x) {
  float m[8];
  std::fill_n(m, 8, -INFINITY);
  for (size_t j = 0; j < kAttnKeys; j += 8)
    for (size_t k = 0; k < 8; k++) m[k] = x[j + k] > m[k] ? x[j + k] : m[k];
  return *std::max_element(m, m + 8);
}

inline float tileRowSum(const float* x) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t j = 0; j < kAttnKeys; j += 8)
    for (size_t k = 0; k < 8; k++) s[k] += x[j + k];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

// The slots a block's rows see, for the rows' own masks: per row [lo, hi] (every slot for a row
// that sees none), and the union over the block in *first, *last.
inline void blockSlots(const AttentionDims& a, size_t b, size_t t0, size_t n, int64_t* lo, int64_t* hi, bool* uniform, int64_t* first, int64_t* last) {
  *first = static_cast<int64_t>(a.S);
  *last = -1;
  for (size_t r = 0; r < n; r++) {
    visibleSlots(a, b, t0 + r, &lo[r], &hi[r]);
    uniform[r] = lo[r] > hi[r];
    if (uniform[r]) {
      lo[r] = 0;
      hi[r] = static_cast<int64_t>(a.S) - 1;
    }
    *first = std::min(*first, lo[r]);
    *last = std::max(*last, hi[r]);
  }
}

}  // namespace clawloop
