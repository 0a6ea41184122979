// addon.nd: storage (buffers to and from JavaScript), memory-mapped weights, machine facts.
#include <string>

#include "blas.h"
#include "cpuInfo.h"
#include "fileMap.h"
#include "halfGemm.h"
#include "halfGemmPacked.h"
#include "halfGemv.h"
#include "napiUtil.h"
#include "ndApi.h"

namespace clawloop {

bool argShape(napi_env env, napi_value v, const char* name, std::vector<int64_t>* out) {
  uint32_t n = 0;
  if (napi_get_array_length(env, v, &n) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be an array of integers").c_str());
    return false;
  }
  out->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    napi_get_element(env, v, i, &item);
    if (!argInt(env, item, name, &(*out)[i])) return false;
  }
  return true;
}

bool argBufList(napi_env env, napi_value v, const char* name, std::vector<Buf*>* out) {
  uint32_t n = 0;
  if (napi_get_array_length(env, v, &n) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be an array of tensor buffers").c_str());
    return false;
  }
  out->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    napi_get_element(env, v, i, &item);
    if (!argBuf(env, item, name, &(*out)[i])) return false;
  }
  return true;
}

bool argKind(napi_env env, napi_value v, Kind* out) {
  int64_t k;
  if (!argInt(env, v, "kind", &k)) return false;
  if (k < 0 || k > 3) {
    napi_throw_range_error(env, nullptr, "kind must be 0 (float32), 1 (int32), 2 (bfloat16) or 3 (float16)");
    return false;
  }
  *out = static_cast<Kind>(k);
  return true;
}

bool check(napi_env env, bool ok, const char* kernel, const std::string& what) {
  if (!ok) napi_throw_range_error(env, nullptr, (std::string("native ") + kernel + ": " + what).c_str());
  return ok;
}

size_t product(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

namespace {

// bufFromArray(values: Float32Array | Int32Array | Uint8Array | Uint16Array (bf16, f16 bits), kind) -> buffer (a copy)
napi_value BufFromArray(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!getArgs(env, info, 2, argv)) return nullptr;
  Kind kind;
  bool typed = false;
  napi_is_typedarray(env, argv[0], &typed);
  if (!typed || !argKind(env, argv[1], &kind)) {
    if (!typed) napi_throw_type_error(env, nullptr, "bufFromArray: values must be a typed array");
    return nullptr;
  }
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_value ab;
  size_t off;
  napi_get_typedarray_info(env, argv[0], &type, &length, &data, &ab, &off);
  Buf* b;
  napi_value out = newBuf(env, kind, length, &b);
  if (!out) return nullptr;
  if (type == napi_uint8_array || type == napi_int8_array) {  // bool tensors: one byte each, stored as int32 0/1
    for (size_t i = 0; i < length; i++) b->i32()[i] = static_cast<const uint8_t*>(data)[i] != 0;
  } else if ((type == napi_float32_array || type == napi_int32_array || type == napi_uint32_array) && !isHalf(kind)) {
    std::memcpy(b->data, data, length * 4);
  } else if (type == napi_uint16_array && isHalf(kind)) {  // 16-bit floats as their bit patterns
    std::memcpy(b->data, data, length * 2);
  } else {
    napi_throw_type_error(env, nullptr, "bufFromArray: expected a Float32Array, Int32Array or Uint8Array for a 4-byte kind, a Uint16Array for bf16 or f16");
    return nullptr;
  }
  return out;
}

// bufRead(buf, asBool) -> Float32Array (float kinds) | Int32Array | Uint8Array (asBool): a copy
napi_value BufRead(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Buf* b;
  bool asBool;
  if (!getArgs(env, info, 2, argv) || !argBuf(env, argv[0], "buf", &b) || !argBool(env, argv[1], "asBool", &asBool)) return nullptr;
  const size_t n = b->count;
  void* dst;
  napi_value ab, out;
  if (napi_create_arraybuffer(env, n * (asBool ? 1 : 4), &dst, &ab) != napi_ok) {
    napi_throw_range_error(env, nullptr, "bufRead: could not allocate a JavaScript array for the tensor's values");
    return nullptr;
  }
  if (asBool) {
    for (size_t i = 0; i < n; i++) static_cast<uint8_t*>(dst)[i] = b->i32()[i] != 0;
    napi_create_typedarray(env, napi_uint8_array, n, ab, 0, &out);
  } else if (isHalf(b->kind)) {
    widen(b->u16(), b->kind, static_cast<float*>(dst), n);
    napi_create_typedarray(env, napi_float32_array, n, ab, 0, &out);
  } else {
    std::memcpy(dst, b->data, n * 4);
    napi_create_typedarray(env, b->kind == Kind::I32 ? napi_int32_array : napi_float32_array, n, ab, 0, &out);
  }
  return out;
}

napi_value BufFree(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!getArgs(env, info, 1, argv)) return nullptr;
  void* p = nullptr;
  if (napi_get_value_external(env, argv[0], &p) == napi_ok && p) static_cast<Buf*>(p)->release();
  return undefinedValue(env);
}

// bufWiden(buf) -> a float32 copy of a 16-bit buffer
napi_value BufWiden(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Buf* b;
  if (!getArgs(env, info, 1, argv) || !argBuf(env, argv[0], "buf", &b)) return nullptr;
  if (!check(env, isHalf(b->kind), "bufWiden", "the buffer is not 16-bit")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, b->count, &o);
  if (out) widen(b->u16(), b->kind, o->f32(), b->count);
  return out;
}

