"""The cases of torch_agreement.py: each is a program in the text form, its inputs and the
expected outputs, computed with PyTorch (NumPy where torch has no direct equivalent) in float64
from the same input values."""
import os

import numpy as np
import torch

from torch_agreement_lib import BOOL, F16, F32, F64, I32, I64, LZ, U8, Case, N, T, lz_list, program, single, ty
from torch_agreement_shape_cases import shape_cases

# Values where the edge cases live: signed zeros, infinities, NaN, ties at .5, overflow.
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 1.5, -2.5, 2.5,
                     88.0, -88.0, 100.0, -100.0, 1e30, -1.0, 1.0, 3.0], dtype=np.float64)


def round_half_away(x):
    """lax.round (half away from zero); torch.round rounds half to even. This is
    np.sign(x) * np.floor(np.abs(x) + 0.5) with the sign taken by copysign, so -0.0 stays -0.0."""
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


# Where lazax follows lax (and NumPy) and PyTorch 1.13 does not; docs/IR.md documents these.
def lax_sign(t):
    """sign keeps NaN and the sign of zeros; torch.sign gives 0.0 for NaN and for -0.0."""
    return torch.where(torch.isnan(t) | (t == 0), t, torch.sign(t))


def lax_max(a, b):
    """max(-0, +0) = +0 in either order; torch.maximum returns its second operand on ties."""
    return torch.where((a == 0) & (b == 0), torch.where(torch.signbit(a), b, a), torch.maximum(a, b))


def lax_min(a, b):
    """min(-0, +0) = -0 in either order; torch.minimum returns its second operand on ties."""
    return torch.where((a == 0) & (b == 0), torch.where(torch.signbit(a), a, b), torch.minimum(a, b))


def with_torch_note(case, torch_want):
    """Notes the elements where the lax reference of `case` differs from plain PyTorch."""
    lax = np.asarray(case.expected[0], np.float64)
    tw = np.asarray(N(torch_want), np.float64)
    same = (lax == tw) & (np.signbit(lax) == np.signbit(tw)) | (np.isnan(lax) & np.isnan(tw))
    diff = np.argwhere(~same)
    if len(diff) == 0:
        return case
    ins = [np.asarray(a).reshape(lax.shape) if np.asarray(a).size == lax.size else None for a in case.inputs]
    shown = "; ".join(
        f"{case.name.split('_')[0]}({', '.join(repr(float(a[tuple(ix)])) for a in ins if a is not None)}): "
        f"lazax {lax[tuple(ix)]!r}, torch {tw[tuple(ix)]!r}" for ix in diff[:3])
    return case._replace(note=f"{len(diff)} element(s) follow lax, not PyTorch: {shown}")


# op -> (reference on float64 tensors, input domain)
UNARY_FLOAT = {
    "neg": (torch.neg, "any"), "abs": (torch.abs, "any"), "relu": (torch.relu, "any"),
    "sign": (lax_sign, "any"),
    "exp": (torch.exp, "any"), "log": (torch.log, "pos"), "log1p": (torch.log1p, "gt-1"),
    "expm1": (torch.expm1, "any"), "tanh": (torch.tanh, "any"), "logistic": (torch.sigmoid, "any"),
    "sqrt": (torch.sqrt, "pos"), "rsqrt": (torch.rsqrt, "pos"), "sin": (torch.sin, "any"),
    "cos": (torch.cos, "any"), "erf": (torch.erf, "any"), "floor": (torch.floor, "any"),
    "round": (lambda t: torch.from_numpy(round_half_away(t.numpy())), "any"),
    "ceil": (torch.ceil, "any"), "erf_inv": (torch.erfinv, "unit"), "exp2": (torch.exp2, "any"),
    "tan": (torch.tan, "any"),
}
BINARY_FLOAT = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "max": lax_max, "min": lax_min, "pow": torch.pow, "atan2": torch.atan2, "rem": torch.fmod,
}
TORCH_INSTEAD = {"sign": torch.sign, "max": torch.maximum, "min": torch.minimum}
INT_BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "max": torch.maximum, "min": torch.minimum,
    "div": lambda a, b: torch.div(a, b, rounding_mode="trunc"), "rem": torch.fmod,
    "and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor,
}
INT_UNARY = {"neg": torch.neg, "abs": torch.abs, "relu": torch.relu, "sign": torch.sign,
             "not": torch.bitwise_not}


