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

using Entry = std::pair<const char*, napi_callback>;
void storageEntries(std::vector<Entry>* out);
void mathEntries(std::vector<Entry>* out);
void layoutEntries(std::vector<Entry>* out);
void fusedEntries(std::vector<Entry>* out);

// The `nd` object with every entry above.
napi_value makeNdObject(napi_env env);

}  // namespace clawloop
