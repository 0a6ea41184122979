// Fused forward and backward kernels of a decoder layer's element-wise parts, each one pass over
// memory instead of the several tfjs ops (and saved intermediates) they replace.
#pragma once
#include <cstddef>

namespace clawloop {

// RMSNorm over rows of D: y = x · r · w with r = 1/√(mean(x²) + eps); r [R] is kept for backward.
void rmsNormForward(const float* x, const float* w, size_t R, size_t D, float eps, float* y, float* r);
// dx = r·(w·dy) − r³·x·mean(w·dy·x);  dw = Σ_rows dy·x·r.
void rmsNormBackward(const float* x, const float* w, const float* dy, size_t R, size_t D, float eps, float* dx, float* dw);

// SwiGLU: y = silu(g)·u;  dg = dy·u·σ(g)·(1 + g·(1 − σ(g))),  du = dy·silu(g).
void swigluForward(const float* g, const float* u, size_t n, float* y);
void swigluBackward(const float* g, const float* u, const float* dy, size_t n, float* dg, float* du);

// Rotate-half RoPE on heads of D: [x1, x2] -> [x1·c − x2·s, x2·c + x1·s], cos/sin of D/2 per
// (row b, position t): cs index = (perRow ? b·T : 0) + t. With `fromBTHD`, x is read as
// [B, T, H, D] and written as [B, H, T, D] (the transpose attention needs, in the same pass);
// the backward writes [B, T, H, D] from [B, H, T, D]. `inverse` rotates by −θ (the backward).
void rope(const float* x, const float* cos, const float* sin, size_t B, size_t H, size_t T, size_t D, bool perRow, bool fromBTHD, bool inverse,
          float* out);

// Attention probabilities: p = softmax(scale·s + mask) over rows of S, for scores s [B, K, G·T, S]
// (G query heads share each of K KV heads) and an additive mask [T, S] or per row [B, 1, T, S].
void maskedSoftmaxForward(const float* s, const float* mask, size_t B, size_t K, size_t GT, size_t T, size_t S, bool perRow, float scale,
                          float* p);
// ds = scale · p ⊙ (dp − Σ p·dp).
void maskedSoftmaxBackward(const float* p, const float* dp, size_t rows, size_t S, float scale, float* ds);

}  // namespace clawloop
