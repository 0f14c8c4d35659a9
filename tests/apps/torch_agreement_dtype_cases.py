"""Agreement cases in the narrow and the edge dtypes and shapes: bf16 (NumPy has no bfloat16, so
the programs take f32 inputs holding bf16 values, convert them, compute in bf16 and convert the
result back: the expected dtype "bf16" means f32 values rounded to bf16), more f16, empty and
size-1 shapes, and integer reductions (i64, i32, u8 and bool)."""
import numpy as np
import torch

from torch_agreement_cases import BINARY_FLOAT, SPECIALS, TORCH_INSTEAD, UNARY_FLOAT, domain, lax_max, with_torch_note
from torch_agreement_lib import BOOL, F16, F32, I32, I64, U8, Case, N, T, lz_list, single, ty

BF16 = "bf16"  # an expected dtype: f32 in the file, bf16 values


def bf(x):
    """f32 values that bf16 represents exactly (rounded to nearest even)."""
    with np.errstate(all="ignore"):
        return torch.from_numpy(np.asarray(x, np.float32)).to(torch.bfloat16).float().numpy()


def bty(a):
    return f"bf16[{','.join(str(d) for d in np.shape(a))}]" if np.asarray(a).dtype == F32 else ty(a.dtype, a.shape)


def bf16_single(name, op, args, want, attrs="", out=BF16, out_shape=None):
    """One op on bf16 values: f32 inputs are converted to bf16 (others pass as they are); a bf16
    result is converted back to f32."""
    want = N(want)
    shape = out_shape if out_shape is not None else want.shape
    sig = ", ".join(f"%a{i}: {ty(a.dtype, a.shape)}" for i, a in enumerate(args))
    body, operands = [], []
    for i, a in enumerate(args):
        if a.dtype == F32:
            body.append(f"%c{i} = convert(%a{i}) {{dtype=bf16}} : {bty(a)}")
            operands.append(f"%c{i}")
        else:
            operands.append(f"%a{i}")
    attr = f" {{{attrs}}}" if attrs else ""
    dims = ",".join(str(d) for d in shape)
    if out == BF16:
        body.append(f"%r = {op}({', '.join(operands)}){attr} : bf16[{dims}]")
        body.append(f"%o = convert(%r) {{dtype=f32}} : f32[{dims}]")
        ret = f"f32[{dims}]"
    else:
        body.append(f"%o = {op}({', '.join(operands)}){attr} : {ty(out, shape)}")
        ret = ty(out, shape)
    text = "\n".join([f"func @main({sig}) -> ({ret}) {{"] + [f"  {b}" for b in body] + ["  return %o", "}", ""])
    return Case(name, text, list(args), [want], [out])


