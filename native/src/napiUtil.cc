#include "napiUtil.h"

namespace clawloop {

bool argFloat32(napi_env env, napi_value v, const char* name, F32View* out) {
  bool isTyped = false;
  napi_is_typedarray(env, v, &isTyped);
  if (!isTyped) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a Float32Array").c_str());
    return false;
  }
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_value buffer;
  size_t offset;
  napi_get_typedarray_info(env, v, &type, &length, &data, &buffer, &offset);
  if (type != napi_float32_array) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a Float32Array").c_str());
    return false;
  }
  out->data = static_cast<float*>(data);
  out->length = length;
  return true;
}

bool arg4Byte(napi_env env, napi_value v, const char* name, uint32_t** data, size_t* length) {
  bool isTyped = false;
  napi_is_typedarray(env, v, &isTyped);
  napi_typedarray_type type = napi_int8_array;
  void* raw = nullptr;
  if (isTyped) {
    napi_value buffer;
    size_t offset;
    napi_get_typedarray_info(env, v, &type, length, &raw, &buffer, &offset);
  }
  if (!isTyped || (type != napi_float32_array && type != napi_int32_array && type != napi_uint32_array)) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a Float32Array, Int32Array or Uint32Array").c_str());
    return false;
  }
  *data = static_cast<uint32_t*>(raw);
  return true;
}

bool arg4ByteList(napi_env env, napi_value v, const char* name, std::vector<uint32_t*>* data, std::vector<size_t>* lengths) {
  uint32_t n = 0;
  if (napi_get_array_length(env, v, &n) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be an array of typed arrays").c_str());
    return false;
  }
  data->resize(n);
  lengths->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    napi_get_element(env, v, i, &item);
    if (!arg4Byte(env, item, name, &(*data)[i], &(*lengths)[i])) return false;
  }
  return true;
}

bool argSizeList(napi_env env, napi_value v, const char* name, std::vector<size_t>* out) {
  uint32_t n = 0;
  if (napi_get_array_length(env, v, &n) != napi_ok) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be an array of integers").c_str());
    return false;
  }
  out->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    int64_t x;
    napi_get_element(env, v, i, &item);
    if (napi_get_value_int64(env, item, &x) != napi_ok || x < 0) {
      napi_throw_type_error(env, nullptr, (std::string(name) + " must hold non-negative integers").c_str());
      return false;
    }
    (*out)[i] = static_cast<size_t>(x);
  }
  return true;
}

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

bool requireLength(napi_env env, const F32View& view, size_t needed, const char* name) {
  if (view.length < needed) {
    napi_throw_range_error(env, nullptr,
                           (std::string(name) + " holds " + std::to_string(view.length) + " floats; " + std::to_string(needed) + " needed")
                               .c_str());
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
