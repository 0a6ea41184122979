// addon.nd: data movement (strided copies for transpose and slice, pad, concat, split, tile),
// indexing (gather, gatherNd, scatterNd), fill, and the matrix product.
#include "copyKernels.h"
#include "gemm.h"
#include "halfGemm.h"
#include "napiUtil.h"
#include "ndApi.h"
#include "ndLayout.h"
#include "ndPlan.h"
#include "tile.h"

namespace clawloop {
namespace {

uint32_t* words(Buf* b) { return static_cast<uint32_t*>(b->data); }

// strided(x, shape, strides, offset) -> contiguous [shape]: out[i...] = x[offset + Σ i_d·strides_d]
napi_value ApiStrided(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Buf* x;
  std::vector<int64_t> shape, strides;
  int64_t offset;
  if (!getArgs(env, info, 4, argv) || !argBuf(env, argv[0], "x", &x) || !argShape(env, argv[1], "shape", &shape) ||
      !argShape(env, argv[2], "strides", &strides) || !argInt(env, argv[3], "offset", &offset))
    return nullptr;
  int64_t last = offset;
  bool ok = shape.size() == strides.size() && shape.size() <= kMaxRank && offset >= 0;
  for (size_t d = 0; ok && d < shape.size(); d++) {
    ok = shape[d] >= 0 && strides[d] >= 0;
    if (shape[d] > 0) last += (shape[d] - 1) * strides[d];
  }
  const size_t n = product(shape);
  if (!check(env, ok && (n == 0 || static_cast<size_t>(last) < x->count), "strided", "the view reaches outside the tensor")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, x->kind, n, &o);
  if (!out || n == 0) return out;
  StridedView v;
  v.rank = static_cast<int>(shape.size());
  for (int d = 0; d < v.rank; d++) {
    v.shape[d] = shape[d];
    v.stride[d] = strides[d];
  }
  v.offset = offset;
  if (v.rank == 0) {
    v.rank = 1;
    v.shape[0] = 1;
    v.stride[0] = 1;
  }
  simplify(&v);
  stridedCopy(x->data, v, o->data, kindBytes(x->kind));
  return out;
}

// pad(x, shape, before, after, valueBits) -> out
napi_value ApiPad(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Buf* x;
  std::vector<int64_t> shape, before, after;
  int64_t bits;
  if (!getArgs(env, info, 5, argv) || !argBuf(env, argv[0], "x", &x) || !argShape(env, argv[1], "shape", &shape) ||
      !argShape(env, argv[2], "before", &before) || !argShape(env, argv[3], "after", &after) || !argInt(env, argv[4], "valueBits", &bits))
    return nullptr;
  size_t n = 1;
  bool ok = shape.size() == before.size() && shape.size() == after.size() && shape.size() <= 16 && !isHalf(x->kind) && x->count == product(shape);
  for (size_t d = 0; ok && d < shape.size(); d++) {
    ok = before[d] >= 0 && after[d] >= 0;
    n *= shape[d] + before[d] + after[d];
  }
  if (!check(env, ok, "pad", "shapes do not match")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, x->kind, n, &o);
  if (!out || n == 0) return out;
  if (x->count == 0) fill4(words(o), n, static_cast<uint32_t>(bits));
  else pad4(words(x), shape.data(), before.data(), after.data(), static_cast<int>(shape.size()), static_cast<uint32_t>(bits), words(o));
  return out;
}

// concat(inputs, blocks, outer) -> out: for each o < outer, the inputs' blocks one after another
napi_value ApiConcat(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  std::vector<Buf*> xs;
  std::vector<int64_t> blocks;
  int64_t outer;
  if (!getArgs(env, info, 3, argv) || !argBufList(env, argv[0], "inputs", &xs) || !argShape(env, argv[1], "blocks", &blocks) ||
      !argInt(env, argv[2], "outer", &outer))
    return nullptr;
  bool ok = !xs.empty() && xs.size() == blocks.size() && outer >= 0;
  size_t row = 0;
  std::vector<const uint32_t*> ptrs;
  std::vector<size_t> sizes;
  for (size_t i = 0; ok && i < xs.size(); i++) {
    ok = !isHalf(xs[i]->kind) && xs[i]->kind == xs[0]->kind && xs[i]->count == static_cast<size_t>(blocks[i] * outer);
    row += blocks[i];
    ptrs.push_back(words(xs[i]));
    sizes.push_back(static_cast<size_t>(blocks[i]));
  }
  if (!check(env, ok, "concat", "sizes do not match the inputs")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, xs[0]->kind, row * outer, &o);
  if (out && row * outer > 0) concat4(ptrs.data(), sizes.data(), ptrs.size(), outer, words(o));
  return out;
}

// split(x, blocks, outer) -> outputs (the inverse of concat)
napi_value ApiSplit(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf* x;
  std::vector<int64_t> blocks;
  int64_t outer;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "x", &x) || !argShape(env, argv[1], "blocks", &blocks) ||
      !argInt(env, argv[2], "outer", &outer))
    return nullptr;
  size_t row = 0;
  for (int64_t b : blocks) row += b;
  if (!check(env, !isHalf(x->kind) && x->count == row * outer, "split", "sizes do not match the input")) return nullptr;
  napi_value list;
  napi_create_array_with_length(env, blocks.size(), &list);
  std::vector<uint32_t*> ptrs;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < blocks.size(); i++) {
    Buf* o;
    napi_value item = newBuf(env, x->kind, blocks[i] * outer, &o);
    if (!item) return nullptr;
    napi_set_element(env, list, i, item);
    ptrs.push_back(words(o));
    sizes.push_back(static_cast<size_t>(blocks[i]));
  }
  if (row * outer > 0) split4(words(x), ptrs.data(), sizes.data(), ptrs.size(), outer);
  return list;
}