def bf16_cases(rng):
    cs = []
    for op, (fn, kind) in UNARY_FLOAT.items():
        x = bf(domain(rng, kind, (3, 5), F32))
        cs.append(bf16_single(f"{op}_bf16", op, [x], fn(T(x))))
    s = bf(SPECIALS)
    with np.errstate(all="ignore"):
        for op, (fn, _) in UNARY_FLOAT.items():
            c = bf16_single(f"{op}_bf16_specials", op, [s], fn(T(s)))
            cs.append(with_torch_note(c, TORCH_INSTEAD[op](T(s))) if op in TORCH_INSTEAD else c)
        a, b = np.repeat(s, len(s)), np.tile(s, len(s))
        for op, fn in BINARY_FLOAT.items():
            c = bf16_single(f"{op}_bf16_specials", op, [a, b], fn(T(a), T(b)))
            cs.append(with_torch_note(c, TORCH_INSTEAD[op](T(a), T(b))) if op in TORCH_INSTEAD else c)
    for op, fn in BINARY_FLOAT.items():
        a = bf(domain(rng, "pos" if op == "pow" else "any", (4, 6), F32))
        b = bf(rng.normal(0, 2, (4, 6)))
        cs.append(bf16_single(f"{op}_bf16", op, [a, b], fn(T(a), T(b))))
    fa, fb = bf(rng.normal(0, 1, (3, 6))), bf(rng.normal(0, 1, (3, 6)))
    fb[0, :3] = fa[0, :3]
    fa[1, 0] = np.nan
    for d, fn in {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
                  "ge": torch.ge}.items():
        cs.append(bf16_single(f"compare_{d}_bf16", "compare", [fa, fb], fn(T(fa), T(fb)), f"dir={d}", BOOL))
    p = rng.random((3, 6)) < 0.5
    cs.append(bf16_single("select_bf16", "select", [p, fa, fb], torch.where(T(p), T(fa), T(fb))))
    # Reductions, argmax, cumsum.
    x = bf(rng.normal(0, 1, (3, 4, 5)))
    xp = bf(rng.uniform(0.5, 1.5, (3, 4, 5)))
    for axes in [[0], [1, 2], [0, 1, 2]]:
        tag = "".join(map(str, axes))
        ax = tuple(axes)
        attrs = f"axes={lz_list(axes)}"
        cs.append(bf16_single(f"reduce_sum_bf16_{tag}", "reduce_sum", [x], T(x).sum(dim=ax), attrs))
        cs.append(bf16_single(f"reduce_max_bf16_{tag}", "reduce_max", [x], T(x).amax(dim=ax), attrs))
        cs.append(bf16_single(f"reduce_min_bf16_{tag}", "reduce_min", [x], T(x).amin(dim=ax), attrs))
        cs.append(bf16_single(f"reduce_prod_bf16_{tag}", "reduce_prod", [xp], np.prod(xp.astype(np.float64), axis=ax),
                              attrs))
    ties = bf(rng.integers(0, 3, (4, 6)))
    cs.append(bf16_single("argmax_bf16", "argmax", [ties], T(ties).argmax(dim=1), "axis=1, index_dtype=i64", I64))
    cs.append(bf16_single("cumsum_bf16", "cumsum", [x], T(x).cumsum(2), "axis=2, reverse=false"))
    # dot_general, layout and indexing.
    a, b = bf(rng.normal(0, 1, (4, 8))), bf(rng.normal(0, 1, (8, 3)))
    cs.append(bf16_single("dot_matmul_bf16", "dot_general", [a, b], T(a) @ T(b),
                          "lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]"))
    a, b = bf(rng.normal(0, 1, (2, 3, 4))), bf(rng.normal(0, 1, (2, 4, 5)))
    cs.append(bf16_single("dot_batched_bf16", "dot_general", [a, b], torch.bmm(T(a), T(b)),
                          "lhs_batch=[0], rhs_batch=[0], lhs_contracting=[2], rhs_contracting=[1]"))
    y = bf(rng.normal(0, 1, (2, 3, 4)))
    cs.append(bf16_single("transpose_bf16", "transpose", [y], T(y).permute(2, 0, 1), "permutation=[2, 0, 1]"))
    cs.append(bf16_single("reshape_bf16", "reshape", [y], T(y).reshape(4, 6), "new_sizes=[4,6]"))
    cs.append(bf16_single("broadcast_in_dim_bf16", "broadcast_in_dim", [y[0, :, :1]], T(y[0, :, :1]).expand(3, 5),
                          "shape=[3,5], broadcast_dimensions=[0, 1]"))
    cs.append(bf16_single("slice_bf16", "slice", [y], T(y)[:, 1:3, ::2],
                          "start_indices=[0, 1, 0], limit_indices=[2, 3, 4], strides=[1, 1, 2]"))
    c1, c2 = bf(rng.normal(0, 1, (2, 3))), bf(rng.normal(0, 1, (2, 1)))
    cs.append(bf16_single("concatenate_bf16", "concatenate", [c1, c2], torch.cat([T(c1), T(c2)], 1), "dimension=1"))
    v = bf(np.array(-7.5, F32))
    want = torch.full((4, 5), -7.5, dtype=torch.float64)
    want[1:3, 1:4] = T(c1)
    cs.append(bf16_single("pad_bf16", "pad", [c1, v], want,
                          "edge_padding_low=[1, 1], edge_padding_high=[1, 1], interior_padding=[0, 0]"))
    table = bf(rng.normal(0, 1, (6, 4)))
    ids = np.array([[3], [0], [5], [3]], I32)
    cs.append(bf16_single("gather_embedding_bf16", "gather", [table, ids], T(table)[T(ids[:, 0]).long()],
                          "offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], slice_sizes=[1, 4], "
                          "mode=fill"))
    # Distinct rows: with duplicates, each add rounds to bf16 (lax's order), the reference once.
    rows = np.array([[3], [0], [5], [1]], I32)
    upd = bf(rng.normal(0, 1, (4, 4)))
    cs.append(bf16_single("scatter_add_bf16", "scatter_add", [table, rows, upd],
                          torch.index_add(T(table), 0, T(rows[:, 0]).long(), T(upd)),
                          "update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0], "
                          "mode=fill"))
    # Conversions: to bf16 rounds to nearest even (ties between two bf16 neighbours), from bf16
    # is exact; to integers truncates.
    halfway = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 256 + 1, 3.14159, 1e-40], F32)
    cs.append(Case("convert_f32_to_bf16_ties", "func @main(%a: f32[6]) -> (f32[6]) {\n"
                   "  %b = convert(%a) {dtype=bf16} : bf16[6]\n  %o = convert(%b) {dtype=f32} : f32[6]\n"
                   "  return %o\n}\n", [halfway], [bf(halfway)], [F32]))
    w = bf(rng.uniform(-300, 300, (8,)))
    cs.append(bf16_single("convert_bf16_to_i32", "convert", [w], T(w).to(torch.int32), "dtype=i32", I32))
    cs.append(bf16_single("convert_bf16_to_f16", "convert", [w], T(w), "dtype=f16", F16))
    big = np.array([1 << 20, (1 << 20) + 1, 12345, -7, 0], I32)
    cs.append(bf16_single("convert_i32_to_bf16", "convert", [big], T(big).to(torch.float64), "dtype=bf16"))
    return cs


