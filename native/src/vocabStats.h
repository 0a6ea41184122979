// Fused statistics of softmax(h·Wᵀ) over a large vocabulary, for training losses: the [N, V]
// logits never exist; the head W [V, H] (16-bit or float32) is read one cache-sized panel of
// vocabulary rows at a time, widened once per pass, and each panel's logits [N, panel] are folded
// into running per-row statistics (an online softmax).
#pragma once
#include <cstddef>
#include <cstdint>

#include "tensorBuf.h"

namespace clawloop {

// stats[n] = {log Σ_v exp(z_nv), entropy of softmax(z_n)} with z = h·Wᵀ; h [N, H], W [V, H].
void vocabStatsForward(const float* h, const void* w, Kind kind, size_t N, size_t V, size_t H, float* stats);

// Backward of stats given d(stats) [N, 2]: dh [N, H] (overwritten) and, when dW is not null,
// dW [V, H] (overwritten). dz = p ⊙ (dlse − dH ⊙ (log p + H)).
void vocabStatsBackward(const float* h, const void* w, Kind kind, size_t N, size_t V, size_t H, const float* stats, const float* dstats,
                        float* dh, float* dW);

}  // namespace clawloop
