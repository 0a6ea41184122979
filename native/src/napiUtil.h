// Small helpers for reading N-API arguments with clear errors.
#pragma once
#include <node_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace clawloop {

struct F32View {
  float* data = nullptr;
  size_t length = 0;
};

// Throws a JS TypeError/RangeError and returns false on failure, so callers can `return nullptr`.
bool argFloat32(napi_env env, napi_value v, const char* name, F32View* out);
// Any 4-byte typed array (Float32Array, Int32Array, Uint32Array), as raw 32-bit words.
bool arg4Byte(napi_env env, napi_value v, const char* name, uint32_t** data, size_t* length);
// An array of 4-byte typed arrays.
bool arg4ByteList(napi_env env, napi_value v, const char* name, std::vector<uint32_t*>* data, std::vector<size_t>* lengths);
// An array of non-negative integers.
bool argSizeList(napi_env env, napi_value v, const char* name, std::vector<size_t>* out);
bool argInt(napi_env env, napi_value v, const char* name, int64_t* out);
bool argBool(napi_env env, napi_value v, const char* name, bool* out);
bool argDouble(napi_env env, napi_value v, const char* name, double* out);
// Checks that `view` holds at least `needed` floats.
bool requireLength(napi_env env, const F32View& view, size_t needed, const char* name);

napi_value undefinedValue(napi_env env);

// Reads `count` arguments into argv; throws when fewer were given.
bool getArgs(napi_env env, napi_callback_info info, size_t count, napi_value* argv);

}  // namespace clawloop