def f16_cases(rng):
    """f16 for what torch_agreement_cases leaves out (it has neg, exp, tanh, sqrt, logistic, add,
    mul, div)."""
    cs = []
    have = {"neg", "exp", "tanh", "sqrt", "logistic"}
    for op, (fn, kind) in UNARY_FLOAT.items():
        if op not in have:
            x = domain(rng, kind, (3, 5), F16)
            cs.append(single(f"{op}_f16", op, [x], fn(T(x))))
    for op in ["sub", "max", "min", "pow"]:
        a = domain(rng, "pos" if op == "pow" else "any", (3, 5), F16)
        b = rng.normal(0, 2, (3, 5)).astype(F16)
        cs.append(single(f"{op}_f16", op, [a, b], BINARY_FLOAT[op](T(a), T(b))))
    s = np.array(SPECIALS).astype(F16)  # 1e30 and 100 overflow to inf
    with np.errstate(all="ignore"):
        for op in ["exp", "log", "tanh", "floor", "round", "abs", "relu"]:
            fn = UNARY_FLOAT[op][0]
            cs.append(single(f"{op}_f16_specials", op, [s], fn(T(s))))
        a, b = np.repeat(s, len(s)), np.tile(s, len(s))
        for op in ["add", "mul", "div", "max"]:
            c = single(f"{op}_f16_specials", op, [a, b], BINARY_FLOAT[op](T(a), T(b)))
            cs.append(with_torch_note(c, TORCH_INSTEAD[op](T(a), T(b))) if op in TORCH_INSTEAD else c)
    fa, fb = rng.normal(0, 1, (2, 5)).astype(F16), rng.normal(0, 1, (2, 5)).astype(F16)
    fb[0, :2] = fa[0, :2]
    for d, fn in {"eq": torch.eq, "lt": torch.lt, "ge": torch.ge}.items():
        cs.append(single(f"compare_{d}_f16", "compare", [fa, fb], fn(T(fa), T(fb)), f"dir={d}", BOOL))
    p = rng.random((2, 5)) < 0.5
    cs.append(single("select_f16", "select", [p, fa, fb], torch.where(T(p), T(fa), T(fb)), out_dtype=F16))
    x = rng.normal(0, 1, (3, 4, 5)).astype(F16)
    for axes in [[1], [0, 2]]:
        tag, ax, attrs = "".join(map(str, axes)), tuple(axes), f"axes={lz_list(axes)}"
        cs.append(single(f"reduce_sum_f16_{tag}", "reduce_sum", [x], T(x).sum(dim=ax), attrs))
        cs.append(single(f"reduce_max_f16_{tag}", "reduce_max", [x], T(x).amax(dim=ax), attrs))
        cs.append(single(f"reduce_min_f16_{tag}", "reduce_min", [x], T(x).amin(dim=ax), attrs))
    xp = rng.uniform(0.5, 1.5, (3, 4)).astype(F16)
    cs.append(single("reduce_prod_f16", "reduce_prod", [xp], T(xp).prod(1), "axes=[1]"))
    cs.append(single("argmax_f16", "argmax", [x[0]], T(x[0]).argmax(dim=1), "axis=1, index_dtype=i32", I32))
    cs.append(single("cumsum_f16", "cumsum", [x], T(x).flip(1).cumsum(1).flip(1), "axis=1, reverse=true"))
    a, b = rng.normal(0, 1, (3, 6)).astype(F16), rng.normal(0, 1, (6, 2)).astype(F16)
    cs.append(single("dot_matmul_f16", "dot_general", [a, b], T(a) @ T(b),
                     "lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]"))
    cs.append(single("transpose_f16", "transpose", [x], T(x).permute(1, 2, 0), "permutation=[1, 2, 0]"))
    cs.append(single("concatenate_f16", "concatenate", [a, a[:1]], torch.cat([T(a), T(a[:1])], 0), "dimension=0"))
    ids = np.array([[2], [0]], I64)
    cs.append(single("gather_f16", "gather", [a, ids], T(a)[T(ids[:, 0])],
                     "offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], slice_sizes=[1, 6], mode=fill",
                     F16))
    cs.append(single("convert_f16_to_i32", "convert", [a * 10], T(a * 10).to(torch.int32), "dtype=i32", I32))
    return cs


