#!/usr/bin/python3
"""Agreement of lazax's derivatives (`lazax run --grad` and `--jvp`) with torch.autograd.

usage: torch_grads.py PATH/TO/lazax SCRATCH_DIR [CASE_NAME_SUBSTRING]
Every case is a program in the text form (docs/IR.md) built from one primitive (or a composite:
softmax, cross entropy, layer norm, attention...). Reverse mode: the script appends a random
cotangent input %ct and differentiates loss = reduce_sum(result * ct), so the full
vector-Jacobian product is checked, not just a sum; `lazax run --grad` writes one gradient per
parameter. Forward mode: the program without the loss is run with `--jvp` and random tangents,
and its output tangent is compared with torch.autograd.functional.jvp. PyTorch computes from the
same values in float64. Derivatives must agree within rtol/atol (f64: 1e-9/1e-10, f32:
1e-4/1e-5, f16 parameters 1e-2/1e-2, and the case's own for the bf16/f16 programs, which
convert f64 inputs holding bf16/f16 values and compute in that dtype); integer parameters get
zeros. Prints one line per case and `N passed, M failed`; exits non-zero on any failure.
"""
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""

from torch_grads_lib import (BF16, BOOL, F16, F32, F64, I32, I64, RNG, TOL, Prog, T, binary, bcast, const, dot,
                             log_softmax, normal, reduce, softmax, unary, uniform)

# A case: name, inputs, build(prog, *params) -> V, reference(*torch tensors) -> tensor, and the
# (rtol, atol) that replace the parameters' dtype tolerances (None: those).
CASES = []


def case(name, inputs, build, ref, tol=None):
    CASES.append((name, inputs, build, ref, tol))


def one_op(op, attrs="", dtype=None, shape=None):
    return lambda p, *a: p.op(op, list(a), attrs, dtype, shape)


# ---- elementwise ----
UNARY = {
    "neg": (torch.neg, lambda s: normal(*s)), "abs": (torch.abs, lambda s: normal(*s, away=0.1)),
    "relu": (torch.relu, lambda s: normal(*s, away=0.1)),
    "sign": (torch.sign, lambda s: normal(*s, away=0.1)), "exp": (torch.exp, lambda s: normal(*s)),
    "log": (torch.log, lambda s: uniform(0.5, 3, *s)), "log1p": (torch.log1p, lambda s: uniform(-0.5, 3, *s)),
    "expm1": (torch.expm1, lambda s: normal(*s)), "tanh": (torch.tanh, lambda s: normal(*s)),
    "logistic": (torch.sigmoid, lambda s: normal(*s)), "sqrt": (torch.sqrt, lambda s: uniform(0.5, 3, *s)),
    "rsqrt": (torch.rsqrt, lambda s: uniform(0.5, 3, *s)), "sin": (torch.sin, lambda s: normal(*s)),
    "cos": (torch.cos, lambda s: normal(*s)), "erf": (torch.erf, lambda s: normal(*s)),
    "floor": (torch.floor, lambda s: uniform(0.1, 0.4, *s) + RNG.integers(-3, 3, s)),
    "round": (torch.round, lambda s: uniform(0.1, 0.4, *s) + RNG.integers(-3, 3, s)),
    "ceil": (torch.ceil, lambda s: uniform(0.1, 0.4, *s) + RNG.integers(-3, 3, s)),
    "erf_inv": (torch.erfinv, lambda s: uniform(-0.9, 0.9, *s)), "exp2": (torch.exp2, lambda s: normal(*s)),
    "tan": (torch.tan, lambda s: uniform(-1.2, 1.2, *s)),
}
for op, (fn, make) in UNARY.items():
    case(f"{op}_f64", [make((3, 4))], one_op(op), fn)
for op in ["exp", "tanh", "logistic", "rsqrt", "relu"]:
    fn, make = UNARY[op]
    case(f"{op}_f32", [make((3, 4)).astype(F32)], one_op(op), fn)
# relu at its kink and at the infinities: the derivative is 0 at +-0 (torch's threshold_backward).
for dt, tag in [(F64, "f64"), (F32, "f32")]:
    case(f"relu_{tag}_zeros_infs", [np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf], dt)], one_op("relu"),
         torch.relu)

