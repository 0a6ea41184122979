// addon.nd: fused kernels (several tfjs ops in one pass over memory).
#include "flashAttention.h"
#include "fusedLayers.h"
#include "napiUtil.h"
#include "ndApi.h"
#include "vocabStats.h"

namespace clawloop {

ArgReader::ArgReader(napi_env env, napi_callback_info info, size_t count) : env_(env), ok_(count <= 16 && getArgs(env, info, count, argv_)) {}

Buf* ArgReader::buf(size_t i, const char* name) {
  Buf* b = nullptr;
  if (ok_ && !argBuf(env_, argv_[i], name, &b)) ok_ = false;
  return b;
}

int64_t ArgReader::integer(size_t i, const char* name) {
  int64_t v = 0;
  if (ok_ && !argInt(env_, argv_[i], name, &v)) ok_ = false;
  return v;
}

double ArgReader::number(size_t i, const char* name) {
  double v = 0;
  if (ok_ && !argDouble(env_, argv_[i], name, &v)) ok_ = false;
  return v;
}

bool ArgReader::flag(size_t i, const char* name) {
  bool v = false;
  if (ok_ && !argBool(env_, argv_[i], name, &v)) ok_ = false;
  return v;
}

napi_value bufList(napi_env env, std::initializer_list<napi_value> items) {
  napi_value list;
  napi_create_array_with_length(env, items.size(), &list);
  uint32_t i = 0;
  for (napi_value v : items) napi_set_element(env, list, i++, v);
  return list;
}

namespace {

bool f32(Buf* b, size_t n) { return b && b->kind == Kind::F32 && b->count == n; }

// rmsNorm(x, w, R, D, eps) -> [y, r]
napi_value ApiRmsNorm(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 5);
  Buf *x = a.buf(0, "x"), *w = a.buf(1, "w");
  const int64_t R = a.integer(2, "R"), D = a.integer(3, "D");
  const double eps = a.number(4, "eps");
  if (!a.ok() || !check(env, R >= 0 && D > 0 && f32(x, R * D) && f32(w, D), "rmsNorm", "sizes or kinds do not match")) return nullptr;
  Buf *y, *r;
  napi_value yv = newBuf(env, Kind::F32, R * D, &y), rv = yv ? newBuf(env, Kind::F32, R, &r) : nullptr;
  if (!rv) return nullptr;
  rmsNormForward(x->f32(), w->f32(), R, D, static_cast<float>(eps), y->f32(), r->f32());
  return bufList(env, {yv, rv});
}

// rmsNormGrad(x, w, dy, R, D, eps) -> [dx, dw]
napi_value ApiRmsNormGrad(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 6);
  Buf *x = a.buf(0, "x"), *w = a.buf(1, "w"), *dy = a.buf(2, "dy");
  const int64_t R = a.integer(3, "R"), D = a.integer(4, "D");
  const double eps = a.number(5, "eps");
  if (!a.ok() || !check(env, R >= 0 && D > 0 && f32(x, R * D) && f32(w, D) && f32(dy, R * D), "rmsNormGrad", "sizes do not match"))
    return nullptr;
  Buf *dx, *dw;
  napi_value dxv = newBuf(env, Kind::F32, R * D, &dx), dwv = dxv ? newBuf(env, Kind::F32, D, &dw) : nullptr;
  if (!dwv) return nullptr;
  rmsNormBackward(x->f32(), w->f32(), dy->f32(), R, D, static_cast<float>(eps), dx->f32(), dw->f32());
  return bufList(env, {dxv, dwv});
}

// swiglu(g, u) -> y
napi_value ApiSwiglu(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 2);
  Buf *g = a.buf(0, "g"), *u = a.buf(1, "u");
  if (!a.ok() || !check(env, g->kind == Kind::F32 && f32(u, g->count), "swiglu", "sizes do not match")) return nullptr;
  Buf* y;
  napi_value out = newBuf(env, Kind::F32, g->count, &y);
  if (out) swigluForward(g->f32(), u->f32(), g->count, y->f32());
  return out;
}

// swigluGrad(g, u, dy) -> [dg, du]
napi_value ApiSwigluGrad(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 3);
  Buf *g = a.buf(0, "g"), *u = a.buf(1, "u"), *dy = a.buf(2, "dy");
  if (!a.ok() || !check(env, g->kind == Kind::F32 && f32(u, g->count) && f32(dy, g->count), "swigluGrad", "sizes do not match")) return nullptr;
  Buf *dg, *du;
  napi_value dgv = newBuf(env, Kind::F32, g->count, &dg), duv = dgv ? newBuf(env, Kind::F32, g->count, &du) : nullptr;
  if (!duv) return nullptr;
  swigluBackward(g->f32(), u->f32(), dy->f32(), g->count, dg->f32(), du->f32());
  return bufList(env, {dgv, duv});
}

