// addon.nd: decoding's 16-bit matrix-vector products (halfGemv.h), which path runs them, and the
// memory read bandwidth they are measured against (memBandwidth.h).
#include <string>

#include "halfGemv.h"
#include "memBandwidth.h"
#include "napiUtil.h"
#include "ndApi.h"

namespace clawloop {
namespace {

// A path name argument; throws (returns false) on anything but a known name.
bool argPath(napi_env env, napi_value v, GemvPath* out) {
  char name[32] = {0};
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, name, sizeof name, &len) != napi_ok || !parseGemvPath(name, out)) {
    napi_throw_type_error(env, nullptr, "gemv path must be one of: scalar, avx2, avx512f, avx512bf16");
    return false;
  }
  return true;
}

napi_value str(napi_env env, const std::string& s) {
  napi_value v;
  napi_create_string_utf8(env, s.c_str(), s.size(), &v);
  return v;
}

// gemv(path, x, w, m, n, k) -> y [m, n] = x [m, k] · wᵀ, w [n, k] 16-bit; throws when this CPU cannot run `path`.
napi_value ApiGemv(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  GemvPath p;
  if (!getArgs(env, info, 6, argv) || !argPath(env, argv[0], &p)) return nullptr;
  Buf *x, *w;
  int64_t m, n, k;
  if (!argBuf(env, argv[1], "x", &x) || !argBuf(env, argv[2], "w", &w) || !argInt(env, argv[3], "m", &m) || !argInt(env, argv[4], "n", &n) ||
      !argInt(env, argv[5], "k", &k))
    return nullptr;
  const bool sizes = m >= 0 && n >= 0 && k >= 0 && x->kind == Kind::F32 && x->count >= size_t(m * k) && w->count >= size_t(n * k);
  if (!check(env, sizes && isHalf(w->kind), "gemv", "x must be float32 [m, k] and w bfloat16 or float16 [n, k]")) return nullptr;
  const std::string why = gemvUnavailable(p, w->kind);
  if (!check(env, why.empty(), "gemv", why)) return nullptr;
  Buf* y;
  napi_value out = newBuf(env, Kind::F32, m * n, &y);
  if (out) halfGemv(p, x->f32(), w->u16(), w->kind, y->f32(), static_cast<int>(m), static_cast<size_t>(n), static_cast<int>(k));
  return out;
}

// gemvMany(x, ws, m, k) -> [y_i [m, n_i] = x [m, k] · w_iᵀ], each w_i [n_i, k] of one 16-bit kind,
// n_i = w_i's count / k, through the path gemvPath(kind) chooses, in one pass of the threads.
napi_value ApiGemvMany(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Buf* x;
  std::vector<Buf*> ws;
  int64_t m, k;
  if (!getArgs(env, info, 4, argv) || !argBuf(env, argv[0], "x", &x) || !argBufList(env, argv[1], "ws", &ws) || !argInt(env, argv[2], "m", &m) ||
      !argInt(env, argv[3], "k", &k))
    return nullptr;
  bool ok = m >= 0 && k > 0 && x->kind == Kind::F32 && x->count >= size_t(m * k) && !ws.empty();
  for (Buf* w : ws) ok = ok && isHalf(w->kind) && w->kind == ws[0]->kind && w->count % k == 0;
  if (!check(env, ok, "gemvMany", "x must be float32 [m, k] and every w of one 16-bit kind, [n, k]")) return nullptr;
  napi_value list;
  napi_create_array_with_length(env, ws.size(), &list);
  std::vector<GemvPart> parts;
  for (size_t i = 0; i < ws.size(); i++) {
    Buf* y;
    const size_t n = ws[i]->count / k;
    napi_value out = newBuf(env, Kind::F32, m * n, &y);
    if (!out) return nullptr;
    napi_set_element(env, list, i, out);
    parts.push_back({ws[i]->u16(), n, y->f32()});
  }
  halfGemvMany(gemvPath(ws[0]->kind), x->f32(), parts, ws[0]->kind, static_cast<int>(m), static_cast<int>(k));
  return list;
}

// gemvUnavailable(path, kind) -> why this process cannot run `path` for weights of `kind`, or "".
napi_value ApiGemvUnavailable(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GemvPath p;
  Kind kind;
  if (!getArgs(env, info, 2, argv) || !argPath(env, argv[0], &p) || !argKind(env, argv[1], &kind)) return nullptr;
  return str(env, gemvUnavailable(p, kind));
}

// gemvPath(kind) -> the path products with weights of `kind` use now.
napi_value ApiGemvPath(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Kind kind;
  if (!getArgs(env, info, 1, argv) || !argKind(env, argv[0], &kind)) return nullptr;
  return str(env, gemvPathName(gemvPath(kind)));
}

// setGemvPath(kind, path): throws, changing nothing, when this CPU cannot run it.
napi_value ApiSetGemvPath(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Kind kind;
  GemvPath p;
  if (!getArgs(env, info, 2, argv) || !argKind(env, argv[0], &kind) || !argPath(env, argv[1], &p)) return nullptr;
  if (!check(env, setGemvPath(kind, p), "setGemvPath", gemvUnavailable(p, kind))) return nullptr;
  return undefinedValue(env);
}

// readBandwidth(bytes, passes) -> { bytesPerSecond, bytes, threads }
napi_value ApiReadBandwidth(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t bytes, passes;
  if (!getArgs(env, info, 2, argv) || !argInt(env, argv[0], "bytes", &bytes) || !argInt(env, argv[1], "passes", &passes)) return nullptr;
  if (!check(env, bytes > 0 && passes > 0, "readBandwidth", "bytes and passes must be positive")) return nullptr;
  const Bandwidth b = readBandwidth(static_cast<size_t>(bytes), static_cast<int>(passes));
  if (!check(env, b.bytesPerSecond > 0, "readBandwidth", "could not allocate " + std::to_string(bytes) + " bytes")) return nullptr;
  napi_value out, v;
  napi_create_object(env, &out);
  const std::pair<const char*, double> fields[] = {{"bytesPerSecond", b.bytesPerSecond}, {"bytes", double(b.bytes)}, {"threads", double(b.threads)}};
  for (const auto& f : fields) {
    napi_create_double(env, f.second, &v);
    napi_set_named_property(env, out, f.first, v);
  }
  return out;
}

}  // namespace

void gemvEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"gemv", ApiGemv}, {"gemvMany", ApiGemvMany}, {"gemvUnavailable", ApiGemvUnavailable}, {"gemvPath", ApiGemvPath}, {"setGemvPath", ApiSetGemvPath},
                           {"readBandwidth", ApiReadBandwidth}});
}

}  // namespace clawloop
