"""Cases of run.py for reading values, in-place ops, reductions, shape ops, composites,
factories, random numbers, autograd bookkeeping and sync (see cases.py for the format)."""
import numpy as np
import torch
import torch.nn.functional as F

from cases import ALL, FLOATS, INTS, SPECIALS, TORCH, TORCH_DTYPE, case, make, to_dtype


def slice_ref(x, dim, start, end, step):
    idx = [slice(None)] * x.dim()
    idx[dim] = slice(start, end, step)
    return x[tuple(idx)]


def autograd_flags(t, a):
    """The steps of ops_table_more.cc's autograd_flags, in torch."""
    x = t[0].detach().float()
    f = [x.requires_grad, x.is_leaf]
    x.requires_grad_()
    y = x * x
    f += [x.requires_grad, x.is_leaf, y.requires_grad, y.is_leaf]
    with torch.no_grad():
        z = x * x
        f += [z.requires_grad, z.is_leaf]
        with torch.enable_grad():
            w = x * x
            f += [w.requires_grad, w.is_leaf]
    y.sum().backward()
    f.append(x.grad is not None)
    x.grad = None
    f.append(x.grad is not None)
    return torch.tensor(f)


def set_grad(t, a):
    x = t[0].detach().clone().requires_grad_()
    x.grad = t[1].clone()
    (x * x).sum().backward()
    return x.grad


def dims_ref(f):
    """sum/mean/...: an empty dims list reduces everything (torch needs dim omitted for that)."""
    return lambda t, a: f(t[0], dim=tuple(a["dims"]), keepdim=a.get("keepdim", False)) if a["dims"] else \
        (f(t[0], dim=tuple(range(t[0].dim())), keepdim=a.get("keepdim", False)) if t[0].dim() else f(t[0]))


