#!/usr/bin/python3
"""Agreement of lazax's gradients (`lazax run --grad`) with torch.autograd on random inputs.

usage: torch_grads.py PATH/TO/lazax SCRATCH_DIR [CASE_NAME_SUBSTRING]
Every case is a program in the text form (docs/IR.md) built from one primitive (or a composite:
softmax, cross entropy, layer norm, attention...). The script appends a random cotangent input
%ct and differentiates loss = reduce_sum(result * ct), so the full vector-Jacobian product is
checked, not just a sum. `lazax run --grad` writes one gradient per parameter; PyTorch computes
the same loss from the same values (float64 mostly) with torch.autograd.grad. Gradients must
agree within rtol/atol (f64: 1e-9/1e-10, f32: 1e-4/1e-5); integer parameters get zeros.
Prints one line per case and `N passed, M failed`; exits non-zero on any failure.
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

F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_
LZ = {F32: "f32", F64: "f64", I32: "i32", I64: "i64", BOOL: "bool"}
TOL = {F64: (1e-9, 1e-10), F32: (1e-4, 1e-5)}
RNG = np.random.default_rng(7)


def ty(dtype, shape):
    return f"{LZ[np.dtype(dtype).type]}[{','.join(str(int(d)) for d in shape)}]"


def ints(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


# ---- a tiny program builder: values know their dtype and shape ----
class V:
    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, np.dtype(dtype).type, tuple(int(d) for d in shape)


class Prog:
    def __init__(self):
        self.params, self.lines, self.n = [], [], 0

    def param(self, arr):
        v = V(f"%a{len(self.params)}", arr.dtype, arr.shape)
        self.params.append(v)
        return v

    def op(self, op, operands, attrs="", dtype=None, shape=None):
        like = operands[1] if op == "select" else operands[0] if operands else None
        dtype = like.dtype if dtype is None else dtype
        shape = like.shape if shape is None else shape
        return self.op_multi(op, operands, attrs, [(dtype, shape)])[0]

    def op_multi(self, op, operands, attrs, types):
        name = f"%v{self.n}"
        self.n += 1
        attr = f" {{{attrs}}}" if attrs else ""
        args = ", ".join(o.name for o in operands)
        if len(types) == 1:
            self.lines.append(f"{name} = {op}({args}){attr} : {ty(*types[0])}")
            return [V(name, *types[0])]
        tys = ", ".join(ty(*t) for t in types)
        self.lines.append(f"{name}:{len(types)} = {op}({args}){attr} : ({tys})")
        return [V(f"{name}#{i}", *t) for i, t in enumerate(types)]

    def text(self, result):
        sig = ", ".join(f"{p.name}: {ty(p.dtype, p.shape)}" for p in self.params)
        body = "".join(f"  {l}\n" for l in self.lines)
        return f"func @main({sig}) -> ({ty(result.dtype, result.shape)}) {{\n{body}  return {result.name}\n}}\n"


# NumPy-style helpers over primitives (explicit broadcast_in_dim, as lax).
def const(p, value, dtype=F64, shape=()):
    vals = np.asarray(value, dtype=np.float64).reshape(-1)
    text = ", ".join(repr(float(x)) if np.dtype(dtype).kind == "f" else str(int(x)) for x in vals)
    return p.op("constant", [], f"value={ty(dtype, shape)} [{text}]", dtype, shape)


def bcast(p, v, shape):
    shape = tuple(shape)
    if v.shape == shape:
        return v
    off = len(shape) - len(v.shape)
    dims = list(range(off, len(shape)))
    return p.op("broadcast_in_dim", [v], f"shape=[{','.join(str(d) for d in shape)}], broadcast_dimensions={ints(dims)}",
                v.dtype, shape)


def binary(p, op, a, b):
    if not isinstance(b, V):
        b = const(p, b, a.dtype)
    if not isinstance(a, V):
        a = const(p, a, b.dtype)
    shape = np.broadcast_shapes(a.shape, b.shape)
    return p.op(op, [bcast(p, a, shape), bcast(p, b, shape)], "", a.dtype, shape)


def unary(p, op, a):
    return p.op(op, [a])


def reduce(p, op, a, axes, keepdims=False):
    axes = [ax % len(a.shape) for ax in axes]
    shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    r = p.op(op, [a], f"axes={ints(axes)}", a.dtype, shape)
    if keepdims:
        r = reshape(p, r, tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
    return r


def reshape(p, a, shape):
    return p.op("reshape", [a], f"new_sizes=[{','.join(str(d) for d in shape)}]", a.dtype, shape)


def dot(p, a, b, lb, rb, lc, rc):
    shape = [a.shape[i] for i in lb]
    shape += [d for i, d in enumerate(a.shape) if i not in lb + lc]
    shape += [d for i, d in enumerate(b.shape) if i not in rb + rc]
    attrs = f"lhs_batch={ints(lb)}, rhs_batch={ints(rb)}, lhs_contracting={ints(lc)}, rhs_contracting={ints(rc)}"
    return p.op("dot_general", [a, b], attrs, a.dtype, shape)


def softmax(p, x, axis):
    s = binary(p, "sub", x, reduce(p, "reduce_max", x, [axis], True))
    e = unary(p, "exp", s)
    return binary(p, "div", e, reduce(p, "reduce_sum", e, [axis], True))


def log_softmax(p, x, axis):
    s = binary(p, "sub", x, reduce(p, "reduce_max", x, [axis], True))
    return binary(p, "sub", s, unary(p, "log", reduce(p, "reduce_sum", unary(p, "exp", s), [axis], True)))


# ---- inputs ----
def normal(*shape, dtype=F64, away=0.0):
    x = RNG.normal(0, 1, shape)
    if away:
        x = np.sign(x) * (away + np.abs(x))
    return x.astype(dtype)


def uniform(lo, hi, *shape, dtype=F64):
    return RNG.uniform(lo, hi, shape).astype(dtype)


def T(a):
    return torch.from_numpy(np.array(a))


# A case: name, inputs, build(prog, *params) -> V, reference(*torch tensors) -> tensor.
CASES = []


def case(name, inputs, build, ref):
    CASES.append((name, inputs, build, ref))


def one_op(op, attrs="", dtype=None, shape=None):
    return lambda p, *a: p.op(op, list(a), attrs, dtype, shape)


# ---- elementwise ----
UNARY = {
    "neg": (torch.neg, lambda s: normal(*s)), "abs": (torch.abs, lambda s: normal(*s, away=0.1)),
    "sign": (torch.sign, lambda s: normal(*s, away=0.1)), "exp": (torch.exp, lambda s: normal(*s)),
    "log": (torch.log, lambda s: uniform(0.5, 3, *s)), "log1p": (torch.log1p, lambda s: uniform(-0.5, 3, *s)),
    "expm1": (torch.expm1, lambda s: normal(*s)), "tanh": (torch.tanh, lambda s: normal(*s)),
    "logistic": (torch.sigmoid, lambda s: normal(*s)), "sqrt": (torch.sqrt, lambda s: uniform(0.5, 3, *s)),
    "rsqrt": (torch.rsqrt, lambda s: uniform(0.5, 3, *s)), "sin": (torch.sin, lambda s: normal(*s)),
    "cos": (torch.cos, lambda s: normal(*s)), "erf": (torch.erf, lambda s: normal(*s)),
    "floor": (torch.floor, lambda s: uniform(0.1, 0.4, *s) + RNG.integers(-3, 3, s)),
    "round": (torch.round, lambda s: uniform(0.1, 0.4, *s) + RNG.integers(-3, 3, s)),
}
for op, (fn, make) in UNARY.items():
    case(f"{op}_f64", [make((3, 4))], one_op(op), fn)
for op in ["exp", "tanh", "logistic", "rsqrt"]:
    fn, make = UNARY[op]
    case(f"{op}_f32", [make((3, 4)).astype(F32)], one_op(op), fn)

BINARY = {
    "add": (torch.add, normal, normal), "sub": (torch.sub, normal, normal),
    "mul": (torch.mul, normal, normal), "div": (torch.div, normal, lambda *s: normal(*s, away=0.5)),
    "pow": (torch.pow, lambda *s: uniform(0.5, 2, *s), normal),
    "atan2": (torch.atan2, lambda *s: uniform(0.5, 2, *s), normal),
    "max": (torch.maximum, normal, normal), "min": (torch.minimum, normal, normal),
}
for op, (fn, ma, mb) in BINARY.items():
    case(f"{op}_f64", [ma(2, 5), mb(2, 5)], one_op(op), fn)
for op in ["mul", "div", "pow"]:
    fn, ma, mb = BINARY[op]
    case(f"{op}_f32", [ma(2, 5).astype(F32), mb(2, 5).astype(F32)], one_op(op), fn)

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


# ---- running ----
def run_case(name, inputs, build, ref):
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
    paths = []
    for i, a in enumerate(all_inputs):
        paths.append(os.path.join(d, f"in{i}.npy"))
        np.save(paths[-1], np.asarray(a))
    outdir = os.path.join(d, "out")
    r = subprocess.run([LAZAX, "run", os.path.join(d, "prog.lzir"), "--inputs", ",".join(paths), "--out",
                        outdir, "--grad"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return f"lazax run --grad failed (exit {r.returncode}): {r.stderr.strip()}"
    ts = [T(a) for a in all_inputs]
    for t in ts:
        if t.is_floating_point():
            t.requires_grad_()
    want_loss = (ref(*ts[:-1]) * ts[-1]).sum()
    float_ts = [t for t in ts if t.is_floating_point()]
    grads = torch.autograd.grad(want_loss, float_ts, allow_unused=True)
    want = iter(grads)
    problems = []
    got_loss = np.load(os.path.join(outdir, "out0.npy"))
    rtol, atol = TOL[np.dtype(got_loss.dtype).type]
    if not np.allclose(got_loss, want_loss.detach().numpy(), rtol=rtol, atol=atol):
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
        w = np.zeros(a.shape, a.dtype) if g is None else g.numpy()
        rtol, atol = TOL[a.dtype.type]
        if not np.allclose(got, w, rtol=rtol, atol=atol):
            k = np.unravel_index(np.argmax(np.abs(got - w)), got.shape) if got.size else ()
            problems.append(f"grad{i} ({a.dtype}{list(a.shape)}): at {tuple(int(x) for x in k)} got "
                            f"{got[k]!r}, torch {w[k]!r}")
    return "; ".join(problems) or None


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
    CASES.append(("error_non_scalar_result", None, None, None))
    cases = [c for c in CASES if ONLY in c[0]]
    names = [c[0] for c in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    failed = []
    for c in cases:
        why = grad_of_non_scalar_fails() if c[1] is None else run_case(*c)
        print(f"{'ok  ' if why is None else 'FAIL'} {c[0]}" + ("" if why is None else f": {why}"), flush=True)
        if why is not None:
            failed.append(c[0])
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    if failed:
        print("failed: " + " ".join(failed))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