// rope(x, cos, sin, B, H, T, D, perRow, fromBTHD, inverse) -> out
napi_value ApiRope(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 10);
  Buf *x = a.buf(0, "x"), *c = a.buf(1, "cos"), *s = a.buf(2, "sin");
  const int64_t B = a.integer(3, "B"), H = a.integer(4, "H"), T = a.integer(5, "T"), D = a.integer(6, "D");
  const bool perRow = a.flag(7, "perRow"), fromBTHD = a.flag(8, "fromBTHD"), inverse = a.flag(9, "inverse");
  const size_t cs = (perRow ? B : 1) * T * (D / 2);
  if (!a.ok() || !check(env, D % 2 == 0 && f32(x, B * H * T * D) && f32(c, cs) && f32(s, cs), "rope", "sizes do not match")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, x->count, &o);
  if (out) rope(x->f32(), c->f32(), s->f32(), B, H, T, D, perRow, fromBTHD, inverse, o->f32());
  return out;
}

// maskedSoftmax(s, mask, B, K, GT, T, S, perRow, scale) -> p
napi_value ApiMaskedSoftmax(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 9);
  Buf *s = a.buf(0, "scores"), *m = a.buf(1, "mask");
  const int64_t B = a.integer(2, "B"), K = a.integer(3, "K"), GT = a.integer(4, "GT"), T = a.integer(5, "T"), S = a.integer(6, "S");
  const bool perRow = a.flag(7, "perRow");
  const double scale = a.number(8, "scale");
  if (!a.ok() || !check(env, T > 0 && GT % T == 0 && f32(s, B * K * GT * S) && f32(m, (perRow ? B : 1) * T * S), "maskedSoftmax", "sizes do not match"))
    return nullptr;
  Buf* p;
  napi_value out = newBuf(env, Kind::F32, s->count, &p);
  if (out) maskedSoftmaxForward(s->f32(), m->f32(), B, K, GT, T, S, perRow, static_cast<float>(scale), p->f32());
  return out;
}

// maskedSoftmaxGrad(p, dp, rows, S, scale) -> ds
napi_value ApiMaskedSoftmaxGrad(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 5);
  Buf *p = a.buf(0, "p"), *dp = a.buf(1, "dp");
  const int64_t rows = a.integer(2, "rows"), S = a.integer(3, "S");
  const double scale = a.number(4, "scale");
  if (!a.ok() || !check(env, f32(p, rows * S) && f32(dp, rows * S), "maskedSoftmaxGrad", "sizes do not match")) return nullptr;
  Buf* ds;
  napi_value out = newBuf(env, Kind::F32, p->count, &ds);
  if (out) maskedSoftmaxBackward(p->f32(), dp->f32(), rows, S, static_cast<float>(scale), ds->f32());
  return out;
}

// vocabStats(h [N, H], w [V, H]) -> stats [N, 2]: log-sum-exp and entropy of softmax(h·wᵀ)
napi_value ApiVocabStats(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Buf *h, *w;
  int64_t N, V, H;
  if (!getArgs(env, info, 5, argv) || !argBuf(env, argv[0], "h", &h) || !argBuf(env, argv[1], "w", &w) || !argInt(env, argv[2], "N", &N) ||
      !argInt(env, argv[3], "V", &V) || !argInt(env, argv[4], "H", &H))
    return nullptr;
  if (!check(env, h->kind == Kind::F32 && w->kind != Kind::I32 && N > 0 && V > 0 && H > 0 && h->count == size_t(N * H) && w->count == size_t(V * H),
             "vocabStats", "sizes or kinds do not match"))
    return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, N * 2, &o);
  if (out) vocabStatsForward(h->f32(), w->data, w->kind, N, V, H, o->f32());
  return out;
}

// vocabStatsGrad(h, w, stats, dstats, N, V, H, weightGrad) -> [dh] or [dh, dW]
napi_value ApiVocabStatsGrad(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  Buf *h, *w, *st, *dst;
  int64_t N, V, H;
  bool weightGrad;
  if (!getArgs(env, info, 8, argv) || !argBuf(env, argv[0], "h", &h) || !argBuf(env, argv[1], "w", &w) || !argBuf(env, argv[2], "stats", &st) ||
      !argBuf(env, argv[3], "dstats", &dst) || !argInt(env, argv[4], "N", &N) || !argInt(env, argv[5], "V", &V) || !argInt(env, argv[6], "H", &H) ||
      !argBool(env, argv[7], "weightGrad", &weightGrad))
    return nullptr;
  if (!check(env, h->kind == Kind::F32 && w->kind != Kind::I32 && st->count == size_t(2 * N) && dst->count == size_t(2 * N) &&
                      h->count == size_t(N * H) && w->count == size_t(V * H),
             "vocabStatsGrad", "sizes or kinds do not match"))
    return nullptr;
  Buf *dh, *dW = nullptr;
  napi_value dhv = newBuf(env, Kind::F32, N * H, &dh);
  if (!dhv) return nullptr;
  napi_value dWv = nullptr;
  if (weightGrad && !(dWv = newBuf(env, Kind::F32, V * H, &dW))) return nullptr;
  vocabStatsBackward(h->f32(), w->data, w->kind, N, V, H, st->f32(), dst->f32(), dh->f32(), dW ? dW->f32() : nullptr);
  napi_value list;
  napi_create_array_with_length(env, dW ? 2 : 1, &list);
  napi_set_element(env, list, 0, dhv);
  if (dW) napi_set_element(env, list, 1, dWv);
  return list;
}