BINARY = {
    "add": (torch.add, normal, normal), "sub": (torch.sub, normal, normal),
    "mul": (torch.mul, normal, normal), "div": (torch.div, normal, lambda *s: normal(*s, away=0.5)),
    "pow": (torch.pow, lambda *s: uniform(0.5, 2, *s), normal),
    "atan2": (torch.atan2, lambda *s: uniform(0.5, 2, *s), normal),
    "max": (torch.maximum, normal, normal), "min": (torch.minimum, normal, normal),
    "rem": (torch.fmod, normal, lambda *s: normal(*s, away=0.5)),
}
for op, (fn, ma, mb) in BINARY.items():
    case(f"{op}_f64", [ma(2, 5), mb(2, 5)], one_op(op), fn)
for op in ["mul", "div", "pow"]:
    fn, ma, mb = BINARY[op]
    case(f"{op}_f32", [ma(2, 5).astype(F32), mb(2, 5).astype(F32)], one_op(op), fn)

# clamp(lo, x, hi) with tensor bounds: torch.clamp's gradients (x where lo <= x <= hi, lo where
# x < lo < hi, hi where x > hi or hi < lo); a few lo > hi elements.
clamp_lo, clamp_hi = normal(3, 4) - 1.0, normal(3, 4) + 1.0
clamp_hi[0, :2] = clamp_lo[0, :2] - 0.5
case("clamp_f64", [clamp_lo, normal(3, 4, away=0.05) * 2, clamp_hi], one_op("clamp"),
     lambda lo, x, hi: torch.clamp(x, lo, hi))
case("clamp_f64_scalar_bounds", [np.array(-0.5), normal(3, 4), np.array(0.7)], one_op("clamp", shape=(3, 4)),
     lambda lo, x, hi: torch.clamp(x, lo, hi))
case("select_f64", [RNG.random((3, 4)) < 0.5, normal(3, 4), normal(3, 4)], one_op("select"),
     lambda c, a, b: torch.where(c, a, b))
case("select_of_compare", [normal(3, 4), normal(3, 4)],
     lambda p, a, b: p.op("select", [p.op("compare", [a, b], "dir=gt", BOOL), binary(p, "mul", a, b), b]),
     lambda a, b: torch.where(a > b, a * b, b))
case("convert_f64_to_f32", [normal(3, 4)], one_op("convert", "dtype=f32", F32), lambda x: x.float())
case("convert_f32_to_f64", [normal(3, 4, dtype=F32)], one_op("convert", "dtype=f64", F64), lambda x: x.double())
case("convert_i32_to_f64_times_x", [normal(3, 4), RNG.integers(-3, 4, (3, 4)).astype(I32)],
     lambda p, x, i: binary(p, "mul", x, p.op("convert", [i], "dtype=f64", F64)), lambda x, i: x * i.double())

# ---- layout ----
case("broadcast_in_dim", [normal(3, 1)],
     one_op("broadcast_in_dim", "shape=[2,3,4], broadcast_dimensions=[1, 2]", shape=(2, 3, 4)),
     lambda x: x.reshape(1, 3, 1).expand(2, 3, 4))
case("reshape", [normal(2, 6)], one_op("reshape", "new_sizes=[3,4]", shape=(3, 4)), lambda x: x.reshape(3, 4))
case("transpose", [normal(2, 3, 4)], one_op("transpose", "permutation=[2, 0, 1]", shape=(4, 2, 3)),
     lambda x: x.permute(2, 0, 1))
case("slice_strided", [normal(7, 5)],
     one_op("slice", "start_indices=[1, 0], limit_indices=[6, 4], strides=[2, 3]", shape=(3, 2)),
     lambda x: x[1:6:2, 0:4:3])
case("dynamic_slice_clamped", [normal(4, 5), np.array(3, I32), np.array(-1, I32)],
     one_op("dynamic_slice", "slice_sizes=[2, 3]", shape=(2, 3)), lambda x, i, j: x[2:4, 0:3])


def dus_ref(x, u, i, j):
    y = x.clone()
    y[1:3, 2:5] = u  # start (1, 3) clamps to (1, 2)
    return y


case("dynamic_update_slice", [normal(4, 5), normal(2, 3), np.array(1, I32), np.array(3, I32)],
     one_op("dynamic_update_slice"), dus_ref)
