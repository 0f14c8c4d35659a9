"""Helpers shared by the torch_agreement case files: the Case record, type spelling, program
text generation and the float64 torch reference conversion."""
import collections

import numpy as np
import torch

# `note`: where the expected values follow lax (docs/IR.md) rather than PyTorch, what differs.
Case = collections.namedtuple("Case", "name program inputs expected out_dtypes note", defaults=[""])

LZ = {np.float32: "f32", np.float64: "f64", np.float16: "f16", np.int32: "i32", np.int64: "i64",
      np.uint8: "u8", np.bool_: "bool", np.int8: "i8", np.uint32: "u32"}
F32, F64, F16, I32, I64, U8, BOOL = np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_
I8, U32 = np.int8, np.uint32


def ty(dtype, shape):
    return f"{LZ[np.dtype(dtype).type]}[{','.join(str(d) for d in shape)}]"


def T(a):
    """A torch tensor of `a`, widened to float64 when floating (the reference precision)."""
    a = np.asarray(a)
    return torch.from_numpy(a.astype(np.float64) if a.dtype.kind == "f" else a.copy())


def N(t):
    return t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def program(args, body, results):
    """`args`: input arrays (%a0, %a1, ...); `body`: statement lines; results: (value, dtype, shape)."""
    sig = ", ".join(f"%a{i}: {ty(a.dtype, a.shape)}" for i, a in enumerate(args))
    rts = ", ".join(ty(dt, shape) for _, dt, shape in results)
    lines = [f"func @main({sig}) -> ({rts}) {{"] + [f"  {b}" for b in body]
    lines += ["  return " + ", ".join(v for v, _, _ in results), "}", ""]
    return "\n".join(lines)


def single(name, op, args, want, attrs="", out_dtype=None):
    """A program of one op applied to all the inputs."""
    want = N(want)
    out_dtype = out_dtype or args[0].dtype
    attr = f" {{{attrs}}}" if attrs else ""
    operands = ", ".join(f"%a{i}" for i in range(len(args)))
    body = [f"%r = {op}({operands}){attr} : {ty(out_dtype, want.shape)}"]
    return Case(name, program(args, body, [("%r", out_dtype, want.shape)]), list(args), [want], [out_dtype])


def lz_list(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"
