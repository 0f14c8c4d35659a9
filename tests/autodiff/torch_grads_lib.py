"""The program builder and input makers of torch_grads.py: programs in the text form (docs/IR.md)
whose values know their dtype and shape, NumPy-style helpers over primitives, random inputs."""
import numpy as np
import torch

F32, F64, F16, I32, I64, BOOL = np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_
BF16 = "bf16"  # a V dtype only: the files hold no bf16
LZ = {F32: "f32", F64: "f64", F16: "f16", BF16: "bf16", I32: "i32", I64: "i64", BOOL: "bool"}
TOL = {F64: (1e-9, 1e-10), F32: (1e-4, 1e-5)}
RNG = np.random.default_rng(7)


def dtype_of(dtype):
    return BF16 if dtype == BF16 else np.dtype(dtype).type


def ty(dtype, shape):
    return f"{LZ[dtype_of(dtype)]}[{','.join(str(int(d)) for d in shape)}]"


def ints(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


# ---- a tiny program builder: values know their dtype and shape ----
class V:
    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype_of(dtype), tuple(int(d) for d in shape)


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
    text = ", ".join(repr(float(x)) if dtype == BF16 or np.dtype(dtype).kind == "f" else str(int(x)) for x in vals)
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