case("concatenate", [normal(2, 1), normal(2, 3), normal(2, 2)],
     one_op("concatenate", "dimension=1", shape=(2, 6)), lambda a, b, c: torch.cat([a, b, c], 1))


def pad_ref(x, v, low, high, interior):
    """lax.pad built from differentiable torch ops: fill, place every (interior+1)-th, crop."""
    n = [d + (d - 1) * i for d, i in zip(x.shape, interior)]
    big_shape = [max(lo, 0) + m + max(hi, 0) for lo, m, hi in zip(low, n, high)]
    big = v.expand(*big_shape).clone()
    place = tuple(slice(max(lo, 0), max(lo, 0) + m, i + 1) for lo, m, i in zip(low, n, interior))
    big[place] = x
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for lo, s, hi in zip(low, big_shape, high))
    return big[crop]


case("pad_negative_edges_interior", [normal(4, 3), normal()],
     one_op("pad", "edge_padding_low=[-1, 2], edge_padding_high=[2, -1], interior_padding=[1, 0]", shape=(8, 4)),
     lambda x, v: pad_ref(x, v, [-1, 2], [2, -1], [1, 0]))
case("checkpoint_name", [normal(3, 4)], lambda p, x: unary(p, "exp", p.op("checkpoint_name", [x], 'name="h"')),
     torch.exp)
case("optimization_barrier", [normal(3), normal(3)],
     lambda p, a, b: binary(p, "mul", *p.op_multi("optimization_barrier", [a, b], "", [(F64, (3,)), (F64, (3,))])),
     torch.mul)
case("copy_to_memory_kind", [normal(3, 2)],
     lambda p, x: p.op("copy_to_memory_kind", [p.op("copy_to_memory_kind", [x], "kind=host")], "kind=device"),
     lambda x: x)

# ---- reductions ----
case("reduce_sum", [normal(2, 3, 4)], lambda p, x: reduce(p, "reduce_sum", x, [0, 2]), lambda x: x.sum((0, 2)))
case("reduce_max", [normal(3, 4)], lambda p, x: reduce(p, "reduce_max", x, [1]), lambda x: torch.amax(x, 1))
ties = normal(3, 4)
ties[:, 2] = ties[:, 1] = ties.max(1) + 1  # two maxima per row: both get half
case("reduce_max_ties", [ties], lambda p, x: reduce(p, "reduce_max", x, [1]), lambda x: torch.amax(x, 1))
case("reduce_min", [normal(3, 4)], lambda p, x: reduce(p, "reduce_min", x, [0, 1]), lambda x: torch.amin(x, (0, 1)))
case("reduce_prod", [uniform(0.5, 1.5, 3, 4)], lambda p, x: reduce(p, "reduce_prod", x, [1]), lambda x: x.prod(1))
zeros_in = uniform(0.5, 1.5, 3, 4)
zeros_in[0, 1] = 0.0
zeros_in[2, 0] = zeros_in[2, 3] = 0.0
case("reduce_prod_with_zeros", [zeros_in], lambda p, x: reduce(p, "reduce_prod", x, [1]), lambda x: x.prod(1))
case("cumsum", [normal(3, 4)], one_op("cumsum", "axis=1, reverse=false"), lambda x: torch.cumsum(x, 1))
case("cumsum_reverse", [normal(3, 4)], one_op("cumsum", "axis=0, reverse=true"),
     lambda x: torch.flip(torch.cumsum(torch.flip(x, [0]), 0), [0]))

# ---- dot_general ----
for name, sa, sb, dims, eq in [
        ("matmul", (3, 4), (4, 5), ([], [], [1], [0]), "ik,kj->ij"),
        ("batched", (2, 3, 4), (2, 4, 5), ([0], [0], [2], [1]), "bik,bkj->bij"),
        ("batch_in_middle", (3, 2, 4), (4, 2, 5), ([1], [1], [2], [0]), "ibk,kbj->bij"),
        ("two_contracting_swapped", (2, 3, 4), (4, 3, 5), ([], [], [1, 2], [1, 0]), "abc,cbd->ad"),
        ("outer", (3,), (4,), ([], [], [], []), "i,j->ij")]:
    case(f"dot_general_{name}", [normal(*sa), normal(*sb)], lambda p, a, b, d=dims: dot(p, a, b, *d),
         lambda a, b, e=eq: torch.einsum(e, a, b))
