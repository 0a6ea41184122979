#include "fusedLayers.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "threadPool.h"
#include "unaryKernels.h"

namespace clawloop {

namespace {
inline size_t rowGrain(size_t cols) { return std::max<size_t>(1, (1 << 14) / std::max<size_t>(cols, 1)); }
inline float sigmoid(float x) { return 1.0f / (1.0f + expApprox(-x)); }
}  // namespace

void rmsNormForward(const float* x, const float* w, size_t R, size_t D, float eps, float* y, float* r) {
  parallelFor(R, rowGrain(D), [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) {
      const float* xi = x + i * D;
      float ss = 0;
      for (size_t j = 0; j < D; j++) ss += xi[j] * xi[j];
      const float ri = 1.0f / std::sqrt(ss / static_cast<float>(D) + eps);
      r[i] = ri;
      float* yi = y + i * D;
      for (size_t j = 0; j < D; j++) yi[j] = xi[j] * ri * w[j];
    }
  });
}

void rmsNormBackward(const float* x, const float* w, const float* dy, size_t R, size_t D, float eps, float* dx, float* dw) {
  const int threads = std::max(1, poolThreads());
  std::vector<float> partial(static_cast<size_t>(threads) * D, 0.0f);  // dw per chunk, summed at the end
  const size_t chunks = std::min<size_t>(threads, std::max<size_t>(R, 1));
  parallelFor(chunks, 1, [&](size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; c++) {
      float* pw = partial.data() + c * D;
      for (size_t i = R * c / chunks; i < R * (c + 1) / chunks; i++) {
        const float *xi = x + i * D, *gi = dy + i * D;
        float ss = 0, dot = 0;
        for (size_t j = 0; j < D; j++) {
          ss += xi[j] * xi[j];
          dot += gi[j] * w[j] * xi[j];
        }
        const float ri = 1.0f / std::sqrt(ss / static_cast<float>(D) + eps);  // as the forward pass computed it
        const float k = ri * ri * ri * dot / static_cast<float>(D);
        float* di = dx + i * D;
        for (size_t j = 0; j < D; j++) {
          di[j] = ri * gi[j] * w[j] - k * xi[j];
          pw[j] += gi[j] * xi[j] * ri;
        }
      }
    }
  });
  std::fill_n(dw, D, 0.0f);
  for (size_t c = 0; c < chunks; c++)
    for (size_t j = 0; j < D; j++) dw[j] += partial[c * D + j];
}

void swigluForward(const float* g, const float* u, size_t n, float* y) {
  parallelFor(n, 1 << 15, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) y[i] = g[i] * sigmoid(g[i]) * u[i];
  });
}

void swigluBackward(const float* g, const float* u, const float* dy, size_t n, float* dg, float* du) {
  parallelFor(n, 1 << 15, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; i++) {
      const float sg = sigmoid(g[i]);
      du[i] = dy[i] * g[i] * sg;
      dg[i] = dy[i] * u[i] * sg * (1.0f + g[i] * (1.0f - sg));
    }
  });
}

void rope(const float* x, const float* cos, const float* sin, size_t B, size_t H, size_t T, size_t D, bool perRow, bool fromBTHD, bool inverse,
          float* out) {
  const size_t half = D / 2;
  const float sign = inverse ? -1.0f : 1.0f;
  // One work item per (b, h, t) head vector; [B, H, T, D] index order.
  parallelFor(B * H * T, rowGrain(D), [&](size_t s, size_t e) {
    for (size_t idx = s; idx < e; idx++) {
      const size_t t = idx % T, h = (idx / T) % H, b = idx / (T * H);
      const size_t bhtd = idx * D, bthd = ((b * T + t) * H + h) * D;
      // Forward reads BTHD (or BHTD) and writes BHTD; the backward (inverse) of a fromBTHD op reads BHTD and writes BTHD.
      const size_t in = fromBTHD && !inverse ? bthd : bhtd;
      const size_t o = fromBTHD && inverse ? bthd : bhtd;
      const float* c = cos + ((perRow ? b * T : 0) + t) * half;
      const float* sn = sin + ((perRow ? b * T : 0) + t) * half;
      for (size_t j = 0; j < half; j++) {
        const float x1 = x[in + j], x2 = x[in + half + j], sj = sign * sn[j];
        out[o + j] = x1 * c[j] - x2 * sj;
        out[o + half + j] = x2 * c[j] + x1 * sj;
      }
    }
  });
}

void maskedSoftmaxForward(const float* s, const float* mask, size_t B, size_t K, size_t GT, size_t T, size_t S, bool perRow, float scale,
                          float* p) {
  const size_t rows = B * K * GT;
  parallelFor(rows, rowGrain(S), [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; r++) {
      const size_t b = r / (K * GT), t = (r % GT) % T;
      const float* m = mask + ((perRow ? b * T : 0) + t) * S;
      const float* si = s + r * S;
      float* pi = p + r * S;
      float mx = -INFINITY;
      for (size_t j = 0; j < S; j++) {
        pi[j] = si[j] * scale + m[j];
        mx = std::max(mx, pi[j]);
      }
      float sum = 0;
      for (size_t j = 0; j < S; j++) {
        pi[j] = expApprox(pi[j] - mx);
        sum += pi[j];
      }
      const float inv = 1.0f / sum;
      for (size_t j = 0; j < S; j++) pi[j] *= inv;
    }
  });
}

void maskedSoftmaxBackward(const float* p, const float* dp, size_t rows, size_t S, float scale, float* ds) {
  parallelFor(rows, rowGrain(S), [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; r++) {
      const float *pi = p + r * S, *gi = dp + r * S;
      float dot = 0;
      for (size_t j = 0; j < S; j++) dot += pi[j] * gi[j];
      float* di = ds + r * S;
      for (size_t j = 0; j < S; j++) di[j] = scale * pi[j] * (gi[j] - dot);
    }
  });
}

}  // namespace clawloop