def domain(rng, kind, shape, dtype):
    if kind == "pos":
        x = rng.uniform(0.05, 4.0, shape)
    elif kind == "gt-1":
        x = rng.uniform(-0.95, 4.0, shape)
    elif kind == "unit":
        x = rng.uniform(-0.99, 0.99, shape)
    else:
        x = rng.normal(0, 2, shape)
        x.flat[:6] = [0.5, -0.5, 2.5, -1.5, 0.0, 3.0][: x.size]  # exact ties for round, sign(0)
    return x.astype(dtype)


def elementwise_cases(rng):
    cases = []
    for dt, shape in [(F32, (4, 6)), (F64, (3, 5)), (F16, (2, 7))]:
        ops = UNARY_FLOAT if dt != F16 else {k: UNARY_FLOAT[k] for k in ["neg", "exp", "tanh", "sqrt", "logistic"]}
        for op, (fn, kind) in ops.items():
            x = domain(rng, kind, shape, dt)
            cases.append(single(f"{op}_{LZ[dt]}", op, [x], fn(T(x))))
        bops = BINARY_FLOAT if dt != F16 else {k: BINARY_FLOAT[k] for k in ["add", "mul", "div"]}
        for op, fn in bops.items():
            a = domain(rng, "pos" if op == "pow" else "any", shape, dt)
            b = rng.normal(0, 2, shape).astype(dt)
            if op in ("max", "min"):
                b.flat[:3] = a.flat[:3]  # ties
            cases.append(single(f"{op}_{LZ[dt]}", op, [a, b], fn(T(a), T(b))))
    # Special values through every unary and binary float op (f32).
    s = SPECIALS.astype(F32)
    with np.errstate(all="ignore"):
        for op, (fn, _) in UNARY_FLOAT.items():
            c = single(f"{op}_f32_specials", op, [s], fn(T(s)))
            cases.append(with_torch_note(c, TORCH_INSTEAD[op](T(s))) if op in TORCH_INSTEAD else c)
        a = np.repeat(s, len(s)).astype(F32)
        b = np.tile(s, len(s)).astype(F32)
        for op, fn in BINARY_FLOAT.items():
            c = single(f"{op}_f32_specials", op, [a, b], fn(T(a), T(b)))
            cases.append(with_torch_note(c, TORCH_INSTEAD[op](T(a), T(b))) if op in TORCH_INSTEAD else c)
    neg_base = np.array([-2, -2, -0.5, -3, 0, 0, -0.0], F32)
    expo = np.array([3, 0.5, 2, -1, 0, -1, -1], F32)
    cases.append(single("pow_f32_negative_base", "pow", [neg_base, expo], torch.pow(T(neg_base), T(expo))))
    # Integers: exact, no division by zero (torch raises on it).
    for dt, lim in [(I32, 1000), (I64, 1 << 40)]:
        a = rng.integers(-lim, lim, (3, 7)).astype(dt)
        b = rng.integers(-lim, lim, (3, 7)).astype(dt)
        b[b == 0] = 7
        a.flat[:4] = [7, -7, 7, -7]
        b.flat[:4] = [2, 2, -2, -2]  # truncation toward zero
        for op, fn in INT_BINARY.items():
            cases.append(single(f"{op}_{LZ[dt]}", op, [a, b], fn(T(a), T(b))))
        for op, fn in INT_UNARY.items():
            cases.append(single(f"{op}_{LZ[dt]}", op, [a], fn(T(a))))
    a = rng.integers(0, 256, (4, 5)).astype(U8)
    b = rng.integers(0, 256, (4, 5)).astype(U8)
    for op in ["add", "sub", "mul", "max", "min"]:  # u8 arithmetic wraps in both
        cases.append(single(f"{op}_u8", op, [a, b], INT_BINARY[op](T(a), T(b))))
    # compare, every direction, with ties and NaN.
    fa = rng.normal(0, 1, (3, 6)).astype(F32)
    fb = rng.normal(0, 1, (3, 6)).astype(F32)
    fb[0, :3] = fa[0, :3]
    fa[1, 0], fb[1, 1], fa[1, 2], fb[1, 2] = np.nan, np.nan, np.nan, np.nan
    fa[2, 0], fb[2, 0] = -0.0, 0.0
    ia = rng.integers(-3, 3, (4, 4)).astype(I32)
    ib = rng.integers(-3, 3, (4, 4)).astype(I32)
    dirs = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}
    for d, fn in dirs.items():
        cases.append(single(f"compare_{d}_f32", "compare", [fa, fb], fn(T(fa), T(fb)), f"dir={d}", BOOL))
        cases.append(single(f"compare_{d}_i32", "compare", [ia, ib], fn(T(ia), T(ib)), f"dir={d}", BOOL))
    # select, elementwise and with a scalar predicate.
    p = rng.random((3, 4)) < 0.5
    x, y = rng.normal(0, 1, (2, 3, 4)).astype(F32)
    cases.append(single("select_f32", "select", [p, x, y], torch.where(T(p), T(x), T(y)), out_dtype=F32))
    cases.append(single("select_scalar_pred", "select", [np.array(False), x, y], T(y), out_dtype=F32))
    i, j = rng.integers(-9, 9, (2, 5)).astype(I64)
    q = rng.random(5) < 0.5
    cases.append(single("select_i64", "select", [q, i, j], torch.where(T(q), T(i), T(j)), out_dtype=I64))
    # convert: truncation toward zero, narrowing wraps, to bool is != 0, f16 rounding.
    fx = rng.uniform(-300, 300, (3, 5)).astype(F32)
    fx.flat[:6] = [2.7, -2.7, 0.5, -0.5, 0.0, -0.0]
    big = rng.integers(-(1 << 40), 1 << 40, 8).astype(I64)
    ints = rng.integers(-300, 300, 8).astype(I32)
    ints[:2] = 0
    bools = rng.random(6) < 0.5
    u = rng.integers(0, 256, 6).astype(U8)
    f64s = rng.normal(0, 1e3, 6)
    conv = [
        ("f32_to_i32", fx, I32, T(fx).to(torch.int32)), ("f32_to_i64", fx, I64, T(fx).to(torch.int64)),
        ("f32_to_f64", fx, F64, T(fx)), ("f64_to_f32", f64s, F32, T(f64s)),
        ("f32_to_f16", fx, F16, T(fx)), ("f16_to_f32", fx.astype(F16), F32, T(fx.astype(F16))),
        ("i32_to_f32", ints, F32, T(ints).to(torch.float64)), ("i64_to_i32", big, I32, T(big).to(torch.int32)),
        ("i32_to_u8", ints, U8, T(ints).to(torch.uint8)), ("i32_to_i64", ints, I64, T(ints).to(torch.int64)),
        ("f32_to_bool", fx, BOOL, T(fx).to(torch.bool)), ("i32_to_bool", ints, BOOL, T(ints).to(torch.bool)),
        ("bool_to_f32", bools, F32, T(bools).to(torch.float64)), ("bool_to_i32", bools, I32, T(bools).to(torch.int32)),
        ("u8_to_f32", u, F32, T(u).to(torch.float64)), ("f32_to_u8", np.abs(fx) % 255, U8, T(np.abs(fx) % 255).to(torch.uint8)),
    ]
    for name, x, to, want in conv:
        cases.append(single(f"convert_{name}", "convert", [x], want, f"dtype={LZ[np.dtype(to).type]}", to))
    return cases + bitwise_clamp_cases(rng)