case("dot_general_f32", [normal(3, 4, dtype=F32), normal(4, 2, dtype=F32)],
     lambda p, a, b: dot(p, a, b, [], [], [1], [0]), torch.matmul)

# ---- gather / scatter_add ----
ids = np.array([[[2], [0]], [[2], [4]]], I64)
case("gather_embedding", [normal(5, 3), ids],
     one_op("gather", "offset_dims=[2], collapsed_slice_dims=[0], start_index_map=[0], slice_sizes=[1, 3], "
                      "mode=fill", shape=(2, 2, 3)),
     lambda w, i: w[i[..., 0]])
starts = np.array([[0, 1], [3, 4], [1, 1]], I32)  # (3, 4) clamps to (2, 3)
case("gather_windows_clip", [normal(4, 5), starts],
     one_op("gather", "offset_dims=[1, 2], collapsed_slice_dims=[], start_index_map=[0, 1], "
                      "slice_sizes=[2, 2], mode=clip", shape=(3, 2, 2)),
     lambda x, s: torch.stack([x[0:2, 1:3], x[2:4, 3:5], x[1:3, 1:3]]))
rows = np.array([[2], [0], [2]], I32)
case("scatter_add_rows", [normal(4, 3), rows, normal(3, 3)],
     one_op("scatter_add", "update_window_dims=[1], inserted_window_dims=[0], "
                           "scatter_dims_to_operand_dims=[0], mode=fill"),
     lambda x, r, u: torch.index_add(x, 0, r[:, 0].long(), u))
oob = np.array([[1], [5]], I32)
case("scatter_add_out_of_bounds_dropped", [normal(3, 2), oob, normal(2, 2)],
     one_op("scatter_add", "update_window_dims=[1], inserted_window_dims=[0], "
                           "scatter_dims_to_operand_dims=[0], mode=fill"),
     lambda x, r, u: torch.index_add(x, 0, torch.tensor([1]), u[:1]))


def scatter_windows_ref(x, s, u):
    y = x.clone()
    y[0:2, 0:2] = y[0:2, 0:2] + u[0]
    y[2:4, 2:4] = y[2:4, 2:4] + u[1]  # (3, 2) clamps to (2, 2)
    return y


case("scatter_add_windows_clip", [normal(4, 4), np.array([[0, 0], [3, 2]], I64), normal(2, 2, 2)],
     one_op("scatter_add", "update_window_dims=[1, 2], inserted_window_dims=[], "
                           "scatter_dims_to_operand_dims=[0, 1], mode=clip"),
     scatter_windows_ref)

# ---- composites ----
case("softmax", [normal(3, 4)], lambda p, x: softmax(p, x, 1), lambda x: torch.softmax(x, 1))
case("log_softmax", [normal(3, 4)], lambda p, x: log_softmax(p, x, 0), lambda x: torch.log_softmax(x, 0))


def cross_entropy(p, x, t):
    n, c = x.shape
    lsm = log_softmax(p, x, 1)
    classes = p.op("iota", [], f"dtype=i64, shape=[{n},{c}], dimension=1", I64, (n, c))
    hot = p.op("compare", [classes, p.op("broadcast_in_dim", [t], f"shape=[{n},{c}], broadcast_dimensions=[0]",
                                         I64, (n, c))], "dir=eq", BOOL)
    picked = p.op("select", [hot, lsm, bcast(p, const(p, 0.0), (n, c))])
    return binary(p, "mul", reduce(p, "reduce_sum", picked, [0, 1]), -1.0 / n)


case("cross_entropy", [normal(3, 5), np.array([4, 0, 2], I64)], cross_entropy, lambda x, t: F.cross_entropy(x, t))


def layer_norm(p, x, w, b, eps=1e-5):
    d = x.shape[-1]
    mu = binary(p, "mul", reduce(p, "reduce_sum", x, [-1], True), 1.0 / d)
    xc = binary(p, "sub", x, mu)
    var = binary(p, "mul", reduce(p, "reduce_sum", binary(p, "mul", xc, xc), [-1], True), 1.0 / d)
    y = binary(p, "mul", xc, unary(p, "rsqrt", binary(p, "add", var, eps)))
    return binary(p, "add", binary(p, "mul", y, w), b)


