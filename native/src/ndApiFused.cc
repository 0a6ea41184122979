// addon.nd: fused kernels (several tfjs ops in one pass over memory).
#include "napiUtil.h"
#include "ndApi.h"
#include "vocabStats.h"

namespace clawloop {
namespace {

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

}  // namespace

void fusedEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"vocabStats", ApiVocabStats}, {"vocabStatsGrad", ApiVocabStatsGrad}});
}

}  // namespace clawloop
