"""Agreement cases of the i8 and u32 dtypes, checked against NumPy (PyTorch 1.13 has no uint32;
for i8 it gives NumPy's values on the arithmetic, bitwise and comparison cases here). Inputs span each dtype's whole range, extremes
included, so that wrap-around is exercised. Where lax's semantics differ from NumPy's (division by
zero, MIN / -1, out-of-range shift amounts, float -> integer out of range), the reference applies
lax's rule (docs/IR.md) to NumPy's results; the rule is named next to it."""
import numpy as np

from torch_agreement_lib import BOOL, F16, F32, F64, I32, I64, I8, LZ, U32, U8, lz_list, single

INTS = [I8, U32]
EVERY = [F32, F64, F16, I32, I64, U8, I8, U32, BOOL]  # every dtype NumPy and .npy hold


def full_range(rng, dt, shape):
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True).astype(dt)
    edges = [info.min, info.max, 0, 1, info.max - 1, info.min + 1]
    if info.min < 0:
        edges += [-1, -2]
    a.flat[:len(edges)] = edges
    return a


def wide(a):
    return a.astype(np.int64)


def lax_div(a, b):
    """Truncating division; x / 0 = 0 and MIN / -1 wraps to MIN (lax, docs/IR.md `div`)."""
    x, y = wide(a), wide(b)
    safe = np.where(y == 0, 1, y)
    q = np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe)
    return np.where(y == 0, 0, q).astype(a.dtype)  # astype wraps 128 to -128


def lax_rem(a, b):
    """x - div(x, y) * y: the sign of x; x % 0 = x (lax, docs/IR.md `rem`)."""
    return (wide(a) - wide(lax_div(a, b)) * wide(b)).astype(a.dtype)  # MIN % -1 wraps to 0


def lax_shift(op, x, n):
    """NumPy's shifts where the amount is in [0, width) (the amount read as unsigned); outside
    it 0 (left, logical) or copies of the top bit (arithmetic, which reads u32 bits as signed)."""
    bits = x.dtype.itemsize * 8
    un = n.view(np.dtype(f"u{n.dtype.itemsize}")).astype(np.uint64)
    out = un >= bits
    safe = np.where(out, 0, un)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    s = x.view(np.dtype(f"i{x.dtype.itemsize}")).astype(np.int64)
    if op == "shift_left":
        r = (u << safe) & np.uint64((1 << bits) - 1)
    elif op == "shift_right_logical":
        r = u >> safe
    else:
        r = np.where(out, np.where(s < 0, -1, 0), s >> safe.astype(np.int64))
        return r.astype(np.dtype(f"i{x.dtype.itemsize}")).view(x.dtype)
    return np.where(out, 0, r).astype(np.dtype(f"u{x.dtype.itemsize}")).view(x.dtype)


def lax_float_to_int(x, dt):
    """Float -> integer: truncate toward zero, clamp out of range, NaN -> 0 (docs/IR.md `convert`;
    NumPy leaves these undefined)."""
    info = np.iinfo(dt)
    v = np.nan_to_num(x.astype(F64), nan=0.0, posinf=np.inf, neginf=-np.inf)
    return np.clip(np.trunc(v), info.min, info.max).astype(dt)


def elementwise_cases(rng):
    cs = []
    for dt in INTS:
        name = LZ[dt]
        a, b = full_range(rng, dt, (4, 9)), full_range(rng, dt, (4, 9))
        b = np.roll(b, 3)  # pair extremes with other values
        b.flat[-4:] = [0, 1, np.iinfo(dt).max, 0]  # division by zero and by one
        if dt == I8:
            a.flat[-3] = -128
            b.flat[-3] = -1  # MIN / -1
        with np.errstate(all="ignore"):
            for op, fn in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                           ("max", np.maximum), ("min", np.minimum), ("and", np.bitwise_and),
                           ("or", np.bitwise_or), ("xor", np.bitwise_xor)]:
                cs.append(single(f"{op}_{name}", op, [a, b], fn(a, b)))
            cs.append(single(f"div_{name}", "div", [a, b], lax_div(a, b)))
            cs.append(single(f"rem_{name}", "rem", [a, b], lax_rem(a, b)))
            cs.append(single(f"neg_{name}", "neg", [a], (-wide(a)).astype(dt)))
            cs.append(single(f"abs_{name}", "abs", [a], np.abs(wide(a)).astype(dt)))
            cs.append(single(f"sign_{name}", "sign", [a], np.sign(a)))
            cs.append(single(f"not_{name}", "not", [a], np.invert(a)))
            for d, fn in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                          ("gt", np.greater), ("ge", np.greater_equal)]:
                cs.append(single(f"compare_{d}_{name}", "compare", [a, b], fn(a, b), f"dir={d}", BOOL))
        bits = dt(0).itemsize * 8
        n = rng.integers(0, bits, (4, 9)).astype(dt)
        n.flat[:6] = [0, 1, bits - 1, bits, bits + 3, np.iinfo(dt).max]
        if dt == I8:
            n.flat[6] = -1  # read as unsigned: out of range
        for op in ["shift_left", "shift_right_logical", "shift_right_arithmetic"]:
            cs.append(single(f"{op}_{name}", op, [a, n], lax_shift(op, a, n)))
        p = rng.random((4, 9)) < 0.5
        cs.append(single(f"select_{name}", "select", [p, a, b], np.where(p, a, b), out_dtype=dt))
    return cs