case("layer_norm", [normal(2, 5), normal(5), normal(5)], layer_norm,
     lambda x, w, b: F.layer_norm(x, (5,), w, b, eps=1e-5))


def rms_norm(p, x, w, eps=1e-6):
    ms = binary(p, "mul", reduce(p, "reduce_sum", binary(p, "mul", x, x), [-1], True), 1.0 / x.shape[-1])
    return binary(p, "mul", binary(p, "mul", x, unary(p, "rsqrt", binary(p, "add", ms, eps))), w)


case("rms_norm", [normal(3, 4), normal(4)], rms_norm,
     lambda x, w: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w)


def attention(p, q, k, v):
    t, d = q.shape
    scores = binary(p, "mul", dot(p, q, k, [], [], [1], [1]), 1.0 / math.sqrt(d))
    i = p.op("iota", [], f"dtype=i32, shape=[{t},{t}], dimension=0", I32, (t, t))
    j = p.op("iota", [], f"dtype=i32, shape=[{t},{t}], dimension=1", I32, (t, t))
    mask = p.op("compare", [j, i], "dir=le", BOOL)
    masked = p.op("select", [mask, scores, bcast(p, const(p, -math.inf), (t, t))])
    return dot(p, softmax(p, masked, 1), v, [], [], [1], [0])


def attention_ref(q, k, v):
    t, d = q.shape
    s = (q @ k.T) / math.sqrt(d)
    s = s.masked_fill(~torch.tril(torch.ones(t, t, dtype=torch.bool)), -math.inf)
    return torch.softmax(s, 1) @ v


case("causal_attention", [normal(4, 3), normal(4, 3), normal(4, 3)], attention, attention_ref)

ROT_T, ROT_HALF = 3, 2
ang = np.arange(ROT_T)[:, None] * (10000.0 ** (-np.arange(ROT_HALF) / ROT_HALF))[None, :]
COS, SIN = np.cos(ang), np.sin(ang)


def rotary(p, x):
    c, s = const(p, COS, F64, COS.shape), const(p, SIN, F64, SIN.shape)
    sl = lambda lo: p.op("slice", [x], f"start_indices=[0, {lo}], limit_indices=[{ROT_T}, {lo + ROT_HALF}], "
                                       "strides=[1, 1]", F64, (ROT_T, ROT_HALF))
    x1, x2 = sl(0), sl(ROT_HALF)
    a = binary(p, "sub", binary(p, "mul", x1, c), binary(p, "mul", x2, s))
    b = binary(p, "add", binary(p, "mul", x1, s), binary(p, "mul", x2, c))
    return p.op("concatenate", [a, b], "dimension=1", F64, (ROT_T, 2 * ROT_HALF))


def rotary_ref(x):
    c, s = T(COS), T(SIN)
    x1, x2 = x[:, :ROT_HALF], x[:, ROT_HALF:]
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], 1)


case("rotary_embedding", [normal(ROT_T, 2 * ROT_HALF)], rotary, rotary_ref)


def swiglu(p, x, w1, w2, w3):
    h = dot(p, x, w1, [], [], [1], [0])
    silu = binary(p, "mul", h, unary(p, "logistic", h))
    return dot(p, binary(p, "mul", silu, dot(p, x, w2, [], [], [1], [0])), w3, [], [], [1], [0])


case("swiglu", [normal(2, 3), normal(3, 4), normal(3, 4), normal(4, 3)], swiglu,
     lambda x, w1, w2, w3: (F.silu(x @ w1) * (x @ w2)) @ w3)
case("gelu_erf", [normal(3, 4)],
     lambda p, x: binary(p, "mul", binary(p, "mul", x, 0.5),
                         binary(p, "add", unary(p, "erf", binary(p, "mul", x, 1 / math.sqrt(2))), 1.0)),
     F.gelu)


# ---- bf16 and f16: the program converts its (f64) inputs, computes in the low dtype and
# converts the result back, so the VJP and JVP rules run in that dtype ----
def low(dtype, values):
    """f64 values that `dtype` represents exactly."""
    tdt = torch.bfloat16 if dtype == BF16 else torch.float16
    return torch.from_numpy(np.asarray(values, np.float64)).to(tdt).double().numpy()


