"""Cases of run.py for the elementwise ops, host scalars and type promotion, and the helpers the
case files share. A case names a driver op (ops_table*.cc), its inputs as (lazax dtype, values)
and its arguments; `ref` computes the same with torch from a list of tensors and the arguments.

Host scalars: a C++ double is a floating scalar and a C++ integer an integer scalar (tensor.h,
IntegerScalar), as Python floats and ints are in PyTorch ("wrapped numbers": i32 * 2.0 is f32,
i32 * 2 stays i32, f16 * 2.0 stays f16, bool * 3 is i64), so the references pass Python floats to
the double ops and Python ints to the integer ones.
"""
import collections

import numpy as np
import torch
import torch.nn.functional as F

TORCH_DTYPE = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
               "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "bool": torch.bool, "i8": torch.int8}
FLOATS = ["f32", "f64", "f16", "bf16"]
INTS = ["i32", "i64", "u8", "i8"]
ALL = FLOATS + INTS + ["bool"]

# check: "torch" compares with `ref`; the random ops name a property check instead (run.py).
# tol scales the dtype's tolerance; extension: why lazax computes where torch raises.
Case = collections.namedtuple("Case", "name op inputs args ref grad tol check signed_zeros extension")


def case(name, op, inputs, args=None, ref=None, grad=False, tol=1.0, check="torch", signed_zeros=True,
         extension=""):
    return Case(name, op, list(inputs), dict(args or {}), ref or TORCH[op], grad, tol, check, signed_zeros,
                extension)


def to_dtype(dt, x):
    """(dt, values): NumPy values as the .npy file holds them (bf16 values as exact f32)."""
    x = np.asarray(x)
    if dt == "bf16":
        return dt, torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16).float().numpy()
    np_dt = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i64": np.int64,
             "u8": np.uint8, "bool": np.bool_, "i8": np.int8}[dt]
    with np.errstate(all="ignore"):  # specials overflow to inf in f16
        return dt, x.astype(np_dt)


def make(rng, dt, shape, kind="any"):
    """Random inputs of a dtype: `kind` any, pos (> 0), gt-1 (> -1) or unit (|x| < 1)."""
    shape = tuple(shape)
    if dt == "bool":
        return to_dtype(dt, rng.random(shape) < 0.5)
    if dt in INTS:
        lo = 1 if kind == "pos" else 0 if dt == "u8" or kind == "gt-1" else -5
        return to_dtype(dt, rng.integers(lo, 11 if dt == "u8" else 6, shape))
    if kind == "pos":
        x = rng.uniform(0.1, 4.0, shape)
    elif kind == "gt-1":
        x = rng.uniform(-0.9, 4.0, shape)
    elif kind == "unit":
        x = rng.uniform(-0.9, 0.9, shape)
    else:
        x = rng.normal(0, 2, shape)
        ties = [0.5, -0.5, 2.5, -1.5, 0.0, 3.0, 1.5, -2.5]  # exact ties: round, sign(0)
        x.flat[:min(x.size, len(ties))] = ties[:x.size]
    return to_dtype(dt, x)


# Values where edge cases live: NaN, infinities, signed zeros, ties at .5, tiny and huge values.
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 1.5, -2.5, 2.5, 88.0, -88.0,
            1e30, -1.0, 1.0, 3.0, 0.7, -0.3]


def scalar_ref(f):
    return lambda t, a: f(t[0], a["value"])


