"""Cases of run.py for the indexing ops (index_select, gather, scatter_add, index_put,
Tensor::index, Tensor::index_put_) and the everyday composites (var, std, linspace, eye, tril,
triu, one_hot, layer_norm, dropout); see cases.py for the format."""
import numpy as np
import torch
import torch.nn.functional as F

from cases import FLOATS, TORCH, TORCH_DTYPE, case, make, to_dtype


def py_index(entries, t):
    """The case's "index" list as a Python index tuple (tensor entries from the inputs t)."""
    out = []
    for e in entries:
        if isinstance(e, int):
            out.append(e)
        elif e == "None":
            out.append(None)
        elif e == "...":
            out.append(Ellipsis)
        elif e[0] == "slice":
            out.append(slice(e[1], e[2], e[3]))
        else:
            out.append(t[e[1]])
    return tuple(out)


def index_put_ref(t, a):
    y = t[0].clone()
    y[py_index(a["index"], t)] = t[1]
    return y


def index_put_scalar_ref(t, a):
    y = t[0].clone()
    y[py_index(a["index"], t)] = a["value"]
    return y


def stat_ref(name):
    """torch.var / torch.std with a correction (torch 1.13 takes it as a keyword)."""
    def ref(t, a):
        f = getattr(torch, name)
        dims = tuple(a["dims"]) if a["dims"] else None
        return f(t[0], dim=dims, correction=a["correction"], keepdim=a.get("keepdim", False))
    return ref


def layer_norm_ref(t, a):
    w = t[1] if len(t) > 1 else None
    b = t[2] if len(t) > 2 else None
    return F.layer_norm(t[0], a["normalized_shape"], w, b, a["eps"])


TORCH.update({
    "index_select": lambda t, a: torch.index_select(t[0], a["dim"], t[1]),
    "Tensor::index_select": lambda t, a: t[0].index_select(a["dim"], t[1]),
    "gather": lambda t, a: torch.gather(t[0], a["dim"], t[1]),
    "Tensor::gather": lambda t, a: t[0].gather(a["dim"], t[1]),
    "scatter_add": lambda t, a: torch.scatter_add(t[0], a["dim"], t[1], t[2]),
    "Tensor::scatter_add": lambda t, a: t[0].scatter_add(a["dim"], t[1], t[2]),
    "index_put": lambda t, a: torch.index_put(t[0], tuple(t[2:]), t[1], a.get("accumulate", False)),
    "Tensor::index": lambda t, a: t[0][py_index(a["index"], t)],
    "Tensor::index_put_": index_put_ref,
    "Tensor::index_put_scalar": index_put_scalar_ref,
    "var": stat_ref("var"),
    "std": stat_ref("std"),
    "Tensor::var": stat_ref("var"),
    "Tensor::std": stat_ref("std"),
    "linspace": lambda t, a: torch.linspace(a["start"], a["end"], a["steps"], dtype=TORCH_DTYPE[a["dtype"]]),
    "eye": lambda t, a: torch.eye(a["n"], a["m"] if a["m"] >= 0 else a["n"], dtype=TORCH_DTYPE[a["dtype"]]),
    "tril": lambda t, a: torch.tril(t[0], a["diagonal"]),
    "triu": lambda t, a: torch.triu(t[0], a["diagonal"]),
    "Tensor::tril": lambda t, a: t[0].tril(a["diagonal"]),
    "Tensor::triu": lambda t, a: t[0].triu(a["diagonal"]),
    "one_hot": lambda t, a: F.one_hot(t[0], a["num_classes"]),
    "layer_norm": layer_norm_ref,
    "dropout": lambda t, a: F.dropout(t[0], a["p"], a.get("train", True)),
})


def idx(rng, dt, hi, shape, lo=0):
    return to_dtype(dt, rng.integers(lo, hi, shape))