def in_dtype(dtype, build):
    def b(p, *params):
        conv = [p.op("convert", [x], f"dtype={'bf16' if dtype == BF16 else 'f16'}", dtype) if x.dtype == F64 else x
                for x in params]
        out = build(p, *conv)
        return p.op("convert", [out], "dtype=f64", F64)
    return b


LOW_TOL = {BF16: (4e-2, 4e-2), F16: (5e-3, 5e-3)}
for dt in [BF16, F16]:
    tag = "bf16" if dt == BF16 else "f16"
    for op in ["exp", "tanh", "logistic", "log", "sqrt", "sin", "erf", "abs", "relu"]:
        fn, make = UNARY[op]
        case(f"{op}_{tag}", [low(dt, make((3, 4)))], in_dtype(dt, one_op(op)), fn, LOW_TOL[dt])
    for op in ["add", "mul", "div", "pow", "max"]:
        fn, ma, mb = BINARY[op]
        case(f"{op}_{tag}", [low(dt, ma(2, 5)), low(dt, mb(2, 5))], in_dtype(dt, one_op(op)), fn, LOW_TOL[dt])
    case(f"reduce_sum_{tag}", [low(dt, normal(3, 4))], in_dtype(dt, lambda p, x: reduce(p, "reduce_sum", x, [1])),
         lambda x: x.sum(1), LOW_TOL[dt])
    case(f"reduce_max_{tag}", [low(dt, normal(3, 4))], in_dtype(dt, lambda p, x: reduce(p, "reduce_max", x, [0])),
         lambda x: x.amax(0), LOW_TOL[dt])
    case(f"dot_general_{tag}", [low(dt, normal(3, 4)), low(dt, normal(4, 2))],
         in_dtype(dt, lambda p, a, b: dot(p, a, b, [], [], [1], [0])), torch.matmul, LOW_TOL[dt])
    case(f"softmax_{tag}", [low(dt, normal(3, 4))], in_dtype(dt, lambda p, x: softmax(p, x, 1)),
         lambda x: torch.softmax(x, 1), LOW_TOL[dt])
    case(f"cumsum_{tag}", [low(dt, normal(3, 4))], in_dtype(dt, one_op("cumsum", "axis=1, reverse=false")),
         lambda x: torch.cumsum(x, 1), LOW_TOL[dt])
    case(f"gather_{tag}", [low(dt, normal(5, 3)), ids],
         in_dtype(dt, one_op("gather", "offset_dims=[2], collapsed_slice_dims=[0], start_index_map=[0], "
                                       "slice_sizes=[1, 3], mode=fill", shape=(2, 2, 3))),
         lambda w, i: w[i[..., 0]], LOW_TOL[dt])
# f16 parameters themselves: gradients and tangents in f16.
for op in ["exp", "tanh", "neg"]:
    fn, make = UNARY[op]
    case(f"{op}_f16_params", [make((3, 4)).astype(F16)], one_op(op), fn)
case("mul_f16_params", [normal(2, 3, dtype=F16), normal(2, 3, dtype=F16)], one_op("mul"), torch.mul)
# Empty and size-1 shapes.
case("exp_empty", [normal(0, 3)], one_op("exp"), torch.exp)
case("reduce_sum_empty_axis", [normal(0, 3)], lambda p, x: reduce(p, "reduce_sum", x, [0]), lambda x: x.sum(0))
case("dot_general_empty_contraction", [normal(2, 0), normal(0, 3)], lambda p, a, b: dot(p, a, b, [], [], [1], [0]),
     torch.matmul)
case("mul_size1", [normal(1, 1), normal(1, 1)], one_op("mul"), torch.mul)
case("softmax_size1_axis", [normal(3, 1)], lambda p, x: softmax(p, x, 1), lambda x: torch.softmax(x, 1))


# ---- cumprod, cummax/cummin, sort, rev (last: their inputs leave the earlier cases' draws alone) ----
case("cumprod", [uniform(0.5, 1.5, 3, 4)], one_op("cumprod", "axis=1, reverse=false"), lambda x: torch.cumprod(x, 1))
cumprod_zeros = normal(4, 4)
cumprod_zeros[0, 1] = cumprod_zeros[1, 0] = cumprod_zeros[2, 1] = cumprod_zeros[2, 3] = 0.0
case("cumprod_zeros", [cumprod_zeros], one_op("cumprod", "axis=1, reverse=false"), lambda x: torch.cumprod(x, 1))
case("cumprod_zeros_reverse", [cumprod_zeros], one_op("cumprod", "axis=0, reverse=true"),
     lambda x: torch.flip(torch.cumprod(torch.flip(x, [0]), 0), [0]))