TORCH = {
    "literal": lambda t, a: t[0].clone(),
    "item": lambda t, a: torch.tensor(t[0].item(), dtype=torch.float64),
    "to_vector": lambda t, a: t[0].to(torch.float64),
    "bool": lambda t, a: torch.tensor([bool(t[0])]),
    "sizes": lambda t, a: torch.tensor([t[0].dim(), t[0].numel()] + list(t[0].shape), dtype=torch.int64),
    "size": lambda t, a: torch.tensor([t[0].size(a["dim"])], dtype=torch.int64),
    "to": lambda t, a: t[0].to(TORCH_DTYPE[a["dtype"]]),
    "add_": lambda t, a: t[0].clone().add_(t[1]),
    "add_scalar_": lambda t, a: t[0].clone().add_(a["value"]),
    "sub_": lambda t, a: t[0].clone().sub_(t[1]),
    "mul_": lambda t, a: t[0].clone().mul_(t[1]),
    "mul_scalar_": lambda t, a: t[0].clone().mul_(a["value"]),
    "div_scalar_": lambda t, a: t[0].clone().div_(a["value"]),
    "copy_": lambda t, a: t[0].clone().copy_(t[1]),
    "zero_": lambda t, a: t[0].clone().zero_(),
    "fill_": lambda t, a: t[0].clone().fill_(a["value"]),
    "add_seen_by_copy": lambda t, a: t[0].clone().add_(t[1]),
    "clone_is_a_copy": lambda t, a: t[0].clone(),
    "add": lambda t, a: torch.add(t[0], t[1]),
    "sub": lambda t, a: torch.sub(t[0], t[1]),
    "mul": lambda t, a: torch.mul(t[0], t[1]),
    "div": lambda t, a: torch.div(t[0], t[1]),
    "pow": lambda t, a: torch.pow(t[0], t[1]),
    "atan2": lambda t, a: torch.atan2(t[0], t[1]),
    "pow_scalar": lambda t, a: torch.pow(t[0], a["exponent"]),
    "maximum": lambda t, a: torch.maximum(t[0], t[1]),
    "minimum": lambda t, a: torch.minimum(t[0], t[1]),
    "operator+": lambda t, a: t[0] + t[1],
    "operator-": lambda t, a: t[0] - t[1],
    "operator*": lambda t, a: t[0] * t[1],
    "operator/": lambda t, a: t[0] / t[1],
    "tensor+scalar": scalar_ref(lambda x, v: x + v),
    "tensor-scalar": scalar_ref(lambda x, v: x - v),
    "tensor*scalar": scalar_ref(lambda x, v: x * v),
    "tensor/scalar": scalar_ref(lambda x, v: x / v),
    "scalar+tensor": scalar_ref(lambda x, v: v + x),
    "scalar-tensor": scalar_ref(lambda x, v: v - x),
    "scalar*tensor": scalar_ref(lambda x, v: v * x),
    "scalar/tensor": scalar_ref(lambda x, v: v / x),
    "tensor<scalar": scalar_ref(lambda x, v: x < v),
    "tensor>scalar": scalar_ref(lambda x, v: x > v),
    "tensor+int": scalar_ref(lambda x, v: x + v),
    "tensor-int": scalar_ref(lambda x, v: x - v),
    "tensor*int": scalar_ref(lambda x, v: x * v),
    "tensor/int": scalar_ref(lambda x, v: x / v),
    "int+tensor": scalar_ref(lambda x, v: v + x),
    "int-tensor": scalar_ref(lambda x, v: v - x),
    "int*tensor": scalar_ref(lambda x, v: v * x),
    "int/tensor": scalar_ref(lambda x, v: v / x),
    "tensor<int": scalar_ref(lambda x, v: x < v),
    "tensor>int": scalar_ref(lambda x, v: x > v),
    "where_int": lambda t, a: torch.where(t[0], t[1], a["value"]),
    "pow_int": lambda t, a: torch.pow(t[0], a["exponent"]),
    "add_int_": lambda t, a: t[0].clone().add_(a["value"]),
    "mul_int_": lambda t, a: t[0].clone().mul_(a["value"]),
    "integer_scalar": lambda t, a: torch.tensor(a["value"]).to(torch.result_type(t[0], a["value"])),
    "Tensor::operator-": lambda t, a: -t[0],
    "neg": lambda t, a: torch.neg(t[0]), "abs": lambda t, a: torch.abs(t[0]),
    "sign": lambda t, a: torch.sign(t[0]), "exp": lambda t, a: torch.exp(t[0]),
    "log": lambda t, a: torch.log(t[0]), "log1p": lambda t, a: torch.log1p(t[0]),
    "expm1": lambda t, a: torch.expm1(t[0]), "tanh": lambda t, a: torch.tanh(t[0]),
    "sigmoid": lambda t, a: torch.sigmoid(t[0]), "sqrt": lambda t, a: torch.sqrt(t[0]),
    "rsqrt": lambda t, a: torch.rsqrt(t[0]), "sin": lambda t, a: torch.sin(t[0]),
    "cos": lambda t, a: torch.cos(t[0]), "erf": lambda t, a: torch.erf(t[0]),
    "floor": lambda t, a: torch.floor(t[0]), "round": lambda t, a: torch.round(t[0]),
    "square": lambda t, a: torch.square(t[0]),
    "ceil": lambda t, a: torch.ceil(t[0]), "erfinv": lambda t, a: torch.erfinv(t[0]),
    "exp2": lambda t, a: torch.exp2(t[0]), "tan": lambda t, a: torch.tan(t[0]),
    "isfinite": lambda t, a: torch.isfinite(t[0]), "bitwise_not": lambda t, a: torch.bitwise_not(t[0]),
    "fmod": lambda t, a: torch.fmod(t[0], t[1]), "remainder": lambda t, a: torch.remainder(t[0], t[1]),
    "bitwise_and": lambda t, a: torch.bitwise_and(t[0], t[1]),
    "bitwise_or": lambda t, a: torch.bitwise_or(t[0], t[1]),
    "bitwise_xor": lambda t, a: torch.bitwise_xor(t[0], t[1]),
    "bitwise_left_shift": lambda t, a: torch.bitwise_left_shift(t[0], t[1]),
    "bitwise_right_shift": lambda t, a: torch.bitwise_right_shift(t[0], t[1]),
    "clamp": lambda t, a: torch.clamp(t[0], a.get("min"), a.get("max")),
    "eq": lambda t, a: torch.eq(t[0], t[1]), "ne": lambda t, a: torch.ne(t[0], t[1]),
    "lt": lambda t, a: torch.lt(t[0], t[1]), "le": lambda t, a: torch.le(t[0], t[1]),
    "gt": lambda t, a: torch.gt(t[0], t[1]), "ge": lambda t, a: torch.ge(t[0], t[1]),
    "operator<": lambda t, a: t[0] < t[1], "operator>": lambda t, a: t[0] > t[1],
    "where": lambda t, a: torch.where(t[0], t[1], t[2]),
    "where_scalar": lambda t, a: torch.where(t[0], t[1], a["value"]),
    "relu": lambda t, a: torch.relu(t[0]),
    "gelu": lambda t, a: F.gelu(t[0], approximate="tanh" if a.get("tanh") else "none"),
    "silu": lambda t, a: F.silu(t[0]),
}