TORCH.update({
    "Tensor::reshape": lambda t, a: t[0].reshape(a["shape"]),
    "Tensor::view": lambda t, a: t[0].view(a["shape"]),
    "Tensor::flatten": lambda t, a: t[0].flatten(a["start_dim"], a["end_dim"]),
    "Tensor::transpose": lambda t, a: t[0].transpose(a["dim0"], a["dim1"]),
    "Tensor::permute": lambda t, a: t[0].permute(a["dims"]),
    "Tensor::t": lambda t, a: t[0].t(),
    "Tensor::unsqueeze": lambda t, a: t[0].unsqueeze(a["dim"]),
    "Tensor::squeeze": lambda t, a: t[0].squeeze(a["dim"]),
    "Tensor::expand": lambda t, a: t[0].expand(a["shape"]),
    "Tensor::slice": lambda t, a: slice_ref(t[0], a["dim"], a["start"], a["end"], a["step"]),
    "Tensor::narrow": lambda t, a: t[0].narrow(a["dim"], a["start"], a["length"]),
    "Tensor::select": lambda t, a: t[0].select(a["dim"], a["index"]),
    "Tensor::operator[]": lambda t, a: t[0][a["index"]],
    "Tensor::contiguous": lambda t, a: t[0].contiguous(),
    "Tensor::clone": lambda t, a: t[0].clone(),
    "Tensor::detach": lambda t, a: t[0].detach(),
    "Tensor::sum": dims_ref(torch.sum),
    "Tensor::mean": dims_ref(torch.mean),
    "Tensor::max": lambda t, a: torch.max(t[0], a["dim"], a.get("keepdim", False)).values,
    "Tensor::amax": dims_ref(torch.amax),
    "Tensor::argmax": lambda t, a: torch.argmax(t[0], a["dim"], a.get("keepdim", False)),
    "zeros": lambda t, a: torch.zeros(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "ones": lambda t, a: torch.ones(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "full": lambda t, a: torch.full(a["shape"], a["value"], dtype=TORCH_DTYPE[a["dtype"]]),
    "zeros_like": lambda t, a: torch.zeros_like(t[0]),
    "ones_like": lambda t, a: torch.ones_like(t[0]),
    "scalar_tensor": lambda t, a: torch.scalar_tensor(a["value"], dtype=TORCH_DTYPE[a["dtype"]]),
    "arange": lambda t, a: torch.arange(a["end"], dtype=TORCH_DTYPE[a["dtype"]]),
    "arange_range": lambda t, a: torch.arange(a["start"], a["end"], a["step"], dtype=TORCH_DTYPE[a["dtype"]]),
    "from_vector": lambda t, a: t[0].clone(),
    "from_vector_f32": lambda t, a: t[0].flatten().float(),
    "randn": lambda t, a: torch.randn(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "rand": lambda t, a: torch.rand(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "randint": lambda t, a: torch.randint(a["low"], a["high"], a["shape"]),
    "manual_seed": lambda t, a: torch.rand([2] + a["shape"]),
    "default_generator": lambda t, a: torch.rand([2] + a["shape"]),
    "Generator::initial_seed": lambda t, a: torch.tensor([torch.Generator().manual_seed(a["seed"]).initial_seed()]),
    "Generator::normal": lambda t, a: torch.randn(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "Generator::uniform": lambda t, a: torch.rand(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "Generator::randint": lambda t, a: torch.randint(a["low"], a["high"], a["shape"]),
    "Generator::bits": lambda t, a: torch.zeros(a["shape"], dtype=TORCH_DTYPE[a["dtype"]]),
    "Generator::manual_seed": lambda t, a: torch.rand([2] + a["shape"]),
    "softmax": lambda t, a: torch.softmax(t[0], a["dim"]),
    "log_softmax": lambda t, a: torch.log_softmax(t[0], a["dim"]),
    "logsumexp": lambda t, a: torch.logsumexp(t[0], a["dims"] or list(range(t[0].dim())), a.get("keepdim", False))
    if t[0].dim() else torch.logsumexp(t[0], 0),
    "cross_entropy": lambda t, a: F.cross_entropy(t[0], t[1]),
    "embedding": lambda t, a: F.embedding(t[1], t[0]),
    "sum": dims_ref(torch.sum), "mean": dims_ref(torch.mean), "amax": dims_ref(torch.amax),
    "amin": dims_ref(torch.amin),
    "prod": lambda t, a: torch.prod(t[0], a["dims"][0], a.get("keepdim", False)) if a["dims"] else
    (torch.prod(t[0].reshape(-1), 0).reshape([1] * t[0].dim() if a.get("keepdim") else []) if t[0].dim()
     else torch.prod(t[0])),
    "max": lambda t, a: torch.max(t[0], a["dim"], a.get("keepdim", False)).values,
    "argmax": lambda t, a: torch.argmax(t[0], a["dim"], a.get("keepdim", False)),
    "cumsum": lambda t, a: torch.cumsum(t[0], a["dim"]),
    "max_all": lambda t, a: torch.max(t[0]),
    "min_all": lambda t, a: torch.min(t[0]),
    "Tensor::max_all": lambda t, a: t[0].max(),
    "Tensor::min_all": lambda t, a: t[0].min(),
    "min": lambda t, a: torch.min(t[0], a["dim"], a.get("keepdim", False)).values,
    "argmin": lambda t, a: torch.argmin(t[0], a["dim"], a.get("keepdim", False)),
    "all": lambda t, a: torch.all(t[0]),
    "any": lambda t, a: torch.any(t[0]),
    "all_dim": lambda t, a: torch.all(t[0], a["dim"], a.get("keepdim", False)),
    "any_dim": lambda t, a: torch.any(t[0], a["dim"], a.get("keepdim", False)),
    "cumprod": lambda t, a: torch.cumprod(t[0], a["dim"]),
    "cummax": lambda t, a: torch.cummax(t[0], a["dim"]).values,
    "cummax_indices": lambda t, a: torch.cummax(t[0], a["dim"]).indices,
    "cummin": lambda t, a: torch.cummin(t[0], a["dim"]).values,
    "cummin_indices": lambda t, a: torch.cummin(t[0], a["dim"]).indices,
    "sort": lambda t, a: torch.sort(t[0], dim=a["dim"], descending=a["descending"], stable=True).values,
    "sort_indices": lambda t, a: torch.sort(t[0], dim=a["dim"], descending=a["descending"], stable=True).indices,
    "argsort": lambda t, a: torch.sort(t[0], dim=a["dim"], descending=a["descending"], stable=True).indices,
    "topk": lambda t, a: torch.topk(t[0], a["k"], a["dim"], a["largest"]).values,
    "topk_indices": lambda t, a: torch.topk(t[0], a["k"], a["dim"], a["largest"]).indices,
    "flip": lambda t, a: torch.flip(t[0], a["dims"]),
    "reshape": lambda t, a: torch.reshape(t[0], a["shape"]),
    "transpose": lambda t, a: torch.transpose(t[0], a["dim0"], a["dim1"]),
    "permute": lambda t, a: torch.permute(t[0], a["dims"]),
    "unsqueeze": lambda t, a: torch.unsqueeze(t[0], a["dim"]),
    "squeeze": lambda t, a: torch.squeeze(t[0], a["dim"]),
    "expand": lambda t, a: t[0].expand(a["shape"]),
    "broadcast_to": lambda t, a: torch.broadcast_to(t[0], a["shape"]),
    "slice": lambda t, a: slice_ref(t[0], a["dim"], a["start"], a["end"], a["step"]),
    "narrow": lambda t, a: torch.narrow(t[0], a["dim"], a["start"], a["length"]),
    "select": lambda t, a: torch.select(t[0], a["dim"], a["index"]),
    "cat": lambda t, a: torch.cat(t, a["dim"]),
    "stack": lambda t, a: torch.stack(t, a["dim"]),
    "matmul": lambda t, a: torch.matmul(t[0], t[1]),
    "tril_mask": lambda t, a: torch.ones(a["n"], a["m"], dtype=torch.bool).tril(),
    "autograd_flags": autograd_flags,
    "set_grad": set_grad,
    "sync": lambda t, a: torch.exp(t[0]),
    "mark_step": lambda t, a: torch.exp(t[0]),
})


def reading_and_inplace_cases(rng):
    cs = []
    for dt in ALL:
        x = make(rng, dt, (2, 3))
        cs.append(case(f"literal_{dt}", "literal", [x]))
        cs.append(case(f"to_vector_{dt}", "to_vector", [x]))
        cs.append(case(f"item_{dt}", "item", [make(rng, dt, (1,))]))
        cs.append(case(f"bool_{dt}", "bool", [make(rng, dt, ())]))
        for to in ALL:
            v = make(rng, dt, (3, 4), "pos" if to == "u8" else "any")  # torch wraps negatives to u8
            cs.append(case(f"to_{dt}_{to}", "to", [v], {"dtype": to}))
        cs.append(case(f"from_vector_{dt}", "from_vector", [x]))
        cs.append(case(f"zeros_like_{dt}", "zeros_like", [x]))
        cs.append(case(f"ones_like_{dt}", "ones_like", [x]))
        for op in ["add_", "sub_", "mul_"]:
            cs.append(case(f"{op}_{dt}", op, [make(rng, dt, (2, 3)), make(rng, dt, (3,))]))
        cs.append(case(f"copy_{dt}_f32", "copy_", [make(rng, dt, (2, 3)), make(rng, "f32", (3,))]))
        cs.append(case(f"zero_{dt}", "zero_", [make(rng, dt, (2, 3))]))
        cs.append(case(f"fill_{dt}", "fill_", [make(rng, dt, (2, 3))], {"value": 1.0 if dt == "bool" else 3.0}))
        for op, v in [("add_scalar_", 2.0), ("mul_scalar_", 3.0), ("div_scalar_", 2.0)]:
            cs.append(case(f"{op}_{dt}", op, [make(rng, dt, (2, 3))], {"value": v}))
    # (Negative floats to u8 are left out: lazax clamps them, docs/IR.md `convert`; torch wraps.)
    cs.append(case("add__f32_i32", "add_", [make(rng, "f32", (2, 3)), make(rng, "i32", (2, 3))]))
    cs.append(case("add__i32_f32", "add_", [make(rng, "i32", (2, 3)), make(rng, "f32", (2, 3))]))
    cs.append(case("add__bool_i32", "add_", [make(rng, "bool", (2, 3)), make(rng, "i32", (2, 3))]))
    cs.append(case("add__shape_change", "add_", [make(rng, "f32", (3,)), make(rng, "f32", (2, 3))]))
    cs.append(case("add_seen_by_copy", "add_seen_by_copy", [make(rng, "f32", (2, 3)), make(rng, "f32", (2, 3))]))
    cs.append(case("clone_is_a_copy", "clone_is_a_copy", [make(rng, "f32", (2, 3)), make(rng, "f32", (2, 3))]))
    cs.append(case("bool_two_elements", "bool", [make(rng, "f32", (2,))]))
    cs.append(case("item_two_elements", "item", [make(rng, "f32", (2,))]))
    cs.append(case("literal_empty", "literal", [make(rng, "f32", (0, 3))]))
    for shape in [(2, 3, 4), (), (0, 5), (1,)]:
        cs.append(case(f"sizes_{len(shape)}d_{'x'.join(map(str, shape))}", "sizes", [make(rng, "f32", shape)]))
    for d in [0, -1, 2, -3, 3]:
        cs.append(case(f"size_{d}", "size", [make(rng, "f32", (2, 3, 4))], {"dim": d}))
    cs.append(case("size_0d", "size", [make(rng, "f32", ())], {"dim": 0}))
    return cs


def reduction_cases(rng):
    cs = []
    dims_list = [[], [0], [1], [-1], [0, 2], [2, 0, 1]]
    for op in ["sum", "mean", "amax", "amin", "prod", "logsumexp", "Tensor::sum", "Tensor::mean", "Tensor::amax"]:
        if op in ("prod",):
            dl = [[], [0], [-1]]  # torch's prod takes one dim
        else:
            dl = dims_list
        for dt in ALL:
            for dims in dl:
                for keep in [False, True]:
                    if dt != "f32" and (keep or dims not in ([], [1])):
                        continue
                    name = f"{op}_{dt}_{''.join(str(d) for d in dims) or 'all'}{'_keep' if keep else ''}"
                    cs.append(case(name, op, [make(rng, dt, (2, 3, 4), "unit" if op == "prod" else "any")],
                                   {"dims": dims, "keepdim": keep}, grad=dt in ("f64", "f32", "bf16"),
                                   tol=4 if dt == "f16" or op == "logsumexp" else 1))
        for tag, shape, dims in [("0d", (), []), ("0d_dim0", (), [0]), ("empty_all", (0, 3), []),
                                 ("empty_dim0", (0, 3), [0]), ("empty_dim1", (0, 3), [1]),
                                 ("size1", (1, 1), [1]), ("dup_dims", (2, 3), [1, -1]), ("bad_dim", (2, 3), [2])]:
            if op == "prod" and len(dims) > 1:
                continue
            cs.append(case(f"{op}_{tag}", op, [make(rng, "f32", shape)], {"dims": dims}, grad=tag == "size1"))
        cs.append(case(f"{op}_f32_specials", op, [to_dtype("f32", np.array(SPECIALS).reshape(4, 5))],
                       {"dims": [1]}))
        cs.append(case(f"{op}_i64_large", op, [to_dtype("i64", rng.integers(-(1 << 40), 1 << 40, (3, 4)))],
                       {"dims": [1]}))
    # Ties: amax/max share the gradient between equal maxima, as torch.
    ties = to_dtype("f64", [[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0]])
    for op in ["amax", "amin"]:
        cs.append(case(f"{op}_ties", op, [ties], {"dims": [1]}, grad=True))
    cs.append(case("prod_zeros", "prod", [to_dtype("f64", [[0.0, 2.0, 3.0], [0.0, 0.0, 1.0], [1.5, 2.0, -1.0]])],
                   {"dims": [1]}, grad=True))
    cs.append(case("logsumexp_minus_inf", "logsumexp", [to_dtype("f32", [[-np.inf, -np.inf], [np.inf, 0.0]])],
                   {"dims": [1]}))
    for op in ["max", "argmax", "Tensor::max", "Tensor::argmax"]:
        for dt in ALL:
            for dim in ([0, 1, -1] if dt == "f32" else [1]):
                x = make(rng, dt, (3, 4))
                cs.append(case(f"{op}_{dt}_{dim}", op, [x], {"dim": dim}, grad=dt == "f64",
                               extension="argmax of bool: the first true" if dt == "bool" else ""))
        cs.append(case(f"{op}_keepdim", op, [make(rng, "f32", (3, 4))], {"dim": 1, "keepdim": True}))
        cs.append(case(f"{op}_0d", op, [make(rng, "f32", ())], {"dim": 0}))
        cs.append(case(f"{op}_empty", op, [make(rng, "f32", (0, 3))], {"dim": 0}))
        cs.append(case(f"{op}_ties", op, [to_dtype("f32", [[1, 3, 3], [2, 2, 2]])], {"dim": 1}))
        cs.append(case(f"{op}_nan", op, [to_dtype("f32", [[1, np.nan, 3], [np.nan, 2, np.nan]])], {"dim": 1}))
    for dt in ALL:
        for dim in [0, 1, -1]:
            cs.append(case(f"cumsum_{dt}_{dim}", "cumsum", [make(rng, dt, (3, 4))], {"dim": dim},
                           grad=dt in ("f64", "f32")))
    cs.append(case("cumsum_0d", "cumsum", [make(rng, "f32", ())], {"dim": 0}))
    cs.append(case("cumsum_empty", "cumsum", [make(rng, "bool", (2, 0))], {"dim": 1}))
    return cs


def sort_scan_cases(rng):
    """min/argmin, all/any, cumprod/cummax/cummin, sort/argsort/topk and flip."""
    cs = []
    nan_rows = to_dtype("f32", [[1, np.nan, 3, -np.inf], [np.nan, 2, np.nan, 0.0], [-0.0, 0.0, 1, 1]])
    ties = to_dtype("f64", [[1, 3, 3, 2, 1], [2, 2, 2, 2, 2], [5, -1, 5, -1, 0]])
    for op in ["min", "argmin"]:
        for dt in ALL:
            for dim in ([0, 1, -1] if dt == "f32" else [1]):
                cs.append(case(f"{op}_{dt}_{dim}", op, [make(rng, dt, (3, 4))], {"dim": dim}, grad=dt == "f64",
                               extension="argmin of bool: the first false" if dt == "bool" and op == "argmin"
                               else ""))
        cs.append(case(f"{op}_keepdim", op, [make(rng, "f32", (3, 4))], {"dim": 0, "keepdim": True}))
        cs.append(case(f"{op}_0d", op, [make(rng, "f32", ())], {"dim": -1}))
        cs.append(case(f"{op}_empty", op, [make(rng, "f32", (0, 3))], {"dim": 0}))
        cs.append(case(f"{op}_bad_dim", op, [make(rng, "f32", (2, 3))], {"dim": 2}))
        cs.append(case(f"{op}_ties", op, [ties], {"dim": 1}))  # torch picks one of the ties
        cs.append(case(f"{op}_nan", op, [nan_rows], {"dim": 1}))
    for op in ["max_all", "min_all", "Tensor::max_all", "Tensor::min_all"]:
        for dt in ALL:
            cs.append(case(f"{op}_{dt}", op, [make(rng, dt, (3, 4))], grad=dt == "f64"))
        cs.append(case(f"{op}_0d", op, [make(rng, "f64", ())], grad=True))
        cs.append(case(f"{op}_nan", op, [nan_rows]))
        cs.append(case(f"{op}_ties", op, [ties], grad=True))
        cs.append(case(f"{op}_empty", op, [make(rng, "f32", (0, 3))]))
    for op in ["all", "any"]:
        for dt in ALL:
            x = make(rng, dt, (3, 4))
            if dt != "bool":  # some zeros, and one row without any
                x = (dt, np.where(np.arange(12).reshape(3, 4) % 3 == 0, 0, x[1]).astype(x[1].dtype))
            cs.append(case(f"{op}_{dt}", op, [x]))
            cs.append(case(f"{op}_dim_{dt}", f"{op}_dim", [x], {"dim": 1}))
        ones_row = to_dtype("bool", [[True, True, True], [False, True, False], [False, False, False]])
        for dim in [0, -1]:
            cs.append(case(f"{op}_dim_rows_{dim}", f"{op}_dim", [ones_row], {"dim": dim, "keepdim": dim == 0}))
        cs.append(case(f"{op}_specials", op, [to_dtype("f32", [np.nan, -0.0, 0.0])]))
        cs.append(case(f"{op}_dim_specials", f"{op}_dim", [to_dtype("f32", [[np.nan, 1.0], [-0.0, 0.0]])],
                       {"dim": 1}))
        cs.append(case(f"{op}_0d", op, [to_dtype("f32", 0.0)]))
        cs.append(case(f"{op}_dim_0d", f"{op}_dim", [to_dtype("i32", 3)], {"dim": 0}))
        cs.append(case(f"{op}_empty", op, [make(rng, "f32", (0, 3))]))
        cs.append(case(f"{op}_dim_empty", f"{op}_dim", [make(rng, "bool", (0, 3))], {"dim": 0}))
        cs.append(case(f"{op}_dim_bad", f"{op}_dim", [make(rng, "bool", (2, 3))], {"dim": 2}))
    for dt in ALL:
        for dim in [0, 1, -1]:
            cs.append(case(f"cumprod_{dt}_{dim}", "cumprod", [make(rng, dt, (3, 4), "unit")], {"dim": dim},
                           grad=dt in ("f64", "f32")))
    zeros = to_dtype("f64", [[2, 0, 3, 4], [0, 5, 2, 1], [3, 0, 2, 0], [1, 2, 3, 4]])
    for dim in [0, 1]:
        cs.append(case(f"cumprod_zeros_{dim}", "cumprod", [zeros], {"dim": dim}, grad=True))
    cs.append(case("cumprod_specials", "cumprod", [to_dtype("f32", [[2, np.nan, 1], [-1, 0, np.inf]])],
                   {"dim": 1}))
    cs.append(case("cumprod_i32_wraps", "cumprod", [to_dtype("i32", [65536, 65536, 3])], {"dim": 0}))
    cs.append(case("cumprod_0d", "cumprod", [make(rng, "f64", ())], {"dim": 0}, grad=True))
    cs.append(case("cumprod_empty", "cumprod", [make(rng, "f32", (2, 0))], {"dim": 1}))
    cs.append(case("cumprod_bad_dim", "cumprod", [make(rng, "f32", (2, 3))], {"dim": -3}))
    for op in ["cummax", "cummin"]:
        for kind in [op, f"{op}_indices"]:
            for dt in ALL:
                for dim in ([0, 1, -1] if dt == "f32" else [1]):
                    cs.append(case(f"{kind}_{dt}_{dim}", kind, [make(rng, dt, (3, 5))], {"dim": dim},
                                   grad=dt in ("f64", "f32") and kind == op))
            cs.append(case(f"{kind}_ties", kind, [ties], {"dim": 1}, grad=kind == op))
            cs.append(case(f"{kind}_nan", kind, [nan_rows], {"dim": 1}))
            cs.append(case(f"{kind}_0d", kind, [make(rng, "f64", ())], {"dim": 0}, grad=kind == op))
            cs.append(case(f"{kind}_empty", kind, [make(rng, "f32", (0, 3))], {"dim": 0}))
            cs.append(case(f"{kind}_bad_dim", kind, [make(rng, "f32", (2, 3))], {"dim": 2}))
    for kind in ["sort", "sort_indices", "argsort"]:
        for dt in ALL:
            for dim, desc in ([(0, False), (1, True), (-1, False)] if dt == "f32" else [(1, False), (0, True)]):
                cs.append(case(f"{kind}_{dt}_{dim}_{desc}", kind, [make(rng, dt, (4, 5))],
                               {"dim": dim, "descending": desc}, grad=dt in ("f64", "f32") and kind == "sort"))
        for desc in [False, True]:
            cs.append(case(f"{kind}_ties_{desc}", kind, [ties], {"dim": 1, "descending": desc},
                           grad=kind == "sort"))
            cs.append(case(f"{kind}_nan_{desc}", kind, [nan_rows], {"dim": 1, "descending": desc}))
            cs.append(case(f"{kind}_specials_{desc}", kind, [to_dtype("f32", SPECIALS)],
                           {"dim": 0, "descending": desc}))
        cs.append(case(f"{kind}_0d", kind, [make(rng, "f64", ())], {"dim": -1, "descending": False},
                       grad=kind == "sort"))
        cs.append(case(f"{kind}_empty", kind, [make(rng, "f32", (2, 0))], {"dim": 1, "descending": True}))
        cs.append(case(f"{kind}_bad_dim", kind, [make(rng, "f32", (2, 3))], {"dim": 2, "descending": False}))
    for kind in ["topk", "topk_indices"]:
        for dt in FLOATS + INTS:
            for k, dim, largest in [(2, 1, True), (3, 0, False), (5, -1, True)]:
                if kind == "topk_indices" and dt in INTS:
                    continue  # equal values: torch leaves the order of their indices unspecified
                cs.append(case(f"{kind}_{dt}_{k}_{dim}_{largest}", kind, [make(rng, dt, (4, 5))],
                               {"k": k, "dim": dim, "largest": largest}, grad=dt in ("f64", "f32") and kind == "topk"))
        cs.append(case(f"{kind}_k0", kind, [make(rng, "f32", (3, 4))], {"k": 0, "dim": 1, "largest": True}))
        one_nan = to_dtype("f32", [[1, np.nan, 3, -np.inf], [0.5, 2, np.nan, 0], [-0.5, 0.25, 1, 2]])
        cs.append(case(f"{kind}_nan", kind, [one_nan], {"k": 2, "dim": 1, "largest": True}))
        cs.append(case(f"{kind}_nan_smallest", kind, [one_nan], {"k": 2, "dim": 1, "largest": False}))
        cs.append(case(f"{kind}_0d", kind, [make(rng, "f64", ())], {"k": 1, "dim": 0, "largest": True},
                       grad=kind == "topk"))
        cs.append(case(f"{kind}_k_too_big", kind, [make(rng, "f32", (3, 4))], {"k": 5, "dim": 1, "largest": True}))
        cs.append(case(f"{kind}_k_negative", kind, [make(rng, "f32", (3, 4))],
                       {"k": -1, "dim": 1, "largest": True}))
    for dt in ALL:
        for dims in ([[0], [1], [-1, 0], [], [2, 0, 1]] if dt == "f32" else [[0, 2]]):
            cs.append(case(f"flip_{dt}_{'_'.join(map(str, dims))}", "flip", [make(rng, dt, (2, 3, 4))],
                           {"dims": dims}, grad=dt in ("f64", "f32")))
    cs.append(case("flip_0d", "flip", [make(rng, "f64", ())], {"dims": [0]}, grad=True))
    cs.append(case("flip_empty", "flip", [make(rng, "f32", (0, 3))], {"dims": [0, 1]}))
    cs.append(case("flip_dup_dims", "flip", [make(rng, "f32", (2, 3))], {"dims": [0, -2]}))
    cs.append(case("flip_bad_dim", "flip", [make(rng, "f32", (2, 3))], {"dims": [2]}))
    return cs


def shape_cases(rng):
    cs = []
    x = make(rng, "f32", (2, 3, 4))
    specs = [
        ("reshape", {"shape": [4, -1]}), ("reshape", {"shape": [24]}), ("reshape", {"shape": [2, -1, 3]}),
        ("reshape", {"shape": [5, -1]}), ("reshape", {"shape": [-1, -1]}),
        ("Tensor::reshape", {"shape": [6, 4]}), ("Tensor::view", {"shape": [3, 8]}),
        ("Tensor::flatten", {"start_dim": 0, "end_dim": -1}), ("Tensor::flatten", {"start_dim": 1, "end_dim": 2}),
        ("Tensor::flatten", {"start_dim": 2, "end_dim": 1}),
        ("transpose", {"dim0": 0, "dim1": 2}), ("transpose", {"dim0": -1, "dim1": 1}),
        ("Tensor::transpose", {"dim0": 1, "dim1": 1}), ("permute", {"dims": [2, 0, 1]}),
        ("permute", {"dims": [0, 1, 2]}), ("permute", {"dims": [0, 0, 1]}), ("Tensor::permute", {"dims": [-1, 0, 1]}),
        ("unsqueeze", {"dim": 0}), ("unsqueeze", {"dim": -1}), ("unsqueeze", {"dim": 3}), ("unsqueeze", {"dim": 5}),
        ("Tensor::unsqueeze", {"dim": 1}), ("squeeze", {"dim": 1}),
        ("slice", {"dim": 2, "start": 1, "end": 3, "step": 1}), ("slice", {"dim": 1, "start": -2, "end": 10, "step": 1}),
        ("slice", {"dim": 2, "start": 0, "end": 4, "step": 3}), ("slice", {"dim": 0, "start": 2, "end": 1, "step": 1}),
        ("slice", {"dim": 0, "start": 0, "end": 2, "step": 0}), ("Tensor::slice", {"dim": -1, "start": 1, "end": -1, "step": 2}),
        ("narrow", {"dim": 1, "start": 1, "length": 2}), ("narrow", {"dim": 1, "start": -2, "length": 2}),
        ("narrow", {"dim": 1, "start": 2, "length": 2}), ("Tensor::narrow", {"dim": 2, "start": 0, "length": 4}),
        ("select", {"dim": 1, "index": -1}), ("select", {"dim": 0, "index": 2}), ("Tensor::select", {"dim": 2, "index": 3}),
        ("Tensor::operator[]", {"index": 1}), ("Tensor::operator[]", {"index": -2}),
        ("Tensor::contiguous", {}), ("Tensor::clone", {}), ("Tensor::detach", {}),
    ]
    for i, (op, args) in enumerate(specs):
        cs.append(case(f"{op}_{i}", op, [x], args, grad=True))
    y = make(rng, "f64", (3, 1, 2))
    for i, (op, args) in enumerate([("squeeze", {"dim": 1}), ("squeeze", {"dim": 0}), ("squeeze", {"dim": -2}),
                                    ("Tensor::squeeze", {"dim": 1}), ("expand", {"shape": [4, 3, 5, 2]}),
                                    ("expand", {"shape": [-1, 6, -1]}), ("expand", {"shape": [3, 2]}),
                                    ("broadcast_to", {"shape": [3, 4, 2]}), ("Tensor::expand", {"shape": [2, 3, 3, 2]}),
                                    ("Tensor::t", {})]):
        cs.append(case(f"{op}_f64_{i}", op, [y], args, grad=True))
    cs.append(case("Tensor::t_2d", "Tensor::t", [make(rng, "bf16", (2, 3))], grad=True))
    cs.append(case("Tensor::t_1d", "Tensor::t", [make(rng, "f32", (3,))]))
    z = make(rng, "i64", ())
    for op, args in [("reshape", {"shape": [1, 1]}), ("unsqueeze", {"dim": 0}), ("squeeze", {"dim": 0}),
                     ("expand", {"shape": [2]}), ("Tensor::flatten", {"start_dim": 0, "end_dim": -1}),
                     ("transpose", {"dim0": 0, "dim1": -1}), ("select", {"dim": 0, "index": 0})]:
        cs.append(case(f"{op}_0d", op, [z], args))
    e = make(rng, "bf16", (0, 3))
    for op, args in [("reshape", {"shape": [3, 0]}), ("transpose", {"dim0": 0, "dim1": 1}),
                     ("slice", {"dim": 1, "start": 1, "end": 2, "step": 1}), ("expand", {"shape": [2, 0, 3]})]:
        cs.append(case(f"{op}_empty", op, [e], args))
    for dt in ALL:
        cs.append(case(f"transpose_{dt}", "transpose", [make(rng, dt, (2, 3))], {"dim0": 0, "dim1": 1}))
        cs.append(case(f"cat_{dt}", "cat", [make(rng, dt, (2, 3)), make(rng, dt, (1, 3))], {"dim": 0}, grad=dt in FLOATS))
        cs.append(case(f"stack_{dt}", "stack", [make(rng, dt, (2, 3)), make(rng, dt, (2, 3))], {"dim": 1},
                       grad=dt in FLOATS))
        cs.append(case(f"cat_f32_{dt}", "cat", [make(rng, "f32", (2, 2)), make(rng, dt, (2, 1))], {"dim": -1}))
    for i, (shapes, dim) in enumerate([([(2, 3), (2, 0), (2, 1)], 1), ([(3,)], 0), ([(2, 3), (3, 3)], 1),
                                       ([(0, 3), (0, 3)], 0), ([(1, 1), (1, 1)], 0)]):
        cs.append(case(f"cat_shapes_{i}", "cat", [make(rng, "f32", s) for s in shapes], {"dim": dim}))
    for i, (shapes, dim) in enumerate([([(), ()], 0), ([(2,), (2,)], -1), ([(2,), (3,)], 0), ([(0,)], 0)]):
        cs.append(case(f"stack_shapes_{i}", "stack", [make(rng, "f32", s) for s in shapes], {"dim": dim}))
    for i, (sa, sb, da, db) in enumerate([
            ((3,), (3,), "f32", "f32"), ((3,), (3, 4), "f64", "f64"), ((2, 3), (3,), "f64", "f64"),
            ((2, 3), (3, 4), "bf16", "bf16"), ((5, 2, 3), (3, 4), "f64", "f64"), ((2, 1, 2, 3), (4, 3, 2), "f64", "f64"),
            ((3, 0), (0, 2), "f32", "f32"), ((1, 1), (1, 1), "f16", "f16"), ((2, 3), (3, 2), "i32", "i32"),
            ((2, 3), (3, 2), "i64", "i64"), ((2, 3), (4, 2), "f32", "f32"), ((), (2,), "f32", "f32"),
            ((2, 3), (3, 2), "bool", "bool")]):
        cs.append(case(f"matmul_{i}", "matmul", [make(rng, da, sa), make(rng, db, sb)], grad=True,
                       tol=4 if da in ("f16", "bf16") else 1))
    cs.append(case("matmul_f32_f64", "matmul", [make(rng, "f32", (2, 3)), make(rng, "f64", (3, 2))]))
    cs.append(case("matmul_f32_i64", "matmul", [make(rng, "f32", (2, 3)), make(rng, "i64", (3, 2))]))
    for n, m in [(3, 3), (2, 4), (0, 2), (1, 1)]:
        cs.append(case(f"tril_mask_{n}x{m}", "tril_mask", [], {"n": n, "m": m}))
    cs.append(case("tril_mask_negative", "tril_mask", [], {"n": -1, "m": 2},
                   ref=lambda t, a: torch.ones(-1)))
    return cs


def nn_cases(rng):
    cs = []
    for op in ["softmax", "log_softmax"]:
        for dt in ALL:
            for dim in ([0, 1, -1] if dt == "f32" else [1]):
                cs.append(case(f"{op}_{dt}_{dim}", op, [make(rng, dt, (3, 5))], {"dim": dim},
                               grad=dt in ("f64", "f32", "bf16"), tol=4))
        for tag, shape, dim in [("0d", (), 0), ("empty", (0, 3), 1), ("empty_dim", (2, 0), 1), ("size1", (3, 1), 1),
                                ("rank3", (2, 3, 4), 1), ("bad_dim", (2, 3), 2)]:
            cs.append(case(f"{op}_{tag}", op, [make(rng, "f32", shape)], {"dim": dim}, grad=tag in ("size1", "rank3"),
                           tol=4))
        cs.append(case(f"{op}_specials", op, [to_dtype("f32", [[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf],
                                                                [np.inf, 1.0, 2.0], [100.0, 0.0, -100.0]])],
                       {"dim": 1}))
    for i, (n, c, dt, tdt) in enumerate([(4, 5, "f64", "i64"), (3, 7, "f32", "i64"), (1, 1, "f32", "i64"),
                                         (5, 3, "bf16", "i64"), (2, 4, "f16", "i64")]):
        t = to_dtype(tdt, rng.integers(0, c, n))
        cs.append(case(f"cross_entropy_{i}", "cross_entropy", [make(rng, dt, (n, c)), t], grad=dt != "f16",
                       tol=4))
    cs.append(case("cross_entropy_i32_targets", "cross_entropy", [make(rng, "f32", (3, 4)),
                                                                 to_dtype("i32", [0, 3, 1])],
                   extension="targets may be any integer dtype"))
    cs.append(case("cross_entropy_float_targets", "cross_entropy", [make(rng, "f32", (3, 4)), make(rng, "f32", (3,))]))
    cs.append(case("cross_entropy_int_logits", "cross_entropy", [make(rng, "i64", (3, 4)), to_dtype("i64", [0, 1, 2])]))
    cs.append(case("cross_entropy_minus_inf", "cross_entropy",
                   [to_dtype("f32", [[-np.inf, 0.0, 1.0], [2.0, -np.inf, 0.5]]), to_dtype("i64", [2, 0])]))
    for dt in ["f32", "f64", "bf16", "i32"]:
        for it in ["i64", "i32"]:
            ids = to_dtype(it, rng.integers(0, 6, (2, 3)))
            cs.append(case(f"embedding_{dt}_{it}", "embedding", [make(rng, dt, (6, 4)), ids], grad=True))
    cs.append(case("embedding_0d_ids", "embedding", [make(rng, "f32", (6, 4)), to_dtype("i64", 3)]))
    cs.append(case("embedding_empty_ids", "embedding", [make(rng, "f32", (6, 4)), to_dtype("i64", np.zeros(0))]))
    cs.append(case("embedding_float_ids", "embedding", [make(rng, "f32", (6, 4)), make(rng, "f32", (2,))]))
    return cs


def factory_random_cases(rng):
    cs = []
    for dt in ALL:
        for shape in [[2, 3], [], [0, 2]]:
            tag = f"{dt}_{'x'.join(map(str, shape)) or 'scalar'}"
            cs.append(case(f"zeros_{tag}", "zeros", [], {"shape": shape, "dtype": dt}))
            cs.append(case(f"ones_{tag}", "ones", [], {"shape": shape, "dtype": dt}))
        for v in [2.5, -3.0, 0.0, 1.0]:
            if dt in INTS and v != int(v) or dt == "u8" and v < 0:
                continue
            cs.append(case(f"full_{dt}_{v}", "full", [], {"shape": [2, 2], "value": v, "dtype": dt}))
            cs.append(case(f"scalar_tensor_{dt}_{v}", "scalar_tensor", [], {"value": v, "dtype": dt}))
    for dt in ["i64", "i32", "f32", "f64"]:
        for end in [5, 0, 1]:
            cs.append(case(f"arange_{dt}_{end}", "arange", [], {"end": end, "dtype": dt}))
    cs.append(case("arange_negative", "arange", [], {"end": -1, "dtype": "i64"}))
    for i, (s, e, st, dt) in enumerate([(0.0, 1.0, 0.25, "f32"), (1.0, -2.0, -0.5, "f64"), (0.5, 3.0, 1.0, "i64"),
                                        (0.0, 1.0, 0.1, "f64"), (2.0, 2.0, 1.0, "f32"), (0.0, 1.0, -1.0, "f32"),
                                        (0.0, 1.0, 0.0, "f32"), (0.0, 4.0, 1.5, "bf16")]):
        cs.append(case(f"arange_range_{i}", "arange_range", [], {"start": s, "end": e, "step": st, "dtype": dt}))
    cs.append(case("from_vector_f32_2d", "from_vector_f32", [make(rng, "f32", (2, 3))]))
    cs.append(case("from_vector_f32_from_f64", "from_vector_f32", [make(rng, "f64", (4,))]))
    for dt in FLOATS:
        shape = [64, 64]
        cs.append(case(f"randn_{dt}", "randn", [], {"seed": 3, "shape": shape, "dtype": dt}, check="normal"))
        cs.append(case(f"rand_{dt}", "rand", [], {"seed": 4, "shape": shape, "dtype": dt}, check="uniform"))
        cs.append(case(f"Generator::normal_{dt}", "Generator::normal", [], {"seed": 5, "shape": shape, "dtype": dt},
                       check="normal"))
        cs.append(case(f"Generator::uniform_{dt}", "Generator::uniform", [],
                       {"seed": 6, "shape": shape, "dtype": dt}, check="uniform"))
    cs.append(case("rand_empty", "rand", [], {"seed": 4, "shape": [0, 3], "dtype": "f32"}, check="uniform"))
    cs.append(case("randn_int", "randn", [], {"seed": 4, "shape": [3], "dtype": "i64"}, check="normal"))
    for lo, hi in [(0, 10), (-5, 3)]:
        cs.append(case(f"randint_{lo}_{hi}", "randint", [], {"seed": 7, "low": lo, "high": hi, "shape": [40, 50]},
                       check="randint"))
        cs.append(case(f"Generator::randint_{lo}_{hi}", "Generator::randint", [],
                       {"seed": 8, "low": lo, "high": hi, "shape": [40, 50]}, check="randint"))
    cs.append(case("randint_empty_range", "randint", [], {"seed": 7, "low": 3, "high": 3, "shape": [2]},
                   check="randint"))
    for dt in ["i32", "i64", "u8"]:
        cs.append(case(f"Generator::bits_{dt}", "Generator::bits", [], {"seed": 9, "shape": [32, 32], "dtype": dt},
                       check="bits"))
    for op in ["manual_seed", "default_generator", "Generator::manual_seed"]:
        cs.append(case(op, op, [], {"seed": 11, "shape": [16]}, check="equal_halves"))
    for s in [0, 42, (1 << 40) + 3]:
        cs.append(case(f"Generator::initial_seed_{s}", "Generator::initial_seed", [], {"seed": s}))
    return cs


def autograd_sync_cases(rng):
    return [case("autograd_flags", "autograd_flags", [make(rng, "f32", (3,))]),
            case("set_grad", "set_grad", [make(rng, "f32", (2, 3)), make(rng, "f32", (2, 3))]),
            case("sync", "sync", [make(rng, "f32", (2, 3))]),
            case("sync_bf16", "sync", [make(rng, "bf16", (4,))]),
            case("mark_step", "mark_step", [make(rng, "f64", (3,))])]


def more_cases(rng):
    return (reading_and_inplace_cases(rng) + reduction_cases(rng) + sort_scan_cases(rng) + shape_cases(rng) +
            nn_cases(rng) +
            factory_random_cases(rng) + autograd_sync_cases(rng))