def first(op, attrs, index_dtype=I64):
    """The first result of a (values, indices) op on one f64 operand."""
    return lambda p, x: p.op_multi(op, [x], attrs, [(F64, x.shape), (index_dtype, x.shape)])[0]


cm_ties = normal(3, 5)
cm_ties[:, 3] = cm_ties[:, 1] = cm_ties.max(1) + 1  # the later equal maximum takes the gradient
for op in ["cummax", "cummin"]:
    f = getattr(torch, op)
    case(op, [normal(3, 5)], first(op, "axis=1, reverse=false"), lambda x, f=f: f(x, 1).values)
    case(f"{op}_reverse", [normal(4, 3)], first(op, "axis=0, reverse=true"),
         lambda x, f=f: torch.flip(f(torch.flip(x, [0]), 0).values, [0]))
case("cummax_ties", [cm_ties], first("cummax", "axis=1, reverse=false"), lambda x: torch.cummax(x, 1).values)
case("sort", [normal(3, 5)], first("sort", "axis=1, descending=false"), lambda x: torch.sort(x, dim=1, stable=True).values)
case("sort_descending", [normal(4, 3)], first("sort", "axis=0, descending=true"),
     lambda x: torch.sort(x, dim=0, descending=True, stable=True).values)
case("sort_ties", [cm_ties], first("sort", "axis=1, descending=true"),
     lambda x: torch.sort(x, dim=1, descending=True, stable=True).values)
case("rev", [normal(2, 3, 4)], one_op("rev", "dimensions=[0, 2]"), lambda x: torch.flip(x, [0, 2]))


# ---- running ----
GRAD_TOL = {F64: TOL[F64], F32: TOL[F32], F16: (1e-2, 1e-2)}


def write_inputs(d, arrays, prefix):
    paths = []
    for i, a in enumerate(arrays):
        paths.append(os.path.join(d, f"{prefix}{i}.npy"))
        np.save(paths[-1], np.asarray(a))
    return paths


def torch_inputs(inputs):
    """Float inputs in float64 (the reference precision), others as they are."""
    return [torch.from_numpy(np.asarray(a, np.float64)) if np.asarray(a).dtype.kind == "f" else T(a)
            for a in inputs]


def close(got, want, dtype, tol):
    rtol, atol = tol or GRAD_TOL[np.dtype(dtype).type]
    if np.allclose(got.astype(np.float64), want, rtol=rtol, atol=atol):
        return None
    k = np.unravel_index(np.argmax(np.abs(got - want)), got.shape) if got.size else ()
    return f"at {tuple(int(x) for x in k)} got {got[k]!r}, torch {want[k]!r}"