// Reads (rows, B, H, KVH, T, S, D, window, scale) from argument `i` on and checks q, kT, v, rows.
bool attentionDims(napi_env env, ArgReader& a, size_t i, Buf* q, Buf* kT, Buf* v, AttentionDims* d) {
  Buf* rows = a.buf(i, "rows");
  const int64_t B = a.integer(i + 1, "B"), H = a.integer(i + 2, "H"), KVH = a.integer(i + 3, "KVH"), T = a.integer(i + 4, "T"),
                S = a.integer(i + 5, "S"), D = a.integer(i + 6, "D"), window = a.integer(i + 7, "window");
  const double scale = a.number(i + 8, "scale");
  if (!a.ok()) return false;
  const bool ok = B > 0 && KVH > 0 && H % KVH == 0 && T > 0 && S >= T && D > 0 && f32(q, B * H * T * D) && f32(kT, B * KVH * D * S) &&
                  f32(v, B * KVH * S * D) && rows && rows->kind == Kind::I32 && rows->count == size_t(2 * B);
  if (!check(env, ok, "flashAttention", "sizes or kinds do not match")) return false;
  *d = {size_t(B), size_t(H), size_t(KVH), size_t(T), size_t(S), size_t(D), window, static_cast<float>(scale), rows->i32()};
  return true;
}

// flashAttention(q, kT, v, rows, B, H, KVH, T, S, D, window, scale) -> [out [B, T, H·D], lse [B, H, T]]
napi_value ApiFlashAttention(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 12);
  Buf *q = a.buf(0, "q"), *kT = a.buf(1, "kT"), *v = a.buf(2, "v");
  AttentionDims d;
  if (!attentionDims(env, a, 3, q, kT, v, &d)) return nullptr;
  Buf *out, *lse;
  napi_value ov = newBuf(env, Kind::F32, q->count, &out), lv = ov ? newBuf(env, Kind::F32, d.B * d.H * d.T, &lse) : nullptr;
  if (!lv) return nullptr;
  flashAttentionForward(d, q->f32(), kT->f32(), v->f32(), out->f32(), lse->f32());
  return bufList(env, {ov, lv});
}

// flashAttentionGrad(q, kT, v, out, lse, dOut, rows, B, H, KVH, T, S, D, window, scale) -> [dq, dkT, dv]
napi_value ApiFlashAttentionGrad(napi_env env, napi_callback_info info) {
  ArgReader a(env, info, 15);
  Buf *q = a.buf(0, "q"), *kT = a.buf(1, "kT"), *v = a.buf(2, "v"), *out = a.buf(3, "out"), *lse = a.buf(4, "lse"), *dOut = a.buf(5, "dOut");
  AttentionDims d;
  if (!attentionDims(env, a, 6, q, kT, v, &d)) return nullptr;
  if (!check(env, f32(out, q->count) && f32(dOut, q->count) && f32(lse, d.B * d.H * d.T), "flashAttentionGrad", "sizes do not match")) return nullptr;
  Buf *dq, *dkT, *dv;
  napi_value qv = newBuf(env, Kind::F32, q->count, &dq), kv = qv ? newBuf(env, Kind::F32, kT->count, &dkT) : nullptr,
             vv = kv ? newBuf(env, Kind::F32, v->count, &dv) : nullptr;
  if (!vv) return nullptr;
  flashAttentionBackward(d, q->f32(), kT->f32(), v->f32(), out->f32(), lse->f32(), dOut->f32(), dq->f32(), dkT->f32(), dv->f32());
  return bufList(env, {qv, kv, vv});
}

}  // namespace

void fusedEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"vocabStats", ApiVocabStats}, {"vocabStatsGrad", ApiVocabStatsGrad}, {"rmsNorm", ApiRmsNorm},
                           {"rmsNormGrad", ApiRmsNormGrad}, {"swiglu", ApiSwiglu}, {"swigluGrad", ApiSwigluGrad}, {"rope", ApiRope},
                           {"maskedSoftmax", ApiMaskedSoftmax}, {"maskedSoftmaxGrad", ApiMaskedSoftmaxGrad}, {"flashAttention", ApiFlashAttention},
                           {"flashAttentionGrad", ApiFlashAttentionGrad}});
}

}  // namespace clawloop
