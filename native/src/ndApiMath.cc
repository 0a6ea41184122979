// addon.nd: element-wise kernels, reductions, softmax and top-k.
#include <cmath>

#include "elementwise.h"
#include "napiUtil.h"
#include "ndApi.h"
#include "ndElementwise.h"
#include "ndReduce.h"

namespace clawloop {
namespace {

// unary(op, x) -> out of x's kind (float32 or int32)
napi_value ApiUnary(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t op;
  Buf* x;
  if (!getArgs(env, info, 2, argv) || !argInt(env, argv[0], "op", &op) || !argBuf(env, argv[1], "x", &x)) return nullptr;
  if (!check(env, op >= 0 && op <= 17 && !isHalf(x->kind), "unary", "unknown op or a 16-bit input")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, x->kind, x->count, &o);
  if (!out) return nullptr;
  if (x->kind == Kind::F32) {
    unaryF32(static_cast<NdUnary>(op), x->f32(), o->f32(), x->count);
  } else if (!check(env, unaryI32(static_cast<NdUnary>(op), x->i32(), o->i32(), x->count), "unary", "op not defined on int32")) {
    return nullptr;
  }
  return out;
}

// binary(op, a, aShape, b, bShape, outShape) -> out (the operands' kind, or int32 0/1 for comparisons)
napi_value ApiBinary(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  int64_t op;
  Buf *a, *b;
  std::vector<int64_t> as, bs, os;
  if (!getArgs(env, info, 6, argv) || !argInt(env, argv[0], "op", &op) || !argBuf(env, argv[1], "a", &a) ||
      !argShape(env, argv[2], "aShape", &as) || !argBuf(env, argv[3], "b", &b) || !argShape(env, argv[4], "bShape", &bs) ||
      !argShape(env, argv[5], "outShape", &os))
    return nullptr;
  BroadcastPlan plan;
  if (!check(env, op >= 0 && op <= 16 && a->kind == b->kind && !isHalf(a->kind), "binary", "unknown op or mismatched kinds") ||
      !check(env, a->count == product(as) && b->count == product(bs) && planBroadcast(as, bs, os, &plan), "binary",
             "shapes do not broadcast or do not match the buffers"))
    return nullptr;
  const NdBinary bop = static_cast<NdBinary>(op);
  Buf* o;
  napi_value out = newBuf(env, writesBool(bop) || bop == NdBinary::FloorDiv ? Kind::I32 : a->kind, product(os), &o);
  if (!out || product(os) == 0) return out;
  if (a->kind == Kind::F32) binaryF32(bop, plan, a->f32(), b->f32(), o->data);
  else binaryI32(bop, plan, a->i32(), b->i32(), o->i32());
  return out;
}

// select(cond, t, e) -> out; cond has t's size or one value per leading row
napi_value ApiSelect(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf *c, *t, *e;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "cond", &c) || !argBuf(env, argv[1], "t", &t) || !argBuf(env, argv[2], "e", &e))
    return nullptr;
  if (!check(env, t->count == e->count && t->kind == e->kind && !isHalf(t->kind) && c->count > 0 && t->count % c->count == 0, "select",
             "shapes do not match"))
    return nullptr;
  Buf* o;
  napi_value out = newBuf(env, t->kind, t->count, &o);
  if (out) select4(c->i32(), c->count, static_cast<uint32_t*>(t->data), static_cast<uint32_t*>(e->data), static_cast<uint32_t*>(o->data), t->count);
  return out;
}

// cast(x, kind, toBool) -> out
napi_value ApiCast(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf* x;
  Kind kind;
  bool toBool;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "x", &x) || !argKind(env, argv[1], &kind) || !argBool(env, argv[2], "toBool", &toBool))
    return nullptr;
  if (!check(env, !isHalf(x->kind) && !isHalf(kind), "cast", "16-bit kinds are not cast here")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, kind, x->count, &o);
  if (!out) return nullptr;
  if (x->kind == Kind::F32 && kind == Kind::I32) castF32ToI32(x->f32(), o->i32(), x->count, toBool);
  else if (x->kind == Kind::I32 && kind == Kind::F32) castI32ToF32(x->i32(), o->f32(), x->count);
  else if (toBool) castI32ToBool(x->i32(), o->i32(), x->count);
  else std::memcpy(o->data, x->data, x->count * 4);
  return out;
}

