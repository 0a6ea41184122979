// Small helpers for reading N-API arguments with clear errors.
#pragma once
#include <node_api.h>

#include <cstdint>
#include <string>

namespace clawloop {

// Each throws a JS TypeError and returns false on failure, so callers can `return nullptr`.
bool argInt(napi_env env, napi_value v, const char* name, int64_t* out);
bool argBool(napi_env env, napi_value v, const char* name, bool* out);
bool argDouble(napi_env env, napi_value v, const char* name, double* out);

napi_value undefinedValue(napi_env env);

// Reads `count` arguments into argv; throws when fewer were given.
bool getArgs(napi_env env, napi_callback_info info, size_t count, napi_value* argv);

}  // namespace clawloop
