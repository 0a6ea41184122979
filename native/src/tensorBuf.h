// Tensor storage of the native backend: one block of native memory per tensor (outside any
// JavaScript heap, so no size limit but RAM), or a view into a memory-mapped weight file.
#pragma once
#include <node_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace clawloop {

// How elements are stored: float32; int32 (bool too, as 0/1); or 16-bit floats (bfloat16, IEEE
// half) that kernels read as float32. 16-bit storage only ever holds frozen weights.
enum class Kind : int32_t { F32 = 0, I32 = 1, BF16 = 2, F16 = 3 };

inline size_t kindBytes(Kind k) { return k == Kind::BF16 || k == Kind::F16 ? 2 : 4; }
inline bool isHalf(Kind k) { return k == Kind::BF16 || k == Kind::F16; }

struct FileMap;

struct Buf {
  void* data = nullptr;  // null once released
  size_t count = 0;      // elements
  size_t capacity = 0;   // bytes allocated (owned buffers)
  Kind kind = Kind::F32;
  bool owned = false;         // data was allocated here (else it points into `map`)
  std::shared_ptr<FileMap> map;  // keeps a mapped file alive while a view of it lives
  void release();
  ~Buf() { release(); }
  float* f32() const { return static_cast<float*>(data); }
  int32_t* i32() const { return static_cast<int32_t*>(data); }
  uint16_t* u16() const { return static_cast<uint16_t*>(data); }
};

// Bytes allocated by allocBuf and not yet released (process-wide).
extern std::atomic<int64_t> nativeBytes;

// Bytes of freed blocks kept for reuse (see allocBuf), and a way to hand them back to the OS.
int64_t cachedBytes();
void trimCache();

// Makes freed large blocks go back to the OS (glibc; nothing elsewhere). Called once at load.
void keepLargeBlocksMapped();

// A new uninitialised buffer, 64-byte aligned; nullptr when memory is exhausted.
Buf* allocBuf(Kind kind, size_t count);

// Wraps a Buf in a JS external that deletes it when collected (release() frees it earlier).
napi_value wrapBuf(napi_env env, Buf* b);

// Allocates and wraps in one go; throws a RangeError (returns nullptr) when out of memory.
napi_value newBuf(napi_env env, Kind kind, size_t count, Buf** out);

// Reads a Buf argument; throws (returns false) when it is not one or was released.
bool argBuf(napi_env env, napi_value v, const char* name, Buf** out);

inline float bf16ToF32(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
float f16ToF32(uint16_t h);

// dst[i] = src[i] widened to float32, for `kind` BF16 or F16.
void widen(const uint16_t* src, Kind kind, float* dst, size_t n);

}  // namespace clawloop
