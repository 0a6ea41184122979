// N-API entry points of the native tensor backend (addon.nd.*): storage, mapped weights and the
// kernels. Each kernel allocates and returns its output buffer; none writes to its inputs.
#pragma once
#include <node_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tensorBuf.h"

namespace clawloop {

// Helpers shared by the nd*Api.cc files.
bool argShape(napi_env env, napi_value v, const char* name, std::vector<int64_t>* out);
bool argBufList(napi_env env, napi_value v, const char* name, std::vector<Buf*>* out);
bool argKind(napi_env env, napi_value v, Kind* out);
// Throws a RangeError naming the kernel and returns false when `ok` is false.
bool check(napi_env env, bool ok, const char* kernel, const std::string& what);
size_t product(const std::vector<int64_t>& shape);

// Reads positional arguments one by one; after the first failure (a JS exception is pending) every
// read returns a default and ok() is false.
class ArgReader {
 public:
  ArgReader(napi_env env, napi_callback_info info, size_t count);
  Buf* buf(size_t i, const char* name);
  int64_t integer(size_t i, const char* name);
  double number(size_t i, const char* name);
  bool flag(size_t i, const char* name);
  bool ok() const { return ok_; }

 private:
  napi_env env_;
  napi_value argv_[16];
  bool ok_;
};

// A JS array of the given buffers.
napi_value bufList(napi_env env, std::initializer_list<napi_value> items);

using Entry = std::pair<const char*, napi_callback>;
void storageEntries(std::vector<Entry>* out);
void mathEntries(std::vector<Entry>* out);
void layoutEntries(std::vector<Entry>* out);
void fusedEntries(std::vector<Entry>* out);
void gemvEntries(std::vector<Entry>* out);

// The `nd` object with every entry above.
napi_value makeNdObject(napi_env env);

}  // namespace clawloop