napi_value ApiTile(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf* x;
  std::vector<int64_t> shape, reps;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "x", &x) || !argShape(env, argv[1], "shape", &shape) ||
      !argShape(env, argv[2], "reps", &reps))
    return nullptr;
  size_t n = 1;
  bool ok = shape.size() == reps.size() && shape.size() <= 8 && !isHalf(x->kind) && x->count == product(shape);
  for (size_t d = 0; ok && d < shape.size(); d++) n *= shape[d] * reps[d];
  if (!check(env, ok, "tile", "shapes do not match")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, x->kind, n, &o);
  if (out && n > 0) tile4(words(x), words(o), shape.data(), reps.data(), static_cast<int>(shape.size()));
  return out;
}

// gather(x, indices, outer, axisSize, inner) -> [outer, indices, inner]; 16-bit x gives float32
napi_value ApiGather(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Buf *x, *idx;
  int64_t outer, axis, inner;
  if (!getArgs(env, info, 5, argv) || !argBuf(env, argv[0], "x", &x) || !argBuf(env, argv[1], "indices", &idx) ||
      !argInt(env, argv[2], "outer", &outer) || !argInt(env, argv[3], "axisSize", &axis) || !argInt(env, argv[4], "inner", &inner))
    return nullptr;
  if (!check(env, idx->kind == Kind::I32 && x->count == size_t(outer * axis * inner), "gather", "sizes do not match")) return nullptr;
  Buf* o;
  const size_t n = outer * idx->count * inner;
  napi_value out = newBuf(env, isHalf(x->kind) ? Kind::F32 : x->kind, n, &o);
  if (!out || n == 0) return out;
  const int64_t bad = isHalf(x->kind) ? gatherHalf(x->u16(), x->kind, idx->i32(), idx->count, outer, axis, inner, o->f32())
                                      : gather4(words(x), idx->i32(), idx->count, outer, axis, inner, words(o));
  if (bad >= 0)
    return check(env, false, "gather", "index " + std::to_string(idx->i32()[bad]) + " is outside [0, " + std::to_string(axis) + ")"), nullptr;
  return out;
}

// gatherNd(x, indices, numSlices, strides, sliceSize) -> [numSlices·sliceSize]
napi_value ApiGatherNd(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Buf *x, *idx;
  int64_t slices, sliceSize;
  std::vector<int64_t> strides;
  if (!getArgs(env, info, 5, argv) || !argBuf(env, argv[0], "x", &x) || !argBuf(env, argv[1], "indices", &idx) ||
      !argInt(env, argv[2], "numSlices", &slices) || !argShape(env, argv[3], "strides", &strides) || !argInt(env, argv[4], "sliceSize", &sliceSize))
    return nullptr;
  if (!check(env, !isHalf(x->kind) && idx->kind == Kind::I32 && idx->count == slices * strides.size(), "gatherNd", "sizes do not match"))
    return nullptr;
  Buf* o;
  napi_value out = newBuf(env, x->kind, slices * sliceSize, &o);
  if (!out) return nullptr;
  const int64_t bad = gatherNd4(words(x), x->count, idx->i32(), slices, static_cast<int>(strides.size()), strides.data(), sliceSize, words(o));
  return check(env, bad < 0, "gatherNd", "index of slice " + std::to_string(bad) + " is out of range") ? out : nullptr;
}