def run_case(name, inputs, build, ref, tol):
    p = Prog()
    params = [p.param(a) for a in inputs]
    out = build(p, *params)
    ct = normal(*out.shape, dtype=out.dtype)
    ctv = p.param(ct)
    loss = reduce(p, "reduce_sum", binary(p, "mul", out, ctv), list(range(len(out.shape))))
    all_inputs = list(inputs) + [ct]
    d = os.path.join(SCRATCH, name)
    os.makedirs(d)
    with open(os.path.join(d, "prog.lzir"), "w") as f:
        f.write(p.text(loss))
    paths = write_inputs(d, all_inputs, "in")
    outdir = os.path.join(d, "out")
    r = subprocess.run([LAZAX, "run", os.path.join(d, "prog.lzir"), "--inputs", ",".join(paths), "--out",
                        outdir, "--grad"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return f"lazax run --grad failed (exit {r.returncode}): {r.stderr.strip()}"
    ts = torch_inputs(all_inputs)
    for t in ts:
        if t.is_floating_point():
            t.requires_grad_()
    want_loss = (ref(*ts[:-1]) * ts[-1]).sum()
    float_ts = [t for t in ts if t.is_floating_point()]
    grads = torch.autograd.grad(want_loss, float_ts, allow_unused=True)
    want = iter(grads)
    problems = []
    got_loss = np.load(os.path.join(outdir, "out0.npy"))
    if close(got_loss, want_loss.detach().numpy(), got_loss.dtype, tol):
        problems.append(f"loss {got_loss} != {want_loss.item()}")
    for i, (a, t) in enumerate(zip(all_inputs, ts)):
        got = np.load(os.path.join(outdir, f"grad{i}.npy"))
        a = np.asarray(a)
        if got.dtype != a.dtype or got.shape != a.shape:
            problems.append(f"grad{i}: {got.dtype}{list(got.shape)}, expected {a.dtype}{list(a.shape)}")
            continue
        if not t.is_floating_point():
            if got.any():
                problems.append(f"grad{i}: integer parameter got a non-zero gradient")
            continue
        g = next(want)
        why = close(got, np.zeros(a.shape) if g is None else g.numpy(), a.dtype, tol)
        if why:
            problems.append(f"grad{i} ({a.dtype}{list(a.shape)}): {why}")
    return "; ".join(problems) or None


def run_jvp_case(name, inputs, build, ref, tol):
    """Forward mode: `lazax run --jvp` on the program itself against torch.autograd.functional.jvp."""
    p = Prog()
    out = build(p, *[p.param(a) for a in inputs])
    d = os.path.join(SCRATCH, name + ".jvp")
    os.makedirs(d)
    with open(os.path.join(d, "prog.lzir"), "w") as f:
        f.write(p.text(out))
    tangents = [normal(*np.shape(a), dtype=np.asarray(a).dtype) if np.asarray(a).dtype.kind == "f"
                else np.zeros_like(a) for a in inputs]
    outdir = os.path.join(d, "out")
    r = subprocess.run([LAZAX, "run", os.path.join(d, "prog.lzir"), "--inputs", ",".join(write_inputs(d, inputs, "in")),
                        "--out", outdir, "--jvp", ",".join(write_inputs(d, tangents, "tan"))],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return f"lazax run --jvp failed (exit {r.returncode}): {r.stderr.strip()}"
    ts = torch_inputs(inputs)
    floats = [i for i, t in enumerate(ts) if t.is_floating_point()]

    def f(*xs):
        args = list(ts)
        for k, i in enumerate(floats):
            args[i] = xs[k]
        return ref(*args)

    _, want = torch.autograd.functional.jvp(f, tuple(ts[i] for i in floats),
                                            tuple(torch_inputs([tangents[i]])[0] for i in floats))
    got = np.load(os.path.join(outdir, "tangent0.npy"))
    if got.shape != tuple(want.shape):
        return f"tangent shape {got.shape}, torch {tuple(want.shape)}"
    why = close(got, want.detach().numpy(), got.dtype, tol)
    return f"tangent: {why}" if why else None


def grad_of_non_scalar_fails():
    """--grad on a program whose result 0 is not a scalar: exit 1 with a message saying so."""
    d = os.path.join(SCRATCH, "error_non_scalar")
    os.makedirs(d)
    prog, x = os.path.join(d, "prog.lzir"), os.path.join(d, "x.npy")
    with open(prog, "w") as f:
        f.write("func @main(%x: f64[3]) -> (f64[3]) {\n  %0 = exp(%x) : f64[3]\n  return %0\n}\n")
    np.save(x, normal(3))
    r = subprocess.run([LAZAX, "run", prog, "--inputs", x, "--out", os.path.join(d, "out"), "--grad"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 1 or "must be a floating-point scalar, got f64[3]" not in r.stderr:
        return f"expected exit 1 and a clear message, got exit {r.returncode}: {r.stderr.strip()}"
    return None


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    CASES.append(("error_non_scalar_result", None, None, None, None))
    cases = [c for c in CASES if ONLY in c[0]]
    names = [c[0] for c in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    failed = []
    for c in cases:
        why = grad_of_non_scalar_fails() if c[1] is None else run_case(*c)
        if c[1] is not None:
            jvp_why = run_jvp_case(*c)
            why = "; ".join(w for w in [why, jvp_why and f"forward mode: {jvp_why}"] if w) or None
        print(f"{'ok  ' if why is None else 'FAIL'} {c[0]}" + ("" if why is None else f": {why}"), flush=True)
        if why is not None:
            failed.append(c[0])
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    if failed:
        print("failed: " + " ".join(failed))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
