#include "vocabStats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "blas.h"
#include "threadPool.h"
#include "unaryKernels.h"

namespace clawloop {
namespace {

// Vocabulary rows per panel: about 4 MB of float32 weights, so a panel stays in cache between
// its widening and its product.
size_t panelRows(size_t V, size_t H) { return std::min(V, std::max<size_t>(16, (size_t(1) << 20) / std::max<size_t>(H, 1))); }

// The float32 rows [v0, v0 + n) of W (a view when W is float32, else widened into `buf`).
const float* panel(const void* w, Kind kind, size_t v0, size_t n, size_t H, std::vector<float>& buf) {
  if (kind == Kind::F32) return static_cast<const float*>(w) + v0 * H;
  buf.resize(n * H);
  const uint16_t* src = static_cast<const uint16_t*>(w) + v0 * H;
  parallelFor(n, 8, [&](size_t s, size_t e) { widen(src + s * H, kind, buf.data() + s * H, (e - s) * H); });
  return buf.data();
}

// z [N, n] = h [N, H] · Wpᵀ (Wp [n, H]).
void logits(const float* h, const float* wp, size_t N, size_t n, size_t H, float* z) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(N), static_cast<int>(n), static_cast<int>(H), 1.0f, h,
              static_cast<int>(H), wp, static_cast<int>(H), 0.0f, z, static_cast<int>(n));
}

}  // namespace

void vocabStatsForward(const float* h, const void* w, Kind kind, size_t N, size_t V, size_t H, float* stats) {
  const size_t nb = panelRows(V, H);
  std::vector<float> wbuf, z(N * nb);
  // Per row: running max m, s = Σ e^(z−m), t = Σ e^(z−m)·(z−m), all relative to the current m.
  std::vector<float> m(N, -INFINITY), s(N, 0.0f), t(N, 0.0f);
  for (size_t v0 = 0; v0 < V; v0 += nb) {
    const size_t n = std::min(nb, V - v0);
    logits(h, panel(w, kind, v0, n, H, wbuf), N, n, H, z.data());
    parallelFor(N, 1, [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; r++) {
        const float* zr = z.data() + r * n;
        float mx = m[r];
        for (size_t j = 0; j < n; j++) mx = std::max(mx, zr[j]);
        const float c = std::isinf(m[r]) ? 0.0f : expApprox(m[r] - mx);
        float ps = 0, pt = 0;
        for (size_t j = 0; j < n; j++) {
          const float d = zr[j] - mx, e = expApprox(d);
          ps += e;
          pt += e * d;
        }
        // Rebase the old sums on the new max: t' = c·(t + s·(m − m2)), s' = c·s.
        t[r] = (std::isinf(m[r]) ? 0.0f : c * (t[r] + s[r] * (m[r] - mx))) + pt;
        s[r] = c * s[r] + ps;
        m[r] = mx;
      }
    });
  }
  for (size_t r = 0; r < N; r++) {
    const float logS = std::log(s[r]);
    stats[2 * r] = m[r] + logS;
    stats[2 * r + 1] = logS - t[r] / s[r];  // H = log Σe − Σ p·(z − m)
  }
}

void vocabStatsBackward(const float* h, const void* w, Kind kind, size_t N, size_t V, size_t H, const float* stats, const float* dstats,
                        float* dh, float* dW) {
  const size_t nb = panelRows(V, H);
  std::vector<float> wbuf, z(N * nb);
  std::fill_n(dh, N * H, 0.0f);
  for (size_t v0 = 0; v0 < V; v0 += nb) {
    const size_t n = std::min(nb, V - v0);
    const float* wp = panel(w, kind, v0, n, H, wbuf);
    logits(h, wp, N, n, H, z.data());
    parallelFor(N, 1, [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; r++) {
        const float lse = stats[2 * r], ent = stats[2 * r + 1], dl = dstats[2 * r], de = dstats[2 * r + 1];
        float* zr = z.data() + r * n;
        for (size_t j = 0; j < n; j++) {
          const float logp = zr[j] - lse, p = expApprox(logp);
          zr[j] = p * (dl - de * (logp + ent));  // dz, in place
        }
      }
    });
    // dh += dz [N, n] · Wp [n, H]; dW[v0 : v0 + n] = dzᵀ · h.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(N), static_cast<int>(H), static_cast<int>(n), 1.0f, z.data(),
                static_cast<int>(n), wp, static_cast<int>(H), 1.0f, dh, static_cast<int>(H));
    if (dW)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(H), static_cast<int>(N), 1.0f, z.data(),
                  static_cast<int>(n), h, static_cast<int>(H), 0.0f, dW + v0 * H, static_cast<int>(H));
  }
}

}  // namespace clawloop