# op -> input kind for the unary ops.
UNARY = {"neg": "any", "abs": "any", "sign": "any", "exp": "any", "log": "pos", "log1p": "gt-1",
         "expm1": "any", "tanh": "any", "sigmoid": "any", "sqrt": "pos", "rsqrt": "pos", "sin": "any",
         "cos": "any", "erf": "any", "floor": "any", "round": "any", "square": "any",
         "Tensor::operator-": "any", "relu": "any", "gelu": "any", "silu": "any",
         "ceil": "any", "erfinv": "unit", "exp2": "any", "tan": "any", "isfinite": "any",
         "bitwise_not": "any"}
# Where lazax follows lax (docs/IR.md), not torch 1.13: sign(NaN) is NaN, sign(-0.0) is -0.0.
NO_SPECIALS = {"sign"}
BINARY = ["add", "sub", "mul", "div", "pow", "atan2", "maximum", "minimum", "operator+", "operator-", "operator*",
          "operator/", "eq", "ne", "lt", "le", "gt", "ge", "operator<", "operator>"]
# max(-0.0, +0.0) is +0.0 in either order in lazax (lax); torch returns its second operand.
ZERO_SIGN_FREE = {"maximum", "minimum"}
COMPOSITE = {"gelu": 4, "silu": 2}  # tolerance scale: several rounded steps