def empty_and_size1_cases(rng):
    cs = []
    for shape, tag in [((0, 3), "empty"), ((1, 1), "size1"), ((), "scalar")]:
        x = rng.normal(0, 1, shape).astype(F32)
        y = rng.normal(0, 1, shape).astype(F32)
        for op in ["exp", "neg", "floor", "sign", "relu"]:
            cs.append(single(f"{op}_f32_{tag}", op, [x], UNARY_FLOAT[op][0](T(x))))
        for op in ["add", "div"]:
            cs.append(single(f"{op}_f32_{tag}", op, [x, y], BINARY_FLOAT[op](T(x), T(y))))
        cs.append(single(f"max_f32_{tag}", "max", [x, y], lax_max(T(x), T(y))))
        cs.append(single(f"compare_lt_f32_{tag}", "compare", [x, y], T(x) < T(y), "dir=lt", BOOL))
        cs.append(single(f"select_f32_{tag}", "select", [x > 0, x, y], torch.where(T(x > 0), T(x), T(y)), out_dtype=F32))
        cs.append(single(f"convert_f32_to_i32_{tag}", "convert", [x * 10], T(x * 10).to(torch.int32), "dtype=i32", I32))
        xi = rng.integers(-9, 9, shape).astype(I32)
        cs.append(single(f"mul_i32_{tag}", "mul", [xi, xi], T(xi) * T(xi)))
    # Reductions over empty axes give the identity: 0, 1, -inf/+inf (the extreme integers), and
    # for bool any = false, all = true. torch raises for max/min: NumPy with `initial` instead.
    e = np.zeros((0, 3), F32)
    ei = np.zeros((2, 0), I64)
    eb = np.zeros((2, 0), BOOL)
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for name, op, x, axes, want in [
            ("reduce_sum_f32_empty_axis", "reduce_sum", e, [0], np.zeros(3)),
            ("reduce_prod_f32_empty_axis", "reduce_prod", e, [0], np.ones(3)),
            ("reduce_max_f32_empty_axis", "reduce_max", e, [0], np.full(3, -np.inf)),
            ("reduce_min_f32_empty_axis", "reduce_min", e, [0], np.full(3, np.inf)),
            ("reduce_sum_f32_keep_empty", "reduce_sum", e, [1], np.zeros(0)),
            ("reduce_sum_i64_empty_axis", "reduce_sum", ei, [1], np.zeros(2, I64)),
            ("reduce_prod_i64_empty_axis", "reduce_prod", ei, [1], np.ones(2, I64)),
            ("reduce_max_i64_empty_axis", "reduce_max", ei, [1], np.full(2, small, I64)),
            ("reduce_min_i64_empty_axis", "reduce_min", ei, [1], np.full(2, big, I64)),
            ("reduce_max_bool_empty_axis", "reduce_max", eb, [1], np.zeros(2, BOOL)),
            ("reduce_min_bool_empty_axis", "reduce_min", eb, [1], np.ones(2, BOOL)),
            ("reduce_sum_f32_all_empty", "reduce_sum", e, [0, 1], np.zeros(())),
    ]:
        cs.append(single(name, op, [x], want, f"axes={lz_list(axes)}"))
    one = rng.normal(0, 1, (1, 4, 1)).astype(F32)
    for op, fn in [("reduce_sum", lambda t: t.sum(dim=(0, 2))), ("reduce_max", lambda t: t.amax(dim=(0, 2))),
                   ("reduce_prod", lambda t: t.prod(0).prod(1))]:
        cs.append(single(f"{op}_f32_size1_axes", op, [one], fn(T(one)), "axes=[0, 2]"))
    cs.append(single("argmax_f32_size1_axis", "argmax", [one[:, :, 0]], torch.zeros(4, dtype=torch.int64),
                     "axis=0, index_dtype=i64", I64))
    cs.append(single("argmax_f32_empty_batch", "argmax", [e], torch.zeros(0, dtype=torch.int64),
                     "axis=1, index_dtype=i64", I64))
    for axis in [0, 1]:
        cs.append(single(f"cumsum_f32_empty_axis{axis}", "cumsum", [e], T(e).cumsum(axis), f"axis={axis}, reverse=false"))
    cs.append(single("cumsum_f32_size1", "cumsum", [one], T(one).cumsum(0), "axis=0, reverse=true"))
    a, b = np.zeros((0, 2, 3), F32), np.zeros((0, 3, 4), F32)
    cs.append(single("dot_empty_batch", "dot_general", [a, b], torch.bmm(T(a), T(b)),
                     "lhs_batch=[0], rhs_batch=[0], lhs_contracting=[2], rhs_contracting=[1]"))
    a1, b1 = rng.normal(0, 1, (1, 1)).astype(F32), rng.normal(0, 1, (1, 1)).astype(F32)
    cs.append(single("dot_size1", "dot_general", [a1, b1], T(a1) @ T(b1),
                     "lhs_batch=[], rhs_batch=[], lhs_contracting=[1], rhs_contracting=[0]"))
    z = np.zeros((0, 2, 3), F32)
    cs.append(single("transpose_empty", "transpose", [z], T(z).permute(2, 0, 1), "permutation=[2, 0, 1]"))
    cs.append(single("reshape_empty_3d", "reshape", [z], T(z).reshape(3, 0, 2), "new_sizes=[3,0,2]"))
    cs.append(single("broadcast_in_dim_to_empty", "broadcast_in_dim", [np.ones(1, F32)], torch.ones(0, 3),
                     "shape=[0,3], broadcast_dimensions=[1]"))
    r = rng.normal(0, 1, (2, 3)).astype(F32)
    cs.append(single("concatenate_with_empty", "concatenate", [r, np.zeros((0, 3), F32), r[:1]],
                     torch.cat([T(r), T(r[:1])], 0), "dimension=0"))
    table = rng.normal(0, 1, (5, 4)).astype(F32)
    cs.append(single("gather_no_indices", "gather", [table, np.zeros((0, 1), I32)], torch.zeros(0, 4),
                     "offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], slice_sizes=[1, 4], mode=fill",
                     F32))
    cs.append(single("scatter_add_no_updates", "scatter_add", [table, np.zeros((0, 1), I32), np.zeros((0, 4), F32)],
                     T(table), "update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0], "
                     "mode=fill", F32))
    return cs