// scatterNd(indices, updates, numSlices, strides, sliceSize, outSize) -> out (zeros plus the updates)
napi_value ApiScatterNd(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  Buf *idx, *upd;
  int64_t slices, sliceSize, outSize;
  std::vector<int64_t> strides;
  if (!getArgs(env, info, 6, argv) || !argBuf(env, argv[0], "indices", &idx) || !argBuf(env, argv[1], "updates", &upd) ||
      !argInt(env, argv[2], "numSlices", &slices) || !argShape(env, argv[3], "strides", &strides) ||
      !argInt(env, argv[4], "sliceSize", &sliceSize) || !argInt(env, argv[5], "outSize", &outSize))
    return nullptr;
  if (!check(env, upd->kind == Kind::F32 && idx->kind == Kind::I32 && idx->count == slices * strides.size() && upd->count == size_t(slices * sliceSize),
             "scatterNd", "sizes do not match"))
    return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, outSize, &o);
  if (!out) return nullptr;
  const int64_t bad = scatterNdF32(idx->i32(), upd->f32(), slices, static_cast<int>(strides.size()), strides.data(), sliceSize, o->f32(), outSize);
  return check(env, bad < 0, "scatterNd", "index of slice " + std::to_string(bad) + " is out of range") ? out : nullptr;
}

// fill(kind, count, valueBits) -> out
napi_value ApiFill(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Kind kind;
  int64_t count, bits;
  if (!getArgs(env, info, 3, argv) || !argKind(env, argv[0], &kind) || !argInt(env, argv[1], "count", &count) || !argInt(env, argv[2], "valueBits", &bits))
    return nullptr;
  if (!check(env, !isHalf(kind) && count >= 0, "fill", "bad kind or count")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, kind, count, &o);
  if (out) fill4(words(o), count, static_cast<uint32_t>(bits));
  return out;
}

// matmul(a, b, batch, m, n, k, transA, transB, strideA, strideB) -> C [batch, m, n]; b may be 16-bit
napi_value ApiMatMul(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  Buf *a, *b;
  int64_t batch, m, n, k, sa, sb;
  bool ta, tb;
  if (!getArgs(env, info, 10, argv) || !argBuf(env, argv[0], "a", &a) || !argBuf(env, argv[1], "b", &b) || !argInt(env, argv[2], "batch", &batch) ||
      !argInt(env, argv[3], "m", &m) || !argInt(env, argv[4], "n", &n) || !argInt(env, argv[5], "k", &k) || !argBool(env, argv[6], "transA", &ta) ||
      !argBool(env, argv[7], "transB", &tb) || !argInt(env, argv[8], "strideA", &sa) || !argInt(env, argv[9], "strideB", &sb))
    return nullptr;
  const bool sizes = batch >= 0 && m >= 0 && n >= 0 && k >= 0 && sa >= 0 && sb >= 0 &&
                     (batch == 0 || (a->count >= size_t((batch - 1) * sa + m * k) && b->count >= size_t((batch - 1) * sb + k * n)));
  if (!check(env, a->kind == Kind::F32 && (b->kind == Kind::F32 || isHalf(b->kind)) && sizes, "matmul", "kinds or sizes do not match"))
    return nullptr;
  Buf* o;
  const size_t total = batch * m * n;
  napi_value out = newBuf(env, Kind::F32, total, &o);
  if (!out || total == 0) return out;
  if (k == 0) {
    std::fill_n(o->f32(), total, 0.0f);
  } else if (isHalf(b->kind)) {
    gemmHalfB(a->f32(), b->u16(), b->kind, o->f32(), batch, m, n, k, ta, tb, sa, sb, m * n);
  } else {
    gemmBatched(a->f32(), b->f32(), o->f32(), batch, m, n, k, ta, tb, sa, sb, m * n);
  }
  return out;
}

}  // namespace

void layoutEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"strided", ApiStrided}, {"pad", ApiPad}, {"concat", ApiConcat}, {"split", ApiSplit}, {"tile", ApiTile}, {"gather", ApiGather},
                           {"gatherNd", ApiGatherNd}, {"scatterNd", ApiScatterNd}, {"fill", ApiFill}, {"matmul", ApiMatMul}});
}

}  // namespace clawloop
