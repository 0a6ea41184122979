// ClawLoop's native kernels: N-API entry points. Every function works in place on Float32Array
// views (ClawLoop passes views of the tfjs-wasm heap, so no data is copied) and runs synchronously:
// a tfjs kernel must return its result before the next op runs.
#include <node_api.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "blas.h"
#include "gemm.h"
#include "ndApi.h"
#include "napiUtil.h"
#include "copyKernels.h"
#include "elementwise.h"
#include "tile.h"
#include "unaryKernels.h"
#include "tensorBuf.h"
#include "threadPool.h"

using namespace clawloop;

// gemm(a, b, c, batch, m, n, k, transA, transB, strideA, strideB, strideC)
static napi_value Gemm(napi_env env, napi_callback_info info) {
  napi_value argv[12];
  if (!getArgs(env, info, 12, argv)) return nullptr;
  F32View a, b, c;
  int64_t batch, m, n, k, sa, sb, sc;
  bool ta, tb;
  if (!argFloat32(env, argv[0], "a", &a) || !argFloat32(env, argv[1], "b", &b) || !argFloat32(env, argv[2], "c", &c) ||
      !argInt(env, argv[3], "batch", &batch) || !argInt(env, argv[4], "m", &m) || !argInt(env, argv[5], "n", &n) ||
      !argInt(env, argv[6], "k", &k) || !argBool(env, argv[7], "transA", &ta) || !argBool(env, argv[8], "transB", &tb) ||
      !argInt(env, argv[9], "strideA", &sa) || !argInt(env, argv[10], "strideB", &sb) || !argInt(env, argv[11], "strideC", &sc))
    return nullptr;
  if (batch < 1 || m < 1 || n < 1 || k < 1 || sa < 0 || sb < 0 || sc < 0) {
    napi_throw_range_error(env, nullptr, "gemm: sizes must be positive and strides non-negative");
    return nullptr;
  }
  if (!requireLength(env, a, (batch - 1) * sa + m * k, "a") || !requireLength(env, b, (batch - 1) * sb + k * n, "b") ||
      !requireLength(env, c, (batch - 1) * sc + m * n, "c"))
    return nullptr;
  gemmBatched(a.data, b.data, c.data, batch, m, n, k, ta, tb, sa, sb, sc);
  return undefinedValue(env);
}

// tile(src, dst, shape: number[], reps: number[]): 4-byte elements (float32 or int32 viewed as floats).
static napi_value Tile(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!getArgs(env, info, 4, argv)) return nullptr;
  F32View src, dst;
  if (!argFloat32(env, argv[0], "src", &src) || !argFloat32(env, argv[1], "dst", &dst)) return nullptr;
  int64_t shape[8], reps[8];
  uint32_t rank = 0, rankReps = 0;
  napi_get_array_length(env, argv[2], &rank);
  napi_get_array_length(env, argv[3], &rankReps);
  if (rank != rankReps || rank > 8) {
    napi_throw_range_error(env, nullptr, "tile: shape and reps must have the same rank (<= 8)");
    return nullptr;
  }
  size_t inSize = 1, outSize = 1;
  for (uint32_t i = 0; i < rank; i++) {
    napi_value v;
    napi_get_element(env, argv[2], i, &v);
    if (!argInt(env, v, "shape[i]", &shape[i])) return nullptr;
    napi_get_element(env, argv[3], i, &v);
    if (!argInt(env, v, "reps[i]", &reps[i])) return nullptr;
    if (shape[i] < 1 || reps[i] < 1) {
      napi_throw_range_error(env, nullptr, "tile: dimensions and reps must be positive");
      return nullptr;
    }
    inSize *= shape[i];
    outSize *= shape[i] * reps[i];
  }
  if (!requireLength(env, src, inSize, "src") || !requireLength(env, dst, outSize, "dst")) return nullptr;
  tile4(reinterpret_cast<const uint32_t*>(src.data), reinterpret_cast<uint32_t*>(dst.data), shape, reps, static_cast<int>(rank));
  return undefinedValue(env);
}