// mapTensor(path, byteOffset, count, kind) -> a read-only view of `count` elements in a mapped file
napi_value MapTensor(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!getArgs(env, info, 4, argv)) return nullptr;
  size_t len = 0;
  napi_get_value_string_utf8(env, argv[0], nullptr, 0, &len);
  std::string path(len, '\0');
  napi_get_value_string_utf8(env, argv[0], &path[0], len + 1, &len);
  int64_t offset, count;
  Kind kind;
  if (!argInt(env, argv[1], "byteOffset", &offset) || !argInt(env, argv[2], "count", &count) || !argKind(env, argv[3], &kind)) return nullptr;
  std::string error;
  auto map = openFileMap(path, &error);
  if (!map) return check(env, false, "mapTensor", path + ": " + error), nullptr;
  const size_t bytes = static_cast<size_t>(count) * kindBytes(kind);
  if (!check(env, offset >= 0 && count >= 0 && static_cast<size_t>(offset) + bytes <= map->size, "mapTensor",
             path + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ") lie outside the " +
                 std::to_string(map->size) + "-byte file (truncated?)"))
    return nullptr;
  Buf* b = new Buf();
  b->data = const_cast<uint8_t*>(map->base) + offset;
  b->count = static_cast<size_t>(count);
  b->kind = kind;
  b->map = map;
  return wrapBuf(env, b);
}

napi_value SetNum(napi_env env, napi_value obj, const char* key, double v) {
  napi_value x;
  napi_create_double(env, v, &x);
  napi_set_named_property(env, obj, key, x);
  return obj;
}

// memory() -> { nativeBytes, cachedBytes, mappedFiles }
napi_value Memory(napi_env env, napi_callback_info) {
  napi_value out;
  napi_create_object(env, &out);
  SetNum(env, out, "nativeBytes", static_cast<double>(nativeBytes.load()));
  SetNum(env, out, "cachedBytes", static_cast<double>(cachedBytes()));
  return SetNum(env, out, "mappedFiles", static_cast<double>(liveFileMaps()));
}

// trimCache(): frees the blocks kept for reuse.
napi_value TrimCache(napi_env env, napi_callback_info) {
  trimCache();
  return undefinedValue(env);
}

// cpu() -> { model, arch, features: {...}, physicalCores, logicalCpus, blasCore, halfGemm, gemv: { bf16, f16 } }
napi_value Cpu(napi_env env, napi_callback_info) {
  const CpuInfo& c = cpuInfo();
  napi_value out, feats, v;
  napi_create_object(env, &out);
  napi_create_object(env, &feats);
  const std::pair<const char*, bool> flags[] = {{"avx2", c.avx2}, {"fma", c.fma}, {"f16c", c.f16c}, {"avx512f", c.avx512f},
                                                {"avx512bf16", c.avx512bf16}, {"amxBf16", c.amxBf16}, {"amxTile", c.amxTile},
                                                {"neon", c.neon}, {"armBf16", c.armBf16}, {"blasSbgemm", sbgemmAvailable()},
                                                {"packedGemm", packedGemmUnavailable(Kind::BF16).empty()}};
  for (const auto& f : flags) {
    napi_get_boolean(env, f.second, &v);
    napi_set_named_property(env, feats, f.first, v);
  }
  napi_set_named_property(env, out, "features", feats);
  napi_create_string_utf8(env, c.model.c_str(), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, out, "model", v);
  napi_create_string_utf8(env, c.arch.c_str(), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, out, "arch", v);
  napi_create_string_utf8(env, blasCoreName(), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, out, "blasCore", v);
  napi_create_string_utf8(env, halfGemmModeName(halfGemmMode()), NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, out, "halfGemm", v);
  napi_value gemv;
  napi_create_object(env, &gemv);
  for (const Kind kind : {Kind::BF16, Kind::F16}) {
    napi_create_string_utf8(env, gemvPathName(gemvPath(kind)), NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, gemv, kind == Kind::BF16 ? "bf16" : "f16", v);
  }
  napi_set_named_property(env, out, "gemv", gemv);
  SetNum(env, out, "physicalCores", c.physicalCores);
  return SetNum(env, out, "logicalCpus", c.logicalCpus);
}

// setHalfGemm(mode: 0 widen | 1 sbgemm | 2 packed)
napi_value SetHalfGemm(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t m;
  if (!getArgs(env, info, 1, argv) || !argInt(env, argv[0], "mode", &m)) return nullptr;
#if defined(CLAWLOOP_ACCELERATE)
  if (m == 1) m = 0;  // Accelerate has no BF16 GEMM
#endif
  setHalfGemmMode(m == 1 ? HalfGemmMode::SbGemm : m == 2 ? HalfGemmMode::Packed : HalfGemmMode::Widen);
  return undefinedValue(env);
}

}  // namespace

void storageEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"bufFromArray", BufFromArray}, {"bufRead", BufRead}, {"bufFree", BufFree}, {"bufWiden", BufWiden},
                           {"mapTensor", MapTensor}, {"memory", Memory}, {"trimCache", TrimCache}, {"cpu", Cpu}, {"setHalfGemm", SetHalfGemm}});
}

napi_value makeNdObject(napi_env env) {
  std::vector<Entry> entries;
  storageEntries(&entries);
  mathEntries(&entries);
  layoutEntries(&entries);
  fusedEntries(&entries);
  gemvEntries(&entries);
  napi_value obj;
  napi_create_object(env, &obj);
  for (const auto& e : entries) {
    napi_value fn;
    napi_create_function(env, e.first, NAPI_AUTO_LENGTH, e.second, nullptr, &fn);
    napi_set_named_property(env, obj, e.first, fn);
  }
  return obj;
}

}  // namespace clawloop