def unary_cases(rng):
    cs = []
    for op, kind in UNARY.items():
        variants = [{}] if op != "gelu" else [{}, {"tanh": True}]
        for args in variants:
            tag = op + ("_tanh" if args.get("tanh") else "")
            tol = COMPOSITE.get(op, 1)
            for dt in ALL:
                cs.append(case(f"{tag}_{dt}", op, [make(rng, dt, (3, 5), kind)], args, tol=tol,
                               grad=dt in ("f64", "f32", "bf16"), signed_zeros=op not in ZERO_SIGN_FREE))
            for shape in [(), (0, 4), (1, 1), (1,)]:
                cs.append(case(f"{tag}_f32_{'x'.join(map(str, shape)) or 'scalar'}", op,
                               [make(rng, "f32", shape, kind)], args, tol=tol, grad=bool(shape and min(shape))))
            if op not in NO_SPECIALS:
                for dt in ["f32", "f16", "bf16"]:
                    cs.append(case(f"{tag}_{dt}_specials", op, [to_dtype(dt, SPECIALS)], args, tol=tol,
                                   signed_zeros=op not in ZERO_SIGN_FREE))
    # relu's gradient at +-0, NaN and +-inf: torch's threshold_backward (0 at +-0, 1 at NaN).
    for dt in ["f32", "f64"]:
        cs.append(case(f"relu_{dt}_specials_grad", "relu", [to_dtype(dt, SPECIALS)], grad=True))
    return cs