// gather(x, indices: Int32Array, outer, axisSize, inner, out): rows along an axis. Throws on an index out of range.
static napi_value Gather(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!getArgs(env, info, 6, argv)) return nullptr;
  uint32_t *x, *idx, *out;
  size_t xLen, idxLen, outLen;
  int64_t outer, axisSize, inner;
  if (!arg4Byte(env, argv[0], "x", &x, &xLen) || !arg4Byte(env, argv[1], "indices", &idx, &idxLen) || !argInt(env, argv[2], "outer", &outer) ||
      !argInt(env, argv[3], "axisSize", &axisSize) || !argInt(env, argv[4], "inner", &inner) || !arg4Byte(env, argv[5], "out", &out, &outLen))
    return nullptr;
  if (outer < 1 || axisSize < 1 || inner < 1 || xLen < static_cast<size_t>(outer * axisSize * inner) ||
      outLen < static_cast<size_t>(outer) * idxLen * inner) {
    napi_throw_range_error(env, nullptr, "gather: sizes do not match the arrays");
    return nullptr;
  }
  int64_t bad = gather4(x, reinterpret_cast<const int32_t*>(idx), idxLen, outer, axisSize, inner, out);
  if (bad >= 0) {
    std::string msg = "gather: index " + std::to_string(reinterpret_cast<const int32_t*>(idx)[bad]) + " at position " + std::to_string(bad) +
                      " is outside [0, " + std::to_string(axisSize) + ")";
    napi_throw_range_error(env, nullptr, msg.c_str());
    return nullptr;
  }
  return undefinedValue(env);
}

// concat(inputs: TypedArray[], blocks: number[], outer, out)
static napi_value Concat(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!getArgs(env, info, 4, argv)) return nullptr;
  std::vector<uint32_t*> inputs;
  std::vector<size_t> lengths, blocks;
  uint32_t* out;
  size_t outLen;
  int64_t outer;
  if (!arg4ByteList(env, argv[0], "inputs", &inputs, &lengths) || !argSizeList(env, argv[1], "blocks", &blocks) ||
      !argInt(env, argv[2], "outer", &outer) || !arg4Byte(env, argv[3], "out", &out, &outLen))
    return nullptr;
  size_t row = 0;
  bool ok = inputs.size() == blocks.size() && outer >= 1;
  for (size_t i = 0; ok && i < inputs.size(); i++) {
    ok = lengths[i] >= blocks[i] * outer;
    row += blocks[i];
  }
  if (!ok || outLen < row * outer) {
    napi_throw_range_error(env, nullptr, "concat: sizes do not match the arrays");
    return nullptr;
  }
  concat4(inputs.data(), blocks.data(), inputs.size(), outer, out);
  return undefinedValue(env);
}

// split(x, outputs: TypedArray[], blocks: number[], outer)
static napi_value Split(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!getArgs(env, info, 4, argv)) return nullptr;
  uint32_t* x;
  size_t xLen;
  std::vector<uint32_t*> outputs;
  std::vector<size_t> lengths, blocks;
  int64_t outer;
  if (!arg4Byte(env, argv[0], "x", &x, &xLen) || !arg4ByteList(env, argv[1], "outputs", &outputs, &lengths) ||
      !argSizeList(env, argv[2], "blocks", &blocks) || !argInt(env, argv[3], "outer", &outer))
    return nullptr;
  size_t row = 0;
  bool ok = outputs.size() == blocks.size() && outer >= 1;
  for (size_t i = 0; ok && i < outputs.size(); i++) {
    ok = lengths[i] >= blocks[i] * outer;
    row += blocks[i];
  }
  if (!ok || xLen < row * outer) {
    napi_throw_range_error(env, nullptr, "split: sizes do not match the arrays");
    return nullptr;
  }
  split4(x, outputs.data(), blocks.data(), outputs.size(), outer);
  return undefinedValue(env);
}

// unary(op: 0 exp | 1 sigmoid | 2 square | 3 sqrt | 4 rsqrt | 5 neg, x, out)
static napi_value UnaryOp(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!getArgs(env, info, 3, argv)) return nullptr;
  int64_t op;
  F32View x, out;
  if (!argInt(env, argv[0], "op", &op) || !argFloat32(env, argv[1], "x", &x) || !argFloat32(env, argv[2], "out", &out)) return nullptr;
  if (op < 0 || op > 5) {
    napi_throw_range_error(env, nullptr, "unary: op must be 0 (exp), 1 (sigmoid), 2 (square), 3 (sqrt), 4 (rsqrt) or 5 (neg)");
    return nullptr;
  }
  if (!requireLength(env, out, x.length, "out")) return nullptr;
  unary(static_cast<Unary>(op), x.data, out.data, x.length);
  return undefinedValue(env);
}