def integer_reduction_cases(rng):
    cs = []
    x64 = rng.integers(-50, 50, (3, 4, 5)).astype(I64)
    x64.flat[0] = (1 << 40) + 3  # beyond f32 and i32
    small = rng.integers(-3, 4, (3, 4, 5)).astype(I64)
    xu = rng.integers(0, 256, (3, 4, 5)).astype(U8)
    x32 = rng.integers(-50, 50, (3, 4, 5)).astype(I32)
    for axes in [[0], [1, 2], [0, 1, 2], []]:
        ax = tuple(axes)
        tag = "".join(map(str, axes)) or "none"
        attrs = f"axes={lz_list(axes)}"

        def np_red(fn, a, dtype=None):
            return a if not ax else fn(a, axis=ax, **({"dtype": dtype} if dtype else {}))

        cs.append(single(f"reduce_sum_i64_{tag}", "reduce_sum", [x64], np_red(np.sum, x64), attrs))
        cs.append(single(f"reduce_max_i64_{tag}", "reduce_max", [x64], np_red(np.max, x64), attrs))
        cs.append(single(f"reduce_min_i64_{tag}", "reduce_min", [x64], np_red(np.min, x64), attrs))
        cs.append(single(f"reduce_prod_i64_{tag}", "reduce_prod", [small], np_red(np.prod, small), attrs))
        # u8 sums and products wrap modulo 256, as integer arithmetic does.
        cs.append(single(f"reduce_sum_u8_{tag}", "reduce_sum", [xu], np_red(np.sum, xu, U8), attrs))
        cs.append(single(f"reduce_prod_u8_{tag}", "reduce_prod", [xu], np_red(np.prod, xu, U8), attrs))
        cs.append(single(f"reduce_max_u8_{tag}", "reduce_max", [xu], np_red(np.max, xu), attrs))
        cs.append(single(f"reduce_min_i32_{tag}", "reduce_min", [x32], np_red(np.min, x32), attrs))
        cs.append(single(f"reduce_prod_i32_{tag}", "reduce_prod", [x32 % 3 - 1], np_red(np.prod, x32 % 3 - 1), attrs))
    wrap = np.full((2, 40), 1 << 10, I64)
    cs.append(single("reduce_prod_i64_wraps", "reduce_prod", [wrap], np.prod(wrap, axis=1), "axes=[1]"))
    for axis in [0, 2]:
        for rev in [False, True]:
            def cs_ref(a, dtype=None):
                t = np.flip(a, axis) if rev else a
                r = np.cumsum(t, axis=axis, dtype=dtype or a.dtype)
                return np.flip(r, axis) if rev else r
            attrs = f"axis={axis}, reverse={'true' if rev else 'false'}"
            tag = f"axis{axis}{'_reverse' if rev else ''}"
            cs.append(single(f"cumsum_i64_{tag}", "cumsum", [x64], cs_ref(x64), attrs))
            cs.append(single(f"cumsum_u8_{tag}", "cumsum", [xu], cs_ref(xu, U8), attrs))
    ties = rng.integers(0, 3, (4, 6)).astype(I64)
    for idt in [I32, I64]:
        cs.append(single(f"argmax_i64_{np.dtype(idt).name}", "argmax", [ties], np.argmax(ties, axis=1).astype(idt),
                         f"axis=1, index_dtype={'i32' if idt == I32 else 'i64'}", idt))
    cs.append(single("argmax_u8", "argmax", [xu[0]], np.argmax(xu[0], axis=0), "axis=0, index_dtype=i64", I64))
    # bool: argmax is the first true (0 for a row without one); any/all are reduce_max/min.
    b = rng.random((5, 7)) < 0.3
    b[2] = False
    cs.append(single("argmax_bool", "argmax", [b], np.argmax(b, axis=1), "axis=1, index_dtype=i64", I64))
    cs.append(single("reduce_max_bool_rows", "reduce_max", [b], b.any(axis=1), "axes=[1]"))
    cs.append(single("reduce_min_bool_cols", "reduce_min", [b], b.all(axis=0), "axes=[0]"))
    return cs


def dtype_cases(rng):
    with np.errstate(all="ignore"):
        return bf16_cases(rng) + f16_cases(rng) + empty_and_size1_cases(rng) + integer_reduction_cases(rng)