def lax_shift(op, x, n):
    """lax's shifts: torch's where the amount is in [0, width); outside it, 0 (left, logical) or
    the sign (arithmetic). PyTorch 1.13 takes the amount modulo the width (x86), PyTorch 2 as lax;
    shift_right_logical of a signed dtype shifts its unsigned bits (torch has no such op)."""
    bits = x.dtype.itemsize * 8
    out = (n < 0) | (n >= bits)
    safe = np.where(out, 0, n)
    if op == "shift_left":
        r = N(torch.bitwise_left_shift(T(x), T(safe)))
        return np.where(out, 0, r).astype(x.dtype)
    if op == "shift_right_arithmetic":
        r = N(torch.bitwise_right_shift(T(x), T(safe)))
        return np.where(out, np.where(x < 0, -1, 0), r).astype(x.dtype)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    r = (u >> safe.astype(np.uint64)).astype(x.dtype)
    return np.where(out, 0, r).astype(x.dtype)


def bitwise_clamp_cases(rng):
    """is_finite, clamp, the bitwise ops of bool and the shifts with out-of-range amounts."""
    cases = []
    s = SPECIALS.astype(F32)
    cases.append(single("is_finite_f32_specials", "is_finite", [s], torch.isfinite(T(s)), out_dtype=BOOL))
    x = rng.normal(0, 2, (3, 8)).astype(F32)
    lo = rng.normal(-1, 1, (3, 8)).astype(F32)
    hi = rng.normal(1, 1, (3, 8)).astype(F32)
    x.flat[:4] = [np.nan, lo.flat[1], hi.flat[2], np.inf]  # NaN, ties with each bound
    hi.flat[4] = lo.flat[4] - 1  # lo > hi gives hi
    cases.append(single("clamp_f32", "clamp", [lo, x, hi], torch.clamp(T(x), T(lo), T(hi))))
    cases.append(single("clamp_f32_scalar_bounds", "clamp", [np.array(-0.5, F32), x, np.array(1.5, F32)],
                        torch.clamp(T(x), -0.5, 1.5)))
    ix = rng.integers(-50, 50, (4, 5)).astype(I64)
    cases.append(single("clamp_i64", "clamp", [np.array(-10, I64), ix, np.array(20, I64)],
                        torch.clamp(T(ix), -10, 20)))
    p = rng.random((3, 5)) < 0.5
    q = rng.random((3, 5)) < 0.5
    for op, fn in [("and", torch.logical_and), ("or", torch.logical_or), ("xor", torch.logical_xor)]:
        cases.append(single(f"{op}_bool", op, [p, q], fn(T(p), T(q)), out_dtype=BOOL))
    cases.append(single("not_bool", "not", [p], torch.logical_not(T(p)), out_dtype=BOOL))
    for dt in [I32, I64, U8]:
        bits = np.dtype(dt).itemsize * 8
        info = np.iinfo(dt)
        a = rng.integers(info.min // 2, info.max // 2, (3, 8), dtype=np.int64).astype(dt)
        a.flat[:4] = [info.min, info.max, 1, 0 if dt == U8 else -1]
        n = rng.integers(0, bits, (3, 8)).astype(dt)
        n.flat[:8] = [1, 1, bits - 1, bits - 1, bits, bits + 3, 0, 255 if dt == U8 else -1]
        for op in ["shift_left", "shift_right_logical", "shift_right_arithmetic"]:
            if dt == U8 and op == "shift_right_arithmetic":
                continue  # XLA's reading of u8 bits as signed: in the interpreter tests
            cases.append(single(f"{op}_{LZ[dt]}", op, [a, n], lax_shift(op, a, n)))
    return cases


def reduction_cases(rng):
    cases = []
    x = rng.normal(0, 1, (3, 4, 5)).astype(F32)
    xp = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(F32)  # products stay moderate
    xi = rng.integers(-50, 50, (3, 4, 5)).astype(I32)
    xb = rng.random((3, 4, 5)) < 0.3
    for axes in [[0], [1], [2], [0, 2], [1, 2], [0, 1, 2], []]:
        ax = tuple(axes)
        tag = "".join(str(a) for a in axes) or "none"

        def red(fn, t):
            return t if not ax else fn(t, ax)

        attrs = f"axes={lz_list(axes)}"
        cases.append(single(f"reduce_sum_f32_{tag}", "reduce_sum", [x], red(lambda t, a: t.sum(dim=a), T(x)), attrs))
        cases.append(single(f"reduce_max_f32_{tag}", "reduce_max", [x], red(lambda t, a: t.amax(dim=a), T(x)), attrs))
        cases.append(single(f"reduce_min_f32_{tag}", "reduce_min", [x], red(lambda t, a: t.amin(dim=a), T(x)), attrs))
        cases.append(single(f"reduce_prod_f32_{tag}", "reduce_prod", [xp], np.prod(xp.astype(F64), axis=ax), attrs))
        cases.append(single(f"reduce_sum_i32_{tag}", "reduce_sum", [xi], red(lambda t, a: t.sum(dim=a), T(xi)), attrs))
        cases.append(single(f"reduce_max_i32_{tag}", "reduce_max", [xi], red(lambda t, a: t.amax(dim=a), T(xi)), attrs))
        # torch 1.13's any/all take one dim: NumPy for bool (any = max, all = min).
        cases.append(single(f"reduce_max_bool_{tag}", "reduce_max", [xb], np.any(xb, axis=ax) if ax else xb, attrs))
        cases.append(single(f"reduce_min_bool_{tag}", "reduce_min", [xb], np.all(xb, axis=ax) if ax else xb, attrs))
    xn = x.copy()
    xn[1, 2, 3] = np.nan
    cases.append(single("reduce_max_f32_nan", "reduce_max", [xn], T(xn).amax(dim=(2,)), "axes=[2]"))
    x64 = rng.normal(0, 1, (7, 300))
    cases.append(single("reduce_sum_f64_rows", "reduce_sum", [x64], T(x64).sum(dim=(1,)), "axes=[1]"))
    # argmax: ties go to the first maximum (as torch); a NaN is the maximum.
    ties = rng.integers(0, 3, (4, 6)).astype(F32)
    tn = ties.copy()
    tn[1, 2], tn[1, 4], tn[3, 0] = np.nan, np.nan, np.nan
    for axis in [0, 1]:
        for idt in [I32, I64]:
            cases.append(single(f"argmax_f32_axis{axis}_{LZ[idt]}", "argmax", [ties], T(ties).argmax(dim=axis),
                                f"axis={axis}, index_dtype={LZ[idt]}", idt))
        cases.append(single(f"argmax_f32_nan_axis{axis}", "argmax", [tn], T(tn).argmax(dim=axis),
                            f"axis={axis}, index_dtype=i64", I64))
        cases.append(single(f"argmax_i32_axis{axis}", "argmax", [xi[0]], T(xi[0]).argmax(dim=axis),
                            f"axis={axis}, index_dtype=i32", I32))
    # cumsum, forward and reverse.
    for axis in [0, 1, 2]:
        for rev in [False, True]:
            def cs(t):
                return t.flip(axis).cumsum(axis).flip(axis) if rev else t.cumsum(axis)
            attrs = f"axis={axis}, reverse={'true' if rev else 'false'}"
            tag = f"axis{axis}{'_reverse' if rev else ''}"
            cases.append(single(f"cumsum_f32_{tag}", "cumsum", [x], cs(T(x)), attrs))
            cases.append(single(f"cumsum_i32_{tag}", "cumsum", [xi], cs(T(xi)), attrs))
    cases += sort_scan_cases(np.random.default_rng(2020), ties, tn, xi)  # own rng: later cases keep theirs
    return cases


def two_results(name, op, x, want, attrs):
    """A program of one (values, i64 indices) op on x."""
    values, indices = N(want[0]), N(want[1])
    text = program([x], [f"%r:2 = {op}(%a0) {{{attrs}}} : ({ty(x.dtype, x.shape)}, {ty(I64, x.shape)})"],
                   [("%r#0", x.dtype, x.shape), ("%r#1", I64, x.shape)])
    return Case(name, text, [x], [values, indices], [x.dtype, I64])


def sort_scan_cases(rng, ties, tn, xi):
    """argmin, cumprod, cummax/cummin, sort, rev and reduce_and/or against torch."""
    cases = []
    for axis in [0, 1]:
        cases.append(single(f"argmin_f32_axis{axis}", "argmin", [ties], T(ties).argmin(dim=axis),
                            f"axis={axis}, index_dtype=i32", I32))
        cases.append(single(f"argmin_f32_nan_axis{axis}", "argmin", [tn], T(tn).argmin(dim=axis),
                            f"axis={axis}, index_dtype=i64", I64))
        cases.append(single(f"argmin_i32_axis{axis}", "argmin", [xi[0]], T(xi[0]).argmin(dim=axis),
                            f"axis={axis}, index_dtype=i64", I64))
    x = rng.uniform(-1.5, 1.5, (3, 5)).astype(F32)
    x[1, 2] = 0.0
    for axis in [0, 1]:
        for rev in [False, True]:
            attrs = f"axis={axis}, reverse={'true' if rev else 'false'}"
            tag = f"axis{axis}{'_reverse' if rev else ''}"

            def along(t, f):  # f(t, axis) in scan order
                return f(t.flip(axis), axis).flip(axis) if rev else f(t, axis)
            cases.append(single(f"cumprod_f32_{tag}", "cumprod", [x], along(T(x), torch.cumprod), attrs))
            for op in ["cummax", "cummin"]:
                for name, arr in [("f32_nan", tn), ("i32", xi[0])]:
                    f = getattr(torch, op)
                    vals = along(T(arr), lambda t, a: f(t, a).values)
                    idx = along(T(arr), lambda t, a: f(t, a).indices)
                    if rev:  # indices into the flipped tensor, back to the original positions
                        idx = arr.shape[axis] - 1 - idx
                    cases.append(two_results(f"{op}_{name}_{tag}", op, arr, (vals, idx), attrs))
        for desc in [False, True]:
            attrs = f"axis={axis}, descending={'true' if desc else 'false'}"
            for name, arr in [("f32_ties", ties), ("f32_nan", tn), ("i32", xi[0])]:
                r = torch.sort(T(arr), dim=axis, descending=desc, stable=True)
                cases.append(two_results(f"sort_{name}_axis{axis}_{'desc' if desc else 'asc'}", "sort", arr,
                                         (r.values, r.indices), attrs))
    for dims in [[0], [1], [0, 1], []]:
        cases.append(single(f"rev_f32_{''.join(map(str, dims)) or 'none'}", "rev", [tn], torch.flip(T(tn), dims),
                            f"dimensions={lz_list(dims)}"))
    xb = rng.random((3, 4)) < 0.6
    xb[0] = True
    for axes in [[0], [1], [0, 1]]:
        attrs = f"axes={lz_list(axes)}"
        cases.append(single(f"reduce_and_{''.join(map(str, axes))}", "reduce_and", [xb], torch.from_numpy(xb).all(axes[0])
                            if len(axes) == 1 else torch.from_numpy(xb).all(), attrs))
        cases.append(single(f"reduce_or_{''.join(map(str, axes))}", "reduce_or", [xb], torch.from_numpy(xb).any(axes[0])
                            if len(axes) == 1 else torch.from_numpy(xb).any(), attrs))
    return cases


def dot_cases(rng):
    cases = []

    def dot(name, a, b, lb, rb, lc, rc, want):
        attrs = f"lhs_batch={lz_list(lb)}, rhs_batch={lz_list(rb)}, lhs_contracting={lz_list(lc)}, rhs_contracting={lz_list(rc)}"
        cases.append(single(name, "dot_general", [a, b], want, attrs))

    r = lambda *s: rng.normal(0, 1, s).astype(F32)  # noqa: E731
    a, b = r(2, 3), r(3, 4)
    dot("dot_matmul", a, b, [], [], [1], [0], T(a) @ T(b))
    a64, b64 = rng.normal(0, 1, (5, 7)), rng.normal(0, 1, (7, 3))
    dot("dot_matmul_f64", a64, b64, [], [], [1], [0], T(a64) @ T(b64))
    ai, bi = rng.integers(-9, 9, (4, 6)).astype(I32), rng.integers(-9, 9, (6, 2)).astype(I32)
    dot("dot_matmul_i32", ai, bi, [], [], [1], [0], T(ai) @ T(bi))
    a, b = r(5, 2, 3), r(5, 3, 4)
    dot("dot_batched", a, b, [0], [0], [2], [1], torch.bmm(T(a), T(b)))
    a, b = r(3, 2), r(3, 4)
    dot("dot_contract_dim0", a, b, [], [], [0], [0], T(a).T @ T(b))
    a, b = r(4, 3), r(5, 3)
    dot("dot_contract_last_last", a, b, [], [], [1], [1], T(a) @ T(b).T)
    a, b = r(2, 3, 4), r(4, 3, 5)
    dot("dot_two_contracting", a, b, [], [], [1, 2], [1, 0], torch.einsum("abc,cbd->ad", T(a), T(b)))
    a, b = r(3, 5, 2), r(4, 5, 3)
    dot("dot_batch_in_middle", a, b, [1], [1], [0], [2], torch.einsum("kbi,jbk->bij", T(a), T(b)))
    a, b = r(2, 3, 4, 5), r(2, 5, 3, 6)
    dot("dot_two_batch", a, b, [0, 1], [0, 2], [3], [1], torch.einsum("abik,akbj->abij", T(a), T(b)))
    a, b = r(3), r(3)
    dot("dot_vector", a, b, [], [], [0], [0], T(a) @ T(b))
    a, b = r(3, 0), r(0, 4)
    dot("dot_empty_contraction", a, b, [], [], [1], [0], T(a) @ T(b))
    # The example program of `lazax demo`.
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "mlp.lzir")
    with open(src) as f:
        text = f.read()
    x, w = r(2, 3), r(3, 4)
    cases.append(Case("example_mlp", text, [x, w], [N(torch.tanh(T(x) @ T(w)))], [F32]))
    return cases


