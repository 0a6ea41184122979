// ClawLoop's native addon: its entry points. The native tfjs backend's storage and kernels are the
// `nd` object (ndApi*.cc); here only the process-wide thread count and what the addon runs on.
#include <node_api.h>

#include <mutex>
#include <thread>

#include "blas.h"
#include "ndApi.h"
#include "napiUtil.h"
#include "tensorBuf.h"
#include "threadPool.h"

using namespace clawloop;

// initThreads(n) -> the thread count in effect, for BLAS and for ClawLoop's own kernels.
// openblas_set_num_threads and the kernel pool are process-wide, but every worker thread that loads
// the engine loads this addon: if each set its own count, one could resize BLAS's or the pool's
// threads while another computes, or undo another's setting. So the first call in the process
// decides (std::call_once also makes a concurrent second caller wait for it) and later calls change
// nothing; each caller learns the count in effect.
static std::once_flag threadsDecided;

static napi_value InitThreads(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!getArgs(env, info, 1, argv)) return nullptr;
  int64_t n;
  if (!argInt(env, argv[0], "threads", &n)) return nullptr;
  const int want = static_cast<int>(n < 1 ? 1 : n);
  std::call_once(threadsDecided, [want] {
    blasSetThreads(want);
    setPoolThreads(want);
  });
  napi_value out;
  napi_create_int32(env, poolThreads(), &out);
  return out;
}

// info(): { threads, blasThreads, hardwareThreads, blas }
static napi_value Info(napi_env env, napi_callback_info) {
  napi_value out, v;
  napi_create_object(env, &out);
  napi_create_int32(env, poolThreads(), &v);
  napi_set_named_property(env, out, "threads", v);
  napi_create_int32(env, blasGetThreads(), &v);
  napi_set_named_property(env, out, "blasThreads", v);
  napi_create_int32(env, static_cast<int>(std::thread::hardware_concurrency()), &v);
  napi_set_named_property(env, out, "hardwareThreads", v);
#if defined(CLAWLOOP_ACCELERATE)
  napi_create_string_utf8(env, "accelerate", NAPI_AUTO_LENGTH, &v);
#else
  napi_create_string_utf8(env, "openblas", NAPI_AUTO_LENGTH, &v);
#endif
  napi_set_named_property(env, out, "blas", v);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  clawloop::keepLargeBlocksMapped();
  napi_property_descriptor props[] = {
      {"initThreads", nullptr, InitThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  napi_set_named_property(env, exports, "nd", makeNdObject(env));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