def convert_cases(rng):
    cs = []
    for dt in INTS:
        x = full_range(rng, dt, (3, 7))
        if dt == U32:
            x.flat[8:11] = [16777217, 2147483648, 4294967295]  # rounding to f32 and f16 overflow
        for to in EVERY:
            with np.errstate(all="ignore"):
                want = x.astype(to)
            cs.append(single(f"convert_{LZ[dt]}_to_{LZ[to]}", "convert", [x], want, f"dtype={LZ[to]}", to))
    for frm in EVERY:
        for to in INTS:
            if frm in INTS:
                continue  # done above
            if frm in (F32, F64, F16):
                x = (rng.normal(0, 1, (3, 7)) * (100 if to == I8 else 3e9)).astype(frm)
                specials = [np.nan, np.inf, -np.inf, -0.5, 0.5, -1.0, 127.9, 128.0, -128.9, -129.0]
                if frm != F16:
                    specials += [4294967295.9, 4294967296.0]
                x.flat[:len(specials)] = np.array(specials).astype(frm)
                want = lax_float_to_int(x, to)
            elif frm == BOOL:
                x = rng.random((3, 7)) < 0.5
                want = x.astype(to)
            else:
                x = full_range(rng, frm, (3, 7))
                want = x.astype(to)  # integer -> integer wraps modulo 2^bits, as NumPy
            cs.append(single(f"convert_{LZ[frm]}_to_{LZ[to]}", "convert", [x], want, f"dtype={LZ[to]}", to))
    return cs


def reduction_cases(rng):
    cs = []
    for dt in INTS:
        name = LZ[dt]
        x = full_range(rng, dt, (3, 4, 5))
        for axes in [[0], [1, 2], [0, 1, 2]]:
            ax, tag, attrs = tuple(axes), "".join(map(str, axes)), f"axes={lz_list(axes)}"
            with np.errstate(all="ignore"):
                # Sums and products wrap (modulo 2^bits, in any order).
                cs.append(single(f"reduce_sum_{name}_{tag}", "reduce_sum", [x], np.sum(x, axis=ax, dtype=dt), attrs))
                cs.append(single(f"reduce_prod_{name}_{tag}", "reduce_prod", [x], np.prod(x, axis=ax, dtype=dt),
                                 attrs))
            cs.append(single(f"reduce_max_{name}_{tag}", "reduce_max", [x], np.max(x, axis=ax), attrs))
            cs.append(single(f"reduce_min_{name}_{tag}", "reduce_min", [x], np.min(x, axis=ax), attrs))
        for axis in [0, 2]:
            with np.errstate(all="ignore"):
                cs.append(single(f"cumsum_{name}_axis{axis}", "cumsum", [x], np.cumsum(x, axis=axis, dtype=dt),
                                 f"axis={axis}, reverse=false"))
            cs.append(single(f"argmax_{name}_axis{axis}", "argmax", [x], np.argmax(x, axis=axis),
                             f"axis={axis}, index_dtype=i64", I64))
            cs.append(single(f"argmin_{name}_axis{axis}", "argmin", [x], np.argmin(x, axis=axis),
                             f"axis={axis}, index_dtype=i64", I64))
        # dot_general: products and sums wrap, so NumPy's exact i64 result modulo 2^bits.
        lhs, rhs = full_range(rng, dt, (3, 6)), full_range(rng, dt, (6, 4))
        want = (wide(lhs) @ wide(rhs)).astype(dt)
        cs.append(single(f"dot_{name}", "dot_general", [lhs, rhs], want,
                         "lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]"))
    return cs


def int8_uint32_cases(rng):
    with np.errstate(all="ignore"):
        return elementwise_cases(rng) + convert_cases(rng) + reduction_cases(rng)