def binary_inputs(rng, op, da, db, sa, sb):
    kind_a = "pos" if op == "pow" else "any"
    a = make(rng, da, sa, kind_a)
    b = make(rng, db, sb, "unit" if op == "pow" and da in FLOATS else "any")
    if op == "pow" and (da in INTS or da == "bool") and db in INTS + ["bool"]:
        b = to_dtype(db, rng.integers(0, 4, sb))  # no negative integer powers (torch raises)
    if op in ("maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "operator<", "operator>") \
            and np.size(a[1]) and np.shape(a[1]) == np.shape(b[1]):
        vb = b[1].copy()
        vb.flat[:2] = a[1].flat[:2].astype(vb.dtype)  # ties
        b = (db, vb)
    return [a, b]


def binary_cases(rng):
    cs = []
    for op in BINARY:
        for dt in ALL:  # one dtype, one shape
            cs.append(case(f"{op}_{dt}", op, binary_inputs(rng, op, dt, dt, (3, 4), (3, 4)),
                           grad=dt in ("f64", "bf16"), signed_zeros=op not in ZERO_SIGN_FREE))
        for tag, sa, sb in [("bcast_col_row", (3, 1), (4,)), ("bcast_scalar", (), (2, 3)),
                            ("bcast_empty", (0, 3), (1, 3)), ("size1", (1,), (1,)), ("scalars", (), ()),
                            ("bcast_rank3", (2, 1, 4), (3, 1))]:
            cs.append(case(f"{op}_f32_{tag}", op, binary_inputs(rng, op, "f32", "f32", sa, sb),
                           grad=True, signed_zeros=op not in ZERO_SIGN_FREE))
        cs.append(case(f"{op}_f32_incompatible", op, binary_inputs(rng, op, "f32", "f32", (3,), (4,))))
        # With specials on both sides: every pair.
        s = np.array(SPECIALS)
        cs.append(case(f"{op}_f32_specials", op, [to_dtype("f32", np.repeat(s, len(s))),
                                                  to_dtype("f32", np.tile(s, len(s)))],
                       signed_zeros=op not in ZERO_SIGN_FREE))
    return cs


def i16_as_i32(ref):
    """torch's result with int16 (u8 with i8) read as i32: lazax has no i16 and promotes u8 with i8
    to i32, the narrowest dtype it has that holds both (docs/DECISIONS.md)."""
    def f(t, a):
        r = ref(t, a)
        return r.to(torch.int32) if r.dtype == torch.int16 else r
    return f


def promotion_cases(rng):
    """Every dtype pair, tensor with tensor (both dimensioned, one 0-d, both 0-d) and tensor with
    host scalar: the result dtype must be torch's (u8 with i8: i32 for torch's i16)."""
    cs = []
    for da in ALL:
        for db in ALL:
            for op in ["add", "mul", "div", "maximum", "lt", "where"]:
                ins = [make(rng, da, (2, 3)), make(rng, db, (2, 3))]
                if op == "where":
                    ins = [make(rng, "bool", (2, 3))] + ins
                cs.append(case(f"promote_{op}_{da}_{db}", op, ins, ref=i16_as_i32(TORCH[op])))
            for op in ["add", "mul", "eq"]:
                for name, shapes in [(f"{da}_{db}_0d", ((2, 3), ())), (f"{da}_0d_{db}", ((), (4,))),
                                     (f"{da}_{db}_both_0d", ((), ()))]:
                    ins = [make(rng, da, shapes[0]), make(rng, db, shapes[1])]
                    cs.append(case(f"promote_{op}_{name}", op, ins, ref=i16_as_i32(TORCH[op])))
        # Host scalars: whole and fractional, 0 and 1 (recorded as constants), negative.
        for op in ["tensor+scalar", "tensor-scalar", "tensor*scalar", "tensor/scalar", "scalar+tensor",
                   "scalar-tensor", "scalar*tensor", "scalar/tensor", "tensor<scalar", "tensor>scalar"]:
            for v in [2.0, 2.5, -3.0, 0.0, 1.0]:
                kind = "pos" if op == "scalar/tensor" else "any"
                cs.append(case(f"{op}_{da}_{v}", op, [make(rng, da, (2, 3), kind)], {"value": v},
                               grad=da == "f64"))
        cs.append(case(f"tensor*scalar_{da}_0d", "tensor*scalar", [make(rng, da, ())], {"value": 2.5}))
        # Integer scalars (Python ints): 0 and 1 are recorded as constants; u8 wraps -3.
        for op in ["tensor+int", "tensor-int", "tensor*int", "tensor/int", "int+tensor", "int-tensor",
                   "int*tensor", "int/tensor", "tensor<int", "tensor>int", "add_int_", "mul_int_",
                   "integer_scalar"]:
            for v in [2, -3, 0, 1]:
                kind = "pos" if op == "int/tensor" else "any"
                cs.append(case(f"{op}_{da}_{v}", op, [make(rng, da, (2, 3), kind)], {"value": v},
                               grad=da == "f64" and op not in ("add_int_", "mul_int_")))
        cs.append(case(f"tensor*int_{da}_0d", "tensor*int", [make(rng, da, ())], {"value": 3}))
        cs.append(case(f"where_int_{da}", "where_int", [make(rng, "bool", (2, 3)), make(rng, da, (2, 3))],
                       {"value": -2}))
        for v in [2, 3, 0, 1]:
            cs.append(case(f"pow_int_{da}_{v}", "pow_int", [make(rng, da, (2, 3), "pos")], {"exponent": v},
                           grad=da == "f64"))
        for v in [2.0, 3.0, 0.5, -1.0, 1.0]:
            cs.append(case(f"pow_scalar_{da}_{v}", "pow_scalar", [make(rng, da, (2, 3), "pos")], {"exponent": v},
                           grad=da == "f64"))
        cs.append(case(f"where_scalar_{da}", "where_scalar", [make(rng, "bool", (2, 3)), make(rng, da, (2, 3))],
                       {"value": 2.5}))
        cs.append(case(f"where_scalar_{da}_whole", "where_scalar",
                       [make(rng, "bool", (2, 3)), make(rng, da, (2, 3))], {"value": -1.0}))
    s = np.array(SPECIALS)
    for v in [0.5, 2.0, 1.0, 0.0, -1.0, -0.5, 3.0]:
        cs.append(case(f"pow_scalar_f32_specials_{v}", "pow_scalar", [to_dtype("f32", s)], {"exponent": v}))
    for v in [np.inf, -np.inf, np.nan, -0.0]:
        cs.append(case(f"tensor*scalar_f32_{v}", "tensor*scalar", [to_dtype("f32", s)], {"value": v}))
    return cs


def where_clamp_cases(rng):
    cs = []
    cs.append(case("where_bcast", "where", [make(rng, "bool", (3, 1)), make(rng, "f32", (4,)), make(rng, "f32", ())],
                   grad=True))
    cs.append(case("where_f64", "where", [make(rng, "bool", (3, 4)), make(rng, "f64", (3, 4)),
                                          make(rng, "f64", (3, 4))], grad=True))
    cs.append(case("where_cond_not_bool", "where", [make(rng, "i32", (3,)), make(rng, "f32", (3,)),
                                                   make(rng, "f32", (3,))]))
    cs.append(case("where_empty", "where", [make(rng, "bool", (0, 2)), make(rng, "f32", (0, 2)),
                                            make(rng, "f32", (1, 2))]))
    cs.append(case("where_scalar_bcast", "where_scalar", [make(rng, "bool", (2, 1)), make(rng, "bf16", (3,))],
                   {"value": 0.25}))
    for dt in ALL:
        x = make(rng, dt, (4, 5))
        if dt in FLOATS:
            v = x[1].copy()
            v.flat[:3] = [-1.0, 1.5, np.nan]  # ties with the bounds, NaN
            x = (dt, v)
        for tag, lo, hi in [("both", -1.0, 1.5), ("min", 0.5, None), ("max", None, 2.0),
                            ("swapped", 1.5, -1.0), ("whole", -2.0, 3.0)]:
            cs.append(case(f"clamp_{tag}_{dt}", "clamp", [x], {"min": lo, "max": hi},
                           grad=dt in ("f64", "f32")))
    cs.append(case("clamp_none", "clamp", [make(rng, "f32", (3,))], {"min": None, "max": None}))  # both raise
    cs.append(case("clamp_empty", "clamp", [make(rng, "f32", (0,))], {"min": 0.0, "max": 1.0}))
    return cs


REM_OPS = ["fmod", "remainder"]
BITWISE_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]