def gather_cases(rng):
    cs = []
    for dt in ["f32", "f64", "bf16", "i32", "i64", "bool"]:
        x = make(rng, dt, (4, 3))
        cs.append(case(f"index_select_{dt}", "index_select", [x, idx(rng, "i64", 4, (5,))], {"dim": 0},
                       grad=True))
        cs.append(case(f"gather_{dt}", "gather", [x, idx(rng, "i64", 3, (4, 2))], {"dim": 1}, grad=True))
        src = make(rng, dt, (5, 3))
        cs.append(case(f"scatter_add_{dt}", "scatter_add", [x, idx(rng, "i64", 4, (5, 3)), src], {"dim": 0},
                       grad=True))
    x3 = make(rng, "f32", (3, 4, 5))
    for dim in [0, 1, 2, -1, -3]:
        n = (3, 4, 5)[dim]
        cs.append(case(f"index_select_rank3_dim{dim}", "index_select", [x3, idx(rng, "i64", n, (6,))],
                       {"dim": dim}, grad=True))
        shape = [2, 3, 4]
        shape[dim] = 7
        cs.append(case(f"gather_rank3_dim{dim}", "gather", [x3, idx(rng, "i64", n, shape)], {"dim": dim},
                       grad=True))
        cs.append(case(f"scatter_add_rank3_dim{dim}", "scatter_add",
                       [x3, idx(rng, "i64", n, shape), make(rng, "f32", [s + 1 for s in shape])], {"dim": dim},
                       grad=False))  # (torch 1.13's backward gives src's gradient index's shape)
    cs += [
        case("index_select_i32_index", "index_select", [x3, idx(rng, "i32", 4, (3,))], {"dim": 1}),
        case("index_select_0d_index", "index_select", [x3, to_dtype("i64", 2)], {"dim": 1}),
        case("index_select_empty", "index_select", [x3, to_dtype("i64", np.zeros(0))], {"dim": 1}),
        case("index_select_0d_input", "index_select", [make(rng, "f32", ()), to_dtype("i64", [0])],
             {"dim": 0}, grad=True),
        case("index_select_0d_both", "index_select", [make(rng, "f32", ()), to_dtype("i64", 0)], {"dim": -1}),
        case("index_select_float_index", "index_select", [x3, make(rng, "f32", (3,))], {"dim": 1}),
        case("index_select_2d_index", "index_select", [x3, idx(rng, "i64", 3, (2, 2))], {"dim": 0}),
        case("index_select_out_of_range", "index_select", [x3, to_dtype("i64", [0, 4])], {"dim": 1}),
        case("index_select_negative_index", "index_select", [x3, to_dtype("i64", [-1])], {"dim": 1}),
        case("index_select_bad_dim", "index_select", [x3, to_dtype("i64", [0])], {"dim": 3}),
        case("gather_i32_index", "gather", [x3, idx(rng, "i32", 3, (3, 4, 5))], {"dim": 0},
             extension="gather takes i32 indices too"),
        case("gather_rank_mismatch", "gather", [x3, idx(rng, "i64", 3, (3, 4))], {"dim": 0}),
        case("gather_too_large", "gather", [x3, idx(rng, "i64", 3, (3, 5, 5))], {"dim": 0}),
        case("gather_out_of_range", "gather", [x3, to_dtype("i64", np.full((1, 1, 1), 3))], {"dim": 0}),
        case("gather_negative", "gather", [x3, to_dtype("i64", np.full((1, 1, 1), -1))], {"dim": 0}),
        case("gather_empty", "gather", [x3, to_dtype("i64", np.zeros((0, 4, 5)))], {"dim": 0}),
        case("gather_0d", "gather", [make(rng, "f32", ()), to_dtype("i64", 0)], {"dim": 0}, grad=True),
        case("scatter_add_dtype_mismatch", "scatter_add",
             [x3, idx(rng, "i64", 3, (3, 4, 5)), make(rng, "f64", (3, 4, 5))], {"dim": 0}),
        case("scatter_add_src_too_small", "scatter_add",
             [x3, idx(rng, "i64", 3, (3, 4, 5)), make(rng, "f32", (3, 4, 4))], {"dim": 0}),
        case("scatter_add_out_of_range", "scatter_add",
             [x3, to_dtype("i64", np.full((1, 1, 1), 9)), make(rng, "f32", (1, 1, 1))], {"dim": 1}),
        case("scatter_add_float_index", "scatter_add", [x3, make(rng, "f32", (1, 1, 1)), make(rng, "f32", (1, 1, 1))],
             {"dim": 1}),
        case("scatter_add_empty", "scatter_add", [x3, to_dtype("i64", np.zeros((0, 4, 5))),
                                                 make(rng, "f32", (0, 4, 5))], {"dim": 0}),
        case("Tensor::index_select", "Tensor::index_select", [x3, idx(rng, "i64", 5, (2,))], {"dim": -1},
             grad=True),
        case("Tensor::gather", "Tensor::gather", [x3, idx(rng, "i64", 4, (3, 2, 5))], {"dim": 1}, grad=True),
        case("Tensor::scatter_add", "Tensor::scatter_add",
             [x3, idx(rng, "i64", 5, (3, 4, 2)), make(rng, "f32", (3, 4, 2))], {"dim": 2}, grad=True),
    ]
    return cs


