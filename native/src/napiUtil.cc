#include "napiUtil.h"

namespace clawloop {

bool argInt(napi_env env, napi_value v, const char* name, int64_t* out) {
  if (napi_get_value_int64(env, v, out) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be an integer").c_str());
    return false;
  }
  return true;
}

bool argBool(napi_env env, napi_value v, const char* name, bool* out) {
  if (napi_get_value_bool(env, v, out) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a boolean").c_str());
    return false;
  }
  return true;
}

bool argDouble(napi_env env, napi_value v, const char* name, double* out) {
  if (napi_get_value_double(env, v, out) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a number").c_str());
    return false;
  }
  return true;
}

napi_value undefinedValue(napi_env env) {
  napi_value u;
  napi_get_undefined(env, &u);
  return u;
}

bool getArgs(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
  size_t argc = count;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < count) {
    napi_throw_type_error(env, nullptr, ("expected " + std::to_string(count) + " arguments, got " + std::to_string(argc)).c_str());
    return false;
  }
  return true;
}

}  // namespace clawloop
