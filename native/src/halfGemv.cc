#include "halfGemv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpuInfo.h"
#include "halfGemvKernels.h"
#include "threadPool.h"

namespace clawloop {

// Any CPU: weights widened a block at a time into a small buffer, then dot products with eight
// partial sums (independent chains the compiler can keep in vector lanes).
void gemvRowsScalar(const GemvJob& g, size_t j0, size_t j1) {
  constexpr int B = 256;
  float wide[B];
  for (size_t j = j0; j < j1; j++) {
    for (int i = 0; i < g.m; i++) g.y[static_cast<size_t>(i) * g.n + j] = 0;
    for (int c = 0; c < g.k; c += B) {
      const int len = std::min(B, g.k - c);
      widen(g.w + j * g.k + c, g.kind, wide, len);
      for (int i = 0; i < g.m; i++) {
        const float* x = g.x + static_cast<size_t>(i) * g.k + c;
        float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int t = 0;
        for (; t + 8 <= len; t += 8)
          for (int u = 0; u < 8; u++) part[u] += x[t + u] * wide[t + u];
        float s = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
        for (; t < len; t++) s += x[t] * wide[t];
        g.y[static_cast<size_t>(i) * g.n + j] += s;
      }
    }
  }
}

namespace {

using RowsFn = void (*)(const GemvJob&, size_t, size_t);

RowsFn kernelOf(GemvPath p) {
  switch (p) {
#if defined(CLAWLOOP_X86_KERNELS)
    case GemvPath::Avx2: return gemvRowsAvx2;
    case GemvPath::Avx512: return gemvRowsAvx512;
#endif
#if defined(CLAWLOOP_AVX512BF16_KERNEL)
    case GemvPath::Avx512Bf16: return gemvRowsAvx512Bf16;
#endif
    case GemvPath::Scalar: return gemvRowsScalar;
    default: return nullptr;
  }
}

// The CPU features a path needs, as cpuInfo names them, and whether this CPU (and OS) has each.
std::vector<std::pair<const char*, bool>> needs(GemvPath p, Kind kind) {
  const CpuInfo& c = cpuInfo();
  switch (p) {
    case GemvPath::Avx2:
      if (kind == Kind::F16) return {{"avx2", c.avx2}, {"fma", c.fma}, {"f16c", c.f16c}};
      return {{"avx2", c.avx2}, {"fma", c.fma}};
    case GemvPath::Avx512: return {{"avx512f", c.avx512f}};
    case GemvPath::Avx512Bf16: return {{"avx512f", c.avx512f}, {"avx512bf16", c.avx512bf16}};
    default: return {};
  }
}

// The default, fastest first among the paths that keep activations float32. Avx512Bf16 rounds
// them to bfloat16 (as PyTorch's BF16 matmul does) and streams faster, but then a decoded token's
// log-prob differs from the same token scored by a forward pass (prefill, the trainer's π_old and
// π) by bfloat16 rounding, and a request's answer depends on whether it was batched or cached.
// It stays available by name (CLAWLOOP_GEMV=avx512bf16).
constexpr GemvPath kPreference[] = {GemvPath::Avx512, GemvPath::Avx2, GemvPath::Scalar};

GemvPath best(Kind kind) {
  for (GemvPath p : kPreference)
    if (gemvUnavailable(p, kind).empty()) return p;
  return GemvPath::Scalar;
}

GemvPath chosen[2] = {best(Kind::BF16), best(Kind::F16)};
int slot(Kind kind) { return kind == Kind::F16 ? 1 : 0; }

// Round to nearest even (NaN stays NaN), as vcvtneps2bf16 and PyTorch's conversion do.
uint16_t roundBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((bits >> 16) | 0x40);
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

}  // namespace

const char* gemvPathName(GemvPath p) {
  switch (p) {
    case GemvPath::Avx2: return "avx2";
    case GemvPath::Avx512: return "avx512f";
    case GemvPath::Avx512Bf16: return "avx512bf16";
    default: return "scalar";
  }
}

bool parseGemvPath(const std::string& name, GemvPath* out) {
  for (int i = 0; i < kGemvPaths; i++) {
    if (name == gemvPathName(static_cast<GemvPath>(i))) {
      *out = static_cast<GemvPath>(i);
      return true;
    }
  }
  return false;
}

std::string gemvUnavailable(GemvPath p, Kind kind) {
  if (!isHalf(kind)) return "16-bit weights only (bf16 or f16)";
  if (p == GemvPath::Avx512Bf16 && kind != Kind::BF16) return "avx512bf16 multiplies bfloat16 weights only";
  if (!kernelOf(p)) return std::string("this addon was built without the ") + gemvPathName(p) + " kernel (an x86-64 GCC >= 10 or clang >= 9 build has it)";
  std::string missing;
  for (const auto& f : needs(p, kind))
    if (!f.second) missing += (missing.empty() ? "" : " and ") + std::string(f.first);
  if (missing.empty()) return "";
  const std::string model = cpuInfo().model.empty() ? "this CPU" : "this CPU (" + cpuInfo().model + ")";
  return "the " + std::string(gemvPathName(p)) + " path needs " + missing + ", which " + model + " or its OS lacks";
}

GemvPath gemvPath(Kind kind) { return chosen[slot(kind)]; }

bool setGemvPath(Kind kind, GemvPath p) {
  if (!gemvUnavailable(p, kind).empty()) return false;
  chosen[slot(kind)] = p;
  return true;
}

void halfGemv(GemvPath p, const float* x, const uint16_t* w, Kind kind, float* y, int m, size_t n, int k) {
  halfGemvMany(p, x, {{w, n, y}}, kind, m, k);
}

void halfGemvMany(GemvPath p, const float* x, const std::vector<GemvPart>& parts, Kind kind, int m, int k) {
  if (m <= 0) return;
  if (k <= 0) {
    for (const GemvPart& part : parts) std::fill(part.y, part.y + static_cast<size_t>(m) * part.n, 0.0f);
    return;
  }
  std::vector<uint16_t> xbf;
  if (p == GemvPath::Avx512Bf16) {
    xbf.resize(static_cast<size_t>(m) * k);
    for (size_t i = 0; i < xbf.size(); i++) xbf[i] = roundBf16(x[i]);
  }
  // The parts' rows as one run of 8-row blocks: part i owns blocks [first[i], first[i + 1]).
  std::vector<GemvJob> jobs;
  std::vector<size_t> first{0};
  for (const GemvPart& part : parts) {
    jobs.push_back({x, xbf.data(), part.w, kind, m, k, part.n, part.y});
    first.push_back(first.back() + (part.n + 7) / 8);
  }
  const size_t blocks = first.back();
  if (blocks == 0) return;
  const RowsFn rows = kernelOf(p);
  // At least 64 KB of weights a thread: below that, waking a thread costs more than it saves.
  // Blocks of 8 rows, 8 chunks a thread: on a busy machine a descheduled thread's work moves to
  // the others instead of holding up the whole product.
  const size_t grain = std::max<size_t>(8, (size_t(1) << 15) / static_cast<size_t>(k));
  parallelFor(blocks, (grain + 7) / 8, [&](size_t s, size_t e) {
    for (size_t i = 0; i < jobs.size() && s < e; i++) {
      if (s >= first[i + 1]) continue;
      const size_t end = std::min(e, first[i + 1]);
      rows(jobs[i], (s - first[i]) * 8, std::min(jobs[i].n, (end - first[i]) * 8));
      s = end;
    }
  }, 8);
}

}  // namespace clawloop