def nonzero_ints(rng, dt, shape):
    vals = [1, 2, 3, 5] if dt == "u8" else [-5, -3, -2, -1, 1, 2, 3, 5]
    return to_dtype(dt, rng.choice(vals, shape))


def lax_shift(op):
    """torch's shift where the amount is in range; where it is out of range (< 0 or >= the width),
    lax's rule (and PyTorch 2's): 0, or the sign for a right shift of a signed dtype. torch 1.13
    shifts by the amount modulo the width there (the x86 instruction)."""
    def ref(t, a):
        x, n = t
        rt = torch.result_type(x, n)
        if rt == torch.bool or rt.is_floating_point:
            return getattr(torch, op)(x, n)  # raises, as lazax
        bits = torch.iinfo(rt).bits
        out = (n < 0) | (n >= bits)
        r = getattr(torch, op)(x, torch.where(out, torch.zeros_like(n), n))
        fill = torch.zeros_like(r)
        if op == "bitwise_right_shift" and r.dtype != torch.uint8:
            fill = torch.where(x < 0, torch.full_like(r, -1), fill)
        return torch.where(out, fill, r)
    return ref


def rem_bitwise_cases(rng):
    """fmod and remainder (the rem primitive), the bitwise ops and shifts: every dtype (floats
    raise in the bitwise ops as in torch), promotion, broadcasting, specials, edge amounts."""
    cs = []
    for op in REM_OPS:
        for dt in ALL:
            b = nonzero_ints(rng, dt, (3, 4)) if dt in INTS else make(rng, dt, (3, 4))
            cs.append(case(f"{op}_{dt}", op, [make(rng, dt, (3, 4)), b], grad=dt in ("f64", "f32", "bf16")))
        cs.append(case(f"{op}_f32_bcast", op, [make(rng, "f32", (3, 1)), make(rng, "f32", (4,))], grad=True))
        cs.append(case(f"{op}_i32_f32", op, [make(rng, "i32", (2, 3)), make(rng, "f32", (2, 3))]))
        cs.append(case(f"{op}_i64_0d_u8", op, [make(rng, "i64", ()), nonzero_ints(rng, "u8", (4,))]))
        cs.append(case(f"{op}_f64_empty", op, [make(rng, "f64", (0, 3)), make(rng, "f64", (1, 3))]))
        # Integer extremes (not MIN by -1: torch traps, SIGFPE; lazax gives 0, interp tests).
        cs.append(case(f"{op}_i32_extremes", op, [to_dtype("i32", [-2**31, 2**31 - 1, -7, 7]),
                                                   to_dtype("i32", [3, 2, 2, -2])]))
        cs.append(case(f"{op}_i32_by_zero", op, [to_dtype("i32", [3, -3]), to_dtype("i32", [0, 0])],
                       extension="integer division by zero gives x (docs/IR.md rem), torch raises"))
        s = np.array(SPECIALS)
        for dt in ["f32", "f64"]:
            cs.append(case(f"{op}_{dt}_specials", op, [to_dtype(dt, np.repeat(s, len(s))),
                                                       to_dtype(dt, np.tile(s, len(s)))]))
    for op in BITWISE_OPS:
        for dt in ALL:
            b = make(rng, dt, (3, 4))
            if op.endswith("shift") and dt in INTS:
                b = to_dtype(dt, rng.integers(0, 8, (3, 4)))
            cs.append(case(f"{op}_{dt}", op, [make(rng, dt, (3, 4)), b]))
        cs.append(case(f"{op}_i32_bcast", op, [make(rng, "i32", (3, 1)), to_dtype("i32", [1, 2, 3, 4])]))
        cs.append(case(f"{op}_u8_i64", op, [make(rng, "u8", (2, 3)), to_dtype("i64", [[1, 2, 3], [0, 4, 5]])]))
        cs.append(case(f"{op}_bool_i32", op, [make(rng, "bool", (2, 3)), to_dtype("i32", [[1, 2, 3], [0, 4, 5]])]))
        cs.append(case(f"{op}_i32_scalars", op, [make(rng, "i32", ()), to_dtype("i32", 2)]))
        cs.append(case(f"{op}_i64_empty", op, [make(rng, "i64", (0,)), make(rng, "i64", (0,))]))
    # Shift amounts at and beyond the width (and negative), extreme values: see lax_shift.
    for dt, bits, lo, hi in [("i32", 32, -2**31, 2**31 - 1), ("i64", 64, -2**63, 2**63 - 1), ("u8", 8, 0, 255)]:
        x = [lo, hi, -1 if dt != "u8" else 128, 1, 5, hi, lo, 7]
        n = [1, 1, bits - 1, bits - 1, bits, bits + 3, bits + 1, -1 if dt != "u8" else 200]
        for op in ["bitwise_left_shift", "bitwise_right_shift"]:
            cs.append(case(f"{op}_{dt}_edges", op, [to_dtype(dt, x), to_dtype(dt, n)], ref=lax_shift(op)))
        cs.append(case(f"bitwise_not_{dt}_edges", "bitwise_not", [to_dtype(dt, x)]))
        cs.append(case(f"bitwise_xor_{dt}_edges", "bitwise_xor", [to_dtype(dt, x), to_dtype(dt, n)]))
    return cs


def elementwise_cases(rng):
    return (unary_cases(rng) + binary_cases(rng) + promotion_cases(rng) + where_clamp_cases(rng) +
            rem_bitwise_cases(rng))


def all_cases(rng):
    from cases_more import more_cases
    from cases_methods import method_cases
    from cases_index import index_cases
    base = elementwise_cases(rng) + more_cases(rng) + index_cases(rng)
    return base + method_cases(base)