def indexing_cases(rng):
    cases = []
    table = rng.normal(0, 1, (10, 4)).astype(F32)

    def gather(name, x, idx, want, offset, collapsed, start_map, sizes, mode="fill"):
        attrs = (f"offset_dims={lz_list(offset)}, collapsed_slice_dims={lz_list(collapsed)}, "
                 f"start_index_map={lz_list(start_map)}, slice_sizes={lz_list(sizes)}, mode={mode}")
        cases.append(single(name, "gather", [x, idx], want, attrs, x.dtype))

    ids = np.array([3, 0, 9, 3, 7], I32)
    gather("gather_embedding", table, ids[:, None], torch.index_select(T(table), 0, T(ids).long()), [1], [0], [0], [1, 4])
    ids2 = rng.integers(0, 10, (2, 3)).astype(I64)
    gather("gather_embedding_2d_ids", table, ids2[..., None], T(table)[T(ids2)], [2], [0], [0], [1, 4])
    bad = np.array([2, -1, 10, 12, 0], I32)
    fill = np.where(((bad >= 0) & (bad < 10))[:, None], table[np.clip(bad, 0, 9)], np.nan)
    gather("gather_fill_out_of_bounds", table, bad[:, None], fill, [1], [0], [0], [1, 4], "fill")
    gather("gather_clip_out_of_bounds", table, bad[:, None], torch.index_select(T(table), 0, T(np.clip(bad, 0, 9)).long()),
           [1], [0], [0], [1, 4], "clip")
    x = rng.normal(0, 1, (3, 6)).astype(F32)
    cols = np.array([5, 0, 2, 2], I32)
    gather("gather_columns", x, cols[:, None], torch.index_select(T(x), 1, T(cols).long()), [0], [1], [1], [3, 1])
    pts = np.stack([rng.integers(0, 3, 6), rng.integers(0, 6, 6)], axis=1).astype(I32)
    gather("gather_points", x, pts, T(x)[T(pts[:, 0]).long(), T(pts[:, 1]).long()], [], [0, 1], [0, 1], [1, 1])
    xw = rng.normal(0, 1, (6, 5)).astype(F32)
    starts = np.array([[0], [3], [5]], I32)
    windows = np.stack([xw[min(s, 4):min(s, 4) + 2] for s in starts[:, 0]])
    gather("gather_windows_clip", xw, starts, windows, [1, 2], [], [0], [2, 5], "clip")
    xi = rng.integers(-5, 5, (10, 4)).astype(I32)
    gather("gather_embedding_i32", xi, ids[:, None], torch.index_select(T(xi), 0, T(ids).long()), [1], [0], [0], [1, 4])

    def scatter(name, x, idx, upd, want, window, inserted, to_operand, mode="fill"):
        attrs = (f"update_window_dims={lz_list(window)}, inserted_window_dims={lz_list(inserted)}, "
                 f"scatter_dims_to_operand_dims={lz_list(to_operand)}, mode={mode}")
        cases.append(single(name, "scatter_add", [x, idx, upd], want, attrs, x.dtype))

    x = rng.normal(0, 1, (6, 3)).astype(F32)
    idx = np.array([0, 2, 0, 5, 2, 0], I32)
    upd = rng.normal(0, 1, (6, 3)).astype(F32)
    scatter("scatter_add_index_add", x, idx[:, None], upd, torch.index_add(T(x), 0, T(idx).long(), T(upd)), [1], [0], [0])
    xi, ui = rng.integers(-9, 9, (6, 3)).astype(I32), rng.integers(-9, 9, (6, 3)).astype(I32)
    scatter("scatter_add_index_add_i32", xi, idx[:, None], ui, torch.index_add(T(xi), 0, T(idx).long(), T(ui)), [1], [0], [0])
    v = rng.normal(0, 1, 8).astype(F32)
    vi = np.array([1, 7, 1, 1, 3, 7], I64)
    vu = rng.normal(0, 1, 6).astype(F32)
    scatter("scatter_add_1d_duplicates", v, vi[:, None], vu, torch.scatter_add(T(v), 0, T(vi), T(vu)), [], [0], [0])
    oob = np.array([0, 6, -1, 5, 9, 2], I32)
    keep = (oob >= 0) & (oob < 6)
    scatter("scatter_add_fill_drops_out_of_bounds", x, oob[:, None], upd,
            torch.index_add(T(x), 0, T(oob[keep]).long(), T(upd[keep])), [1], [0], [0], "fill")
    scatter("scatter_add_clip", x, oob[:, None], upd,
            torch.index_add(T(x), 0, T(np.clip(oob, 0, 5)).long(), T(upd)), [1], [0], [0], "clip")
    g = rng.normal(0, 1, (4, 5)).astype(F32)
    p = np.array([[0, 1], [3, 4], [0, 1], [2, 2]], I32)
    pu = rng.normal(0, 1, 4).astype(F32)
    want = T(g).index_put((T(p[:, 0]).long(), T(p[:, 1]).long()), T(pu), accumulate=True)
    scatter("scatter_add_points", g, p, pu, want, [], [0, 1], [0, 1])
    return cases


def all_cases(rng):
    from torch_agreement_dtype_cases import dtype_cases  # (it imports this module)
    from torch_agreement_int_cases import int8_uint32_cases
    with np.errstate(all="ignore"):
        return (elementwise_cases(rng) + reduction_cases(rng) + dot_cases(rng) + indexing_cases(rng) +
                shape_cases(rng) + dtype_cases(rng) + int8_uint32_cases(rng))