// binary(op: 0 add | 1 sub | 2 mul | 3 div, mode: Broadcast, a, b, out, rows, cols)
static napi_value BinaryOp(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  if (!getArgs(env, info, 7, argv)) return nullptr;
  int64_t op, mode, rows, cols;
  F32View a, b, out;
  if (!argInt(env, argv[0], "op", &op) || !argInt(env, argv[1], "mode", &mode) || !argFloat32(env, argv[2], "a", &a) ||
      !argFloat32(env, argv[3], "b", &b) || !argFloat32(env, argv[4], "out", &out) || !argInt(env, argv[5], "rows", &rows) ||
      !argInt(env, argv[6], "cols", &cols))
    return nullptr;
  if (op < 0 || op > 3 || mode < 0 || mode > 6 || rows < 1 || cols < 1) {
    napi_throw_range_error(env, nullptr, "binary: op must be 0..3, mode 0..6, rows and cols positive");
    return nullptr;
  }
  const size_t n = static_cast<size_t>(rows) * cols;
  size_t needA = n, needB = n;
  switch (static_cast<Broadcast>(mode)) {
    case Broadcast::Same: break;
    case Broadcast::ScalarB: needB = 1; break;
    case Broadcast::ScalarA: needA = 1; break;
    case Broadcast::RowB: needB = cols; break;
    case Broadcast::RowA: needA = cols; break;
    case Broadcast::ColB: needB = rows; break;
    case Broadcast::ColA: needA = rows; break;
  }
  if (!requireLength(env, a, needA, "a") || !requireLength(env, b, needB, "b") || !requireLength(env, out, n, "out")) return nullptr;
  binary(static_cast<Binary>(op), static_cast<Broadcast>(mode), a.data, b.data, out.data, rows, cols);
  return undefinedValue(env);
}

// reduceSum(x, out, outer, axis, inner)
static napi_value ReduceSum(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!getArgs(env, info, 5, argv)) return nullptr;
  F32View x, out;
  int64_t outer, axis, inner;
  if (!argFloat32(env, argv[0], "x", &x) || !argFloat32(env, argv[1], "out", &out) || !argInt(env, argv[2], "outer", &outer) ||
      !argInt(env, argv[3], "axis", &axis) || !argInt(env, argv[4], "inner", &inner))
    return nullptr;
  if (outer < 1 || axis < 1 || inner < 1) {
    napi_throw_range_error(env, nullptr, "reduceSum: sizes must be positive");
    return nullptr;
  }
  if (!requireLength(env, x, outer * axis * inner, "x") || !requireLength(env, out, outer * inner, "out")) return nullptr;
  reduceSum(x.data, out.data, outer, axis, inner);
  return undefinedValue(env);
}

// softmax(x, out, rows, cols): over the last axis.
static napi_value Softmax(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!getArgs(env, info, 4, argv)) return nullptr;
  F32View x, out;
  int64_t rows, cols;
  if (!argFloat32(env, argv[0], "x", &x) || !argFloat32(env, argv[1], "out", &out) || !argInt(env, argv[2], "rows", &rows) ||
      !argInt(env, argv[3], "cols", &cols))
    return nullptr;
  if (rows < 1 || cols < 1) {
    napi_throw_range_error(env, nullptr, "softmax: sizes must be positive");
    return nullptr;
  }
  if (!requireLength(env, x, rows * cols, "x") || !requireLength(env, out, rows * cols, "out")) return nullptr;
  softmaxRows(x.data, out.data, rows, cols);
  return undefinedValue(env);
}

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
      {"gemm", nullptr, Gemm, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"gather", nullptr, Gather, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"concat", nullptr, Concat, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"split", nullptr, Split, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"unary", nullptr, UnaryOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"binary", nullptr, BinaryOp, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"reduceSum", nullptr, ReduceSum, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"softmax", nullptr, Softmax, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"tile", nullptr, Tile, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"initThreads", nullptr, InitThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  napi_set_named_property(env, exports, "nd", makeNdObject(env));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