napi_value ApiClip(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf* x;
  double lo, hi;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "x", &x) || !argDouble(env, argv[1], "lo", &lo) || !argDouble(env, argv[2], "hi", &hi))
    return nullptr;
  if (!check(env, x->kind == Kind::F32, "clip", "expects float32")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, x->count, &o);
  if (out) clipF32(x->f32(), static_cast<float>(lo), static_cast<float>(hi), o->f32(), x->count);
  return out;
}

napi_value ApiAddN(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  std::vector<Buf*> xs;
  if (!getArgs(env, info, 1, argv) || !argBufList(env, argv[0], "inputs", &xs)) return nullptr;
  bool ok = !xs.empty();
  std::vector<const float*> ptrs;
  for (Buf* x : xs) {
    ok = ok && x->kind == Kind::F32 && x->count == xs[0]->count;
    ptrs.push_back(x->f32());
  }
  if (!check(env, ok, "addN", "expects float32 inputs of one size")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, xs[0]->count, &o);
  if (out) addNF32(ptrs.data(), ptrs.size(), o->f32(), o->count);
  return out;
}

// reduce(op, x, outer, axis, inner) -> out [outer·inner]
napi_value ApiReduce(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  int64_t op, outer, axis, inner;
  Buf* x;
  if (!getArgs(env, info, 5, argv) || !argInt(env, argv[0], "op", &op) || !argBuf(env, argv[1], "x", &x) ||
      !argInt(env, argv[2], "outer", &outer) || !argInt(env, argv[3], "axis", &axis) || !argInt(env, argv[4], "inner", &inner))
    return nullptr;
  if (!check(env, op >= 0 && op <= 8 && outer >= 0 && axis >= 0 && inner >= 0 && x->count == size_t(outer * axis * inner) && !isHalf(x->kind),
             "reduce", "sizes do not match the input"))
    return nullptr;
  const NdReduce r = static_cast<NdReduce>(op);
  const bool indices = r == NdReduce::ArgMax || r == NdReduce::ArgMin;
  Buf* o;
  napi_value out = newBuf(env, indices ? Kind::I32 : x->kind, outer * inner, &o);
  if (!out || outer * inner == 0) return out;
  if (x->kind == Kind::F32) reduceF32(r, x->f32(), o->data, outer, axis, inner);
  else reduceI32(r, x->i32(), o->i32(), outer, axis, inner);
  return out;
}

napi_value ApiSoftmax(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Buf* x;
  int64_t rows, cols;
  if (!getArgs(env, info, 3, argv) || !argBuf(env, argv[0], "x", &x) || !argInt(env, argv[1], "rows", &rows) || !argInt(env, argv[2], "cols", &cols))
    return nullptr;
  if (!check(env, x->kind == Kind::F32 && rows >= 0 && cols >= 0 && x->count == size_t(rows * cols), "softmax", "sizes do not match")) return nullptr;
  Buf* o;
  napi_value out = newBuf(env, Kind::F32, x->count, &o);
  if (out && rows * cols > 0) softmaxRows(x->f32(), o->f32(), rows, cols);
  return out;
}

// topk(x, rows, cols, k) -> [values, indices]
napi_value ApiTopK(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Buf* x;
  int64_t rows, cols, k;
  if (!getArgs(env, info, 4, argv) || !argBuf(env, argv[0], "x", &x) || !argInt(env, argv[1], "rows", &rows) ||
      !argInt(env, argv[2], "cols", &cols) || !argInt(env, argv[3], "k", &k))
    return nullptr;
  if (!check(env, x->kind == Kind::F32 && x->count == size_t(rows * cols) && k >= 0 && k <= cols, "topk", "sizes do not match")) return nullptr;
  Buf *v, *i;
  napi_value values = newBuf(env, Kind::F32, rows * k, &v);
  if (!values) return nullptr;
  napi_value indices = newBuf(env, Kind::I32, rows * k, &i);
  if (!indices) return nullptr;
  if (rows * k > 0) topK(x->f32(), rows, cols, k, v->f32(), i->i32());
  napi_value out;
  napi_create_array_with_length(env, 2, &out);
  napi_set_element(env, out, 0, values);
  napi_set_element(env, out, 1, indices);
  return out;
}

}  // namespace

void mathEntries(std::vector<Entry>* out) {
  out->insert(out->end(), {{"unary", ApiUnary}, {"binary", ApiBinary}, {"select", ApiSelect}, {"cast", ApiCast}, {"clip", ApiClip}, {"addN", ApiAddN},
                           {"reduce", ApiReduce}, {"softmax", ApiSoftmax}, {"topk", ApiTopK}});
}

}  // namespace clawloop