def sl(start=None, stop=None, step=None):
    return ["slice", start, stop, step]


def indexing_cases(rng):
    cs = []
    x = make(rng, "f32", (4, 5, 6))
    lists = {
        "int": [2], "neg_int": [-1], "two_ints": [1, -2], "three_ints": [0, 1, 2],
        "slice": [sl(1, 3)], "slice_step": [sl(None, None, 2)], "slice_neg": [sl(-3, None)],
        "slice_clamped": [sl(-10, 10)], "slice_empty": [sl(3, 1)], "slice_int": [sl(0, 4), 2],
        "slice_slice": [sl(1, None, 3), sl(None, -1, 2)], "none": ["None"], "none_mid": [1, "None", sl(2, 5)],
        "ellipsis": ["...", 3], "ellipsis_mid": [0, "...", sl(1, None, 2)], "ellipsis_only": ["..."],
        "empty_list": [], "none_ellipsis": ["None", "...", "None"],
        "tensor": [["tensor", 1]], "int_slice_tensor": [0, sl(), ["tensor", 1]],
        "slice_tensor_int": [sl(), ["tensor", 1], 1],
        "two_tensors": [["tensor", 1], ["tensor", 2]], "slice_two_tensors": [sl(1, None), ["tensor", 1], ["tensor", 2]],
        "none_three_tensors": ["None", ["tensor", 1], ["tensor", 2], ["tensor", 3]],
    }
    for tag, entries in lists.items():
        n_t = sum(isinstance(e, list) and e[0] == "tensor" for e in entries)
        ins = [x] + [idx(rng, "i64", 4, [(2, 3), (3,), (1, 1)][j], lo=-4) for j in range(n_t)]
        cs.append(case(f"Tensor::index_{tag}", "Tensor::index", ins, {"index": entries}, grad=True))
    for tag, entries in [("int_out_of_range", [4]), ("too_many", [0, 0, 0, 0]),
                         ("zero_step", [sl(None, None, 0)]), ("negative_step", [sl(None, None, -1)]),
                         ("tensor_out_of_range", [["tensor", 1]]),
                         ("tensors_no_broadcast", [["tensor", 1], ["tensor", 3]])]:
        ins = [x] + ([to_dtype("i64", [0, 5]), to_dtype("i64", [0, 1]), to_dtype("i64", [0, 1, 2])]
                     if "tensor" in tag else [])
        cs.append(case(f"Tensor::index_{tag}", "Tensor::index", ins, {"index": entries}))
    cs.append(case("Tensor::index_tensors_apart", "Tensor::index", [x, to_dtype("i64", [0, 1])],
                   {"index": [["tensor", 1], 0, ["tensor", 1]]},
                   ref=lambda t, a: torch.ones(-1)))  # not supported by lazax: it must raise
    cs.append(case("Tensor::index_i64", "Tensor::index", [make(rng, "i64", (3, 4))], {"index": [sl(1), -1]}))
    cs.append(case("Tensor::index_bool", "Tensor::index", [make(rng, "bool", (3, 4))], {"index": ["...", 2]}))
    # index_put_: the value broadcast to the indexed shape.
    puts = [("int", [2], (5, 6)), ("int_bcast", [1], (6,)), ("slice", [sl(1, 3)], (2, 5, 6)),
            ("slice_step", [sl(None, None, 2), 1], (2, 6)), ("slice_slice", [sl(1, None, 3), sl(None, -1, 2)], (1,)),
            ("ellipsis", ["...", 3], (4, 5)), ("none", [0, "None"], (1, 5, 6)), ("scalar_value", [sl(0, 2), 0], ()),
            ("empty", [sl(2, 2)], ()), ("neg", [-1, sl(-2, None), -3], (2,)), ("all", [], (6,))]
    for tag, entries, vshape in puts:
        cs.append(case(f"Tensor::index_put__{tag}", "Tensor::index_put_", [x, make(rng, "f32", vshape)],
                       {"index": entries}, grad=True))
    cs.append(case("Tensor::index_put__f64_value", "Tensor::index_put_", [x, make(rng, "f64", (6,))],
                   {"index": [0, 0]}))
    cs.append(case("Tensor::index_put__i32", "Tensor::index_put_", [make(rng, "i32", (3, 4)), make(rng, "i32", (4,))],
                   {"index": [1]}))
    cs.append(case("Tensor::index_put__bad_shape", "Tensor::index_put_", [x, make(rng, "f32", (3,))],
                   {"index": [0]}))
    cs.append(case("Tensor::index_put__tensor", "Tensor::index_put_",
                   [x, make(rng, "f32", (6,)), to_dtype("i64", [0, -1, 2]), to_dtype("i64", [1, 2, 3])],
                   {"index": [["tensor", 2], ["tensor", 3]]}, grad=True))
    cs.append(case("Tensor::index_put__tensor_mixed", "Tensor::index_put_",
                   [x, make(rng, "f32", (3, 6)), to_dtype("i64", [0, -1, 3])], {"index": [1, ["tensor", 2]]},
                   grad=True))
    cs.append(case("Tensor::index_put__slice_tensors", "Tensor::index_put_",
                   [x, make(rng, "f32", (2, 3)), to_dtype("i64", [[0], [2]]), to_dtype("i64", [5, 0, -2])],
                   {"index": [sl(None, None, 2), ["tensor", 2], ["tensor", 3]]}, grad=True))
    cs.append(case("Tensor::index_put__tensor_none_bcast", "Tensor::index_put_",
                   [x, make(rng, "f32", (6,)), to_dtype("i64", [3, 1])], {"index": [["tensor", 2], "None", 4]},
                   grad=True))
    cs.append(case("Tensor::index_put__tensor_bad_value", "Tensor::index_put_",
                   [x, make(rng, "f32", (4,)), to_dtype("i64", [3, 1])], {"index": [sl(), ["tensor", 2]]}))
    for tag, entries, vshape in [("scalar", [sl(1, 3), 2], None), ("step", [sl(None, None, 3)], None)]:
        cs.append(case(f"Tensor::index_put_scalar_{tag}", "Tensor::index_put_scalar", [x],
                       {"index": entries, "value": 2.5}))
    cs.append(case("Tensor::index_put_scalar_i64", "Tensor::index_put_scalar", [make(rng, "i64", (3, 4))],
                   {"index": [sl(None, None, 2)], "value": -3.0}))
    # index_put (torch.index_put): x, values, then the index tensors.
    for dt in ["f32", "f64", "i64", "bool"]:
        for acc in [False, True]:
            cs.append(case(f"index_put_{dt}_{'acc' if acc else 'set'}", "index_put",
                           [make(rng, dt, (4, 3)), make(rng, dt, (2, 3)), to_dtype("i64", [3, -4])],
                           {"accumulate": acc}, grad=True))
    cs.append(case("index_put_two_indices_acc", "index_put",
                   [x, make(rng, "f32", (2, 3, 6)), idx(rng, "i64", 4, (2, 1)), idx(rng, "i64", 5, (3,))],
                   {"accumulate": True}, grad=True))
    cs.append(case("index_put_repeats_acc", "index_put",
                   [x, make(rng, "f32", (3,)), to_dtype("i64", [1, 1, 1]), to_dtype("i64", [0, 0, 0]),
                    to_dtype("i64", [2, 2, 2])], {"accumulate": True}, grad=True))
    cs.append(case("index_put_scalar_value", "index_put",
                   [x, make(rng, "f32", ()), to_dtype("i64", [0, 2]), to_dtype("i64", [4, 4]), to_dtype("i64", [5, 0])],
                   {"accumulate": False}, grad=True))
    cs.append(case("index_put_dtype_mismatch", "index_put", [x, make(rng, "f64", (6,)), to_dtype("i64", [0])]))
    cs.append(case("index_put_out_of_range", "index_put", [x, make(rng, "f32", (6,)), to_dtype("i64", [4])]))
    cs.append(case("index_put_bad_values", "index_put", [x, make(rng, "f32", (4,)), to_dtype("i64", [0])]))
    return cs


