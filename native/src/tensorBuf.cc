#include "tensorBuf.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(_WIN32) || defined(__GLIBC__)
#include <malloc.h>
#endif

#include "fileMap.h"

namespace clawloop {

std::atomic<int64_t> nativeBytes{0};

namespace {

void* alignedAlloc(size_t bytes) {
#if defined(_WIN32)
  return _aligned_malloc(bytes, 64);
#else
  void* p = nullptr;
  return posix_memalign(&p, 64, bytes) == 0 ? p : nullptr;
#endif
}

void alignedFree(void* p) {
#if defined(_WIN32)
  _aligned_free(p);
#else
  std::free(p);
#endif
}

void finalize(napi_env, void* data, void*) { delete static_cast<Buf*>(data); }

// Freed blocks of 64 KB and more are kept by size class and reused: a training or decoding loop
// allocates the same shapes step after step, and a fresh block of that size would come from the
// OS as zeroed pages, one page fault per 4 KB (a large share of an element-wise op's time). Size
// classes are 4 per power of two (at most 25 % unused), and the cache holds at most
// CLAWLOOP_NATIVE_CACHE_MB (default 256) MB, beyond which freed blocks go back to the OS.
constexpr size_t kCacheMin = 64 * 1024;
std::mutex cacheMu;
std::map<size_t, std::vector<void*>> freeBlocks;
size_t cached = 0;

size_t cacheCap() {
  static const size_t cap = [] {
    const char* v = std::getenv("CLAWLOOP_NATIVE_CACHE_MB");
    const long mb = v ? std::strtol(v, nullptr, 10) : 256;
    return static_cast<size_t>(mb < 0 ? 0 : mb) << 20;
  }();
  return cap;
}

size_t sizeClass(size_t bytes) {
  if (bytes < kCacheMin) return (std::max<size_t>(64, bytes) + 63) & ~size_t(63);
  size_t pow = kCacheMin;
  while (pow * 2 <= bytes) pow *= 2;
  const size_t step = pow / 4;
  return (bytes + step - 1) / step * step;
}

void* blockAlloc(size_t bytes) {
  if (bytes >= kCacheMin) {
    std::lock_guard<std::mutex> lock(cacheMu);
    auto it = freeBlocks.find(bytes);
    if (it != freeBlocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached -= bytes;
      return p;
    }
  }
  return alignedAlloc(bytes);
}

void blockFree(void* p, size_t bytes) {
  if (bytes >= kCacheMin && bytes <= cacheCap() / 4) {
    std::lock_guard<std::mutex> lock(cacheMu);
    // Make room by dropping the largest cached blocks first.
    while (cached + bytes > cacheCap() && !freeBlocks.empty()) {
      auto last = std::prev(freeBlocks.end());
      if (last->second.empty()) {
        freeBlocks.erase(last);
        continue;
      }
      alignedFree(last->second.back());
      last->second.pop_back();
      cached -= last->first;
    }
    freeBlocks[bytes].push_back(p);
    cached += bytes;
    return;
  }
  alignedFree(p);
}

}  // namespace

void keepLargeBlocksMapped() {
#if defined(__GLIBC__)
  // glibc serves a block of 128 KB or more with its own mmap, given back to the OS when freed, but
  // raises that threshold to the size of each such block freed (up to 32 MB). After the first
  // training step every activation is below it, comes from the heap, and stays resident when
  // freed: a 1.7B LoRA step at 256 tokens peaked at 10.4 GB instead of 7.9 GB. Setting the
  // threshold turns that adjustment off; the size-class cache above keeps reuse cheap.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int64_t cachedBytes() {
  std::lock_guard<std::mutex> lock(cacheMu);
  return static_cast<int64_t>(cached);
}

void trimCache() {
  std::lock_guard<std::mutex> lock(cacheMu);
  for (auto& [size, blocks] : freeBlocks)
    for (void* p : blocks) alignedFree(p);
  freeBlocks.clear();
  cached = 0;
}

void Buf::release() {
  if (owned && data) {
    blockFree(data, capacity);
    nativeBytes -= static_cast<int64_t>(count * kindBytes(kind));
  }
  data = nullptr;
  owned = false;
  map.reset();
}

Buf* allocBuf(Kind kind, size_t count) {
  // At least one cache line, so empty tensors still have an address.
  const size_t bytes = sizeClass(count * kindBytes(kind));
  void* p = blockAlloc(bytes);
  if (!p) return nullptr;
  Buf* b = new Buf();
  b->data = p;
  b->capacity = bytes;
  b->count = count;
  b->kind = kind;
  b->owned = true;
  nativeBytes += static_cast<int64_t>(count * kindBytes(kind));
  return b;
}

napi_value wrapBuf(napi_env env, Buf* b) {
  napi_value out;
  if (napi_create_external(env, b, finalize, nullptr, &out) != napi_ok) {
    delete b;
    napi_throw_error(env, nullptr, "native backend: could not wrap a tensor buffer");
    return nullptr;
  }
  return out;
}

napi_value newBuf(napi_env env, Kind kind, size_t count, Buf** out) {
  Buf* b = allocBuf(kind, count);
  if (!b) {
    const std::string msg = "native backend: out of memory allocating " + std::to_string(count * kindBytes(kind)) +
                            " bytes for a tensor (free memory, or use a smaller batch or sequence)";
    napi_throw_range_error(env, nullptr, msg.c_str());
    return nullptr;
  }
  *out = b;
  return wrapBuf(env, b);
}

bool argBuf(napi_env env, napi_value v, const char* name, Buf** out) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  void* p = nullptr;
  if (t != napi_external || napi_get_value_external(env, v, &p) != napi_ok || !p) {
    napi_throw_type_error(env, nullptr, (std::string(name) + " must be a native tensor buffer").c_str());
    return false;
  }
  Buf* b = static_cast<Buf*>(p);
  if (!b->data) {
    napi_throw_error(env, nullptr, (std::string(name) + ": the tensor's data was already released (disposed tensor?)").c_str());
    return false;
  }
  *out = b;
  return true;
}

float f16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while (!(mant & 0x400)) {
      mant <<= 1;
      exp--;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void widen(const uint16_t* src, Kind kind, float* dst, size_t n) {
  size_t i = 0;
  if (kind == Kind::BF16) {
    for (; i < n; i++) dst[i] = bf16ToF32(src[i]);
    return;
  }
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
#endif
  for (; i < n; i++) dst[i] = f16ToF32(src[i]);
}

}  // namespace clawloop
