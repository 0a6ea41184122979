// Causal grouped-query attention in tiles with an online softmax (flash-attention style): the
// [T, S] score matrix is never held, only one [rows, keys] tile per thread, and the backward pass
// recomputes the probabilities tile by tile from the log-sum-exp the forward pass saved.
#pragma once
#include <cstddef>
#include <cstdint>

namespace clawloop {

// Shapes: q [B, H, T, D]; kT [B, KVH, D, S]; v [B, KVH, S, D]; heads kv·G .. kv·G+G−1 (G = H/KVH)
// share KV head kv. rows int32 [B, 2]: row b's T queries sit at positions start..start+T−1 and its
// first pad cache slots are padding; slot s holds position s − pad. A query at position p sees the
// slots whose position k has 0 ≤ k ≤ p and, with a window w > 0, p − k < w. A query that sees no
// slot (a padding position) attends to every slot with equal weight, as the additive −1e9 mask of
// the composite path makes it do.
struct AttentionDims {
  size_t B, H, KVH, T, S, D;
  int64_t window;  // 0: none
  float scale;
  const int32_t* rows;
};

// The slots [lo, hi] query t of row b sees; lo > hi when it sees none.
inline void visibleSlots(const AttentionDims& a, size_t b, size_t t, int64_t* lo, int64_t* hi) {
  const int64_t start = a.rows[2 * b], pad = a.rows[2 * b + 1];
  const int64_t p = start + static_cast<int64_t>(t);
  int64_t first = pad;
  if (a.window > 0) first = pad + p - a.window + 1 > first ? pad + p - a.window + 1 : first;
  int64_t last = pad + p;
  if (last > static_cast<int64_t>(a.S) - 1) last = static_cast<int64_t>(a.S) - 1;
  *lo = first;
  *hi = last;
}

// Tile sizes: query rows per block and keys per tile (multiples of 4 and 16 for tileGemm).
constexpr size_t kAttnRows = 32;
constexpr size_t kAttnKeys = 64;

// out [B, T, H·D] = softmax(scale·q·kᵀ + mask)·v; lse [B, H, T] the log-sum-exp of each row's
// scaled scores (for the backward pass). Threaded over (row, head, block of query rows).
void flashAttentionForward(const AttentionDims& a, const float* q, const float* kT, const float* v, float* out, float* lse);

// Given dOut [B, T, H·D], writes dq [B, H, T, D], dkT [B, KVH, D, S] and dv [B, KVH, S, D].
// Threaded over (row, KV head), each task owning that head's dK and dV, and with more threads
// than such pairs also over shares of its key tiles (each share adds its dq in a buffer of its own).
void flashAttentionBackward(const AttentionDims& a, const float* q, const float* kT, const float* v, const float* out, const float* lse,
                            const float* dOut, float* dq, float* dkT, float* dv);

}  // namespace clawloop