def everyday_cases(rng):
    cs = []
    for dt in FLOATS:
        x = make(rng, dt, (4, 5))
        for dims, corr, keep in [([], 1, False), ([1], 1, False), ([0], 0, True), ([-1, 0], 1, True),
                                 ([1], 2, False)]:
            tag = f"{dt}_{'_'.join(map(str, dims)) or 'all'}_c{corr}_{'k' if keep else ''}"
            tol = 8 if dt in ("f16", "bf16") else 1
            args = {"dims": dims, "correction": corr, "keepdim": keep}
            cs.append(case(f"var_{tag}", "var", [x], args, grad=dt in ("f32", "f64"), tol=tol))
            cs.append(case(f"std_{tag}", "std", [x], args, grad=dt in ("f32", "f64"), tol=tol))
    x = make(rng, "f32", (2, 3, 4))
    cs += [
        case("var_one_element", "var", [make(rng, "f32", (1, 3))], {"dims": [0], "correction": 1}),
        case("var_0d", "var", [make(rng, "f64", ())], {"dims": [], "correction": 0}),
        case("var_int", "var", [make(rng, "i64", (3,))], {"dims": [], "correction": 1}),
        case("var_bad_dim", "var", [x], {"dims": [3], "correction": 1}),
        case("var_repeated_dim", "var", [x], {"dims": [1, -2], "correction": 1}),
        case("Tensor::var", "Tensor::var", [x], {"dims": [1, 2], "correction": 1, "keepdim": True}, grad=True),
        case("Tensor::std", "Tensor::std", [x], {"dims": [0], "correction": 0}, grad=True),
    ]
    for i, (s, e, n, dt) in enumerate([(0.0, 1.0, 5, "f32"), (-2.0, 3.0, 7, "f64"), (1.0, -1.0, 4, "f32"),
                                       (0.0, 10.0, 1, "f32"), (0.0, 10.0, 0, "f64"), (0.0, 1.0, 100, "f32"),
                                       (-5.0, 5.0, 11, "bf16"), (0.0, 1.0, -1, "f32"), (0.0, 10.0, 4, "i64"),
                                       (3.0, 3.0, 3, "f16")]):
        cs.append(case(f"linspace_{i}", "linspace", [], {"start": s, "end": e, "steps": n, "dtype": dt}))
    for n, m, dt in [(3, -1, "f32"), (2, 4, "i64"), (4, 2, "bool"), (0, 3, "f64"), (1, 1, "i32")]:
        cs.append(case(f"eye_{n}_{m}_{dt}", "eye", [], {"n": n, "m": m, "dtype": dt}))
    cs.append(case("eye_negative", "eye", [], {"n": -2, "m": -1, "dtype": "f32"}))
    for op in ["tril", "triu"]:
        for shape, diag, dt in [((4, 4), 0, "f32"), ((3, 5), 1, "f64"), ((5, 3), -1, "i64"), ((2, 3, 4), 2, "f32"),
                                ((3, 3), -5, "bool"), ((3, 3), 7, "f32"), ((0, 2), 0, "f32")]:
            cs.append(case(f"{op}_{'x'.join(map(str, shape))}_{diag}_{dt}", op, [make(rng, dt, shape)],
                           {"diagonal": diag}, grad=True))
        cs.append(case(f"{op}_1d", op, [make(rng, "f32", (3,))], {"diagonal": 0}))
        cs.append(case(f"Tensor::{op}", f"Tensor::{op}", [make(rng, "f32", (3, 4))], {"diagonal": -1}, grad=True))
    for i, (vals, n) in enumerate([([0, 2, 1], 3), ([[1, 0], [3, 3]], 5), ([2, 0], -1), ([], 4), (3, 4)]):
        cs.append(case(f"one_hot_{i}", "one_hot", [to_dtype("i64", vals)], {"num_classes": n}))
    cs.append(case("one_hot_out_of_range", "one_hot", [to_dtype("i64", [0, 3])], {"num_classes": 3}))
    cs.append(case("one_hot_negative", "one_hot", [to_dtype("i64", [-1])], {"num_classes": 3}))
    cs.append(case("one_hot_float", "one_hot", [make(rng, "f32", (2,))], {"num_classes": 3}))
    cs.append(case("one_hot_i32", "one_hot", [to_dtype("i32", [0, 2])], {"num_classes": 3},
                   extension="one_hot takes i32 indices too"))
    for dt in ["f32", "f64"]:
        x = make(rng, dt, (2, 3, 4))
        cs.append(case(f"layer_norm_{dt}", "layer_norm", [x, make(rng, dt, (4,)), make(rng, dt, (4,))],
                       {"normalized_shape": [4], "eps": 1e-5}, grad=True, tol=4))
        cs.append(case(f"layer_norm_2d_{dt}", "layer_norm", [x, make(rng, dt, (3, 4)), make(rng, dt, (3, 4))],
                       {"normalized_shape": [3, 4], "eps": 1e-3}, grad=True, tol=4))
        cs.append(case(f"layer_norm_no_affine_{dt}", "layer_norm", [x], {"normalized_shape": [4], "eps": 1e-5},
                       grad=True, tol=4))
    cs.append(case("layer_norm_bad_shape", "layer_norm", [make(rng, "f32", (2, 3))],
                   {"normalized_shape": [2], "eps": 1e-5}))
    cs.append(case("layer_norm_bad_weight", "layer_norm", [make(rng, "f32", (2, 3)), make(rng, "f32", (2,))],
                   {"normalized_shape": [3], "eps": 1e-5}))
    cs.append(case("layer_norm_weight_dtype", "layer_norm", [make(rng, "f32", (2, 3)), make(rng, "f64", (3,))],
                   {"normalized_shape": [3], "eps": 1e-5}))
    # softmax and log_softmax take any dim, negative ones too (they are not last-dim only).
    for op in ["softmax", "log_softmax"]:
        for dim in [0, -2, -3]:
            cs.append(case(f"{op}_any_dim_{dim}", op, [make(rng, "f64", (3, 4, 2))], {"dim": dim}, grad=True))
    ones = to_dtype("f32", np.ones((64, 64)))
    for p in [0.25, 0.5, 0.9]:
        cs.append(case(f"dropout_{p}", "dropout", [ones], {"p": p, "seed": 3}, check="dropout"))
    cs.append(case("dropout_eval", "dropout", [make(rng, "f32", (3, 4))], {"p": 0.5, "train": False, "seed": 1},
                   grad=True))
    cs.append(case("dropout_p0", "dropout", [make(rng, "f64", (3, 4))], {"p": 0.0, "seed": 1}, grad=True))
    cs.append(case("dropout_p1", "dropout", [make(rng, "f32", (3, 4))], {"p": 1.0, "seed": 1}))
    cs.append(case("dropout_bad_p", "dropout", [make(rng, "f32", (3, 4))], {"p": 1.5, "seed": 1}))
    return cs


def index_cases(rng):
    return gather_cases(rng) + indexing_cases(rng) + everyday_cases(rng)
