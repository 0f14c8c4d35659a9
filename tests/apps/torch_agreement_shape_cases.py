"""Agreement cases of the shape primitives: broadcast_in_dim, reshape, transpose, slice,
dynamic_slice, dynamic_update_slice, concatenate and pad (references built from torch/NumPy ops)."""
import numpy as np
import torch
import torch.nn.functional as F

from torch_agreement_lib import F32, I32, I64, N, T, lz_list, single


def lax_pad(x, value, low, high, interior):
    """lax.pad: `interior` copies of `value` between elements, then edges (negative ones crop)."""
    x = np.asarray(x)
    inner = [d + max(d - 1, 0) * i for d, i in zip(x.shape, interior)]
    y = np.full(inner, value, dtype=x.dtype)
    y[tuple(slice(None, None, i + 1) for i in interior)] = x
    pads = []
    for lo, hi in reversed(list(zip(low, high))):  # F.pad wants the last dim first
        pads += [lo, hi]
    return F.pad(T(y), pads, mode="constant", value=float(value))


def clamp_starts(starts, shape, sizes):
    return [int(min(max(s, 0), d - k)) for s, d, k in zip(starts, shape, sizes)]


def shape_cases(rng):
    cases = []
    r = lambda *s: rng.normal(0, 1, s).astype(F32)  # noqa: E731

    # broadcast_in_dim: operand dim i goes to result dim dims[i]; the others are new.
    for name, x, shape, dims in [
        ("row", r(3), (2, 3), [1]), ("column", r(3), (3, 2), [0]), ("size1", r(3, 1), (3, 4), [0, 1]),
        ("scalar", np.array(1.5, F32), (2, 2), []), ("middle1", r(2, 1, 3), (2, 4, 3), [0, 1, 2]),
        ("spread", r(2, 3), (4, 2, 5, 3), [1, 3]),
    ]:
        view = [1] * len(shape)
        for i, d in enumerate(dims):
            view[d] = x.shape[i]
        want = T(x).reshape(view).expand(*shape)
        cases.append(single(f"broadcast_in_dim_{name}", "broadcast_in_dim", [x], want,
                            f"shape={lz_list(shape)}, broadcast_dimensions={lz_list(dims)}"))

    for name, x, shape in [("2x6_to_3x4", r(2, 6), (3, 4)), ("flatten", r(2, 3, 4), (24,)),
                           ("to_scalar", r(1), ()), ("add_dims", r(6), (1, 2, 1, 3)),
                           ("empty", r(0, 3), (3, 0))]:
        cases.append(single(f"reshape_{name}", "reshape", [x], T(x).reshape(shape), f"new_sizes={lz_list(shape)}"))

    for x, perm in [(r(2, 3), [1, 0]), (r(2, 3, 4), [2, 0, 1]), (r(2, 3, 4), [1, 2, 0]), (r(2, 3, 4), [0, 1, 2])]:
        cases.append(single(f"transpose_{''.join(map(str, perm))}", "transpose", [x], T(x).permute(*perm),
                            f"permutation={lz_list(perm)}"))
    xi = rng.integers(-9, 9, (3, 4)).astype(I64)
    cases.append(single("transpose_i64", "transpose", [xi], T(xi).T, "permutation=[1, 0]"))

    x = r(6, 7)
    for name, start, limit, strides in [
        ("strided", [1, 0], [6, 7], [2, 3]), ("unit", [2, 1], [4, 5], []), ("stride_past_end", [0, 6], [6, 7], [4, 5]),
        ("empty", [2, 3], [2, 7], [1, 1]), ("whole", [0, 0], [6, 7], [1, 1]),
    ]:
        st = strides or [1, 1]
        want = T(x)[start[0]:limit[0]:st[0], start[1]:limit[1]:st[1]]
        cases.append(single(f"slice_{name}", "slice", [x], want,
                            f"start_indices={lz_list(start)}, limit_indices={lz_list(limit)}, strides={lz_list(strides)}"))

    # dynamic_slice / dynamic_update_slice: starts are clamped so the window fits.
    x = r(5, 6)
    upd = r(2, 3)
    for name, starts, idt in [("inside", (1, 2), I32), ("clamped_high", (4, 5), I32),
                              ("clamped_negative", (-2, 1), I64), ("corner", (3, 3), I64)]:
        s = clamp_starts(starts, x.shape, (2, 3))
        args = [np.array(v, idt) for v in starts]
        cases.append(single(f"dynamic_slice_{name}", "dynamic_slice", [x] + args,
                            T(x).narrow(0, s[0], 2).narrow(1, s[1], 3), "slice_sizes=[2, 3]", F32))
        want = T(x).clone()
        want[s[0]:s[0] + 2, s[1]:s[1] + 3] = T(upd)
        cases.append(single(f"dynamic_update_slice_{name}", "dynamic_update_slice", [x, upd] + args, want, "", F32))

    a, b, c = r(2, 3), r(4, 3), r(1, 3)
    cases.append(single("concatenate_dim0", "concatenate", [a, b, c], torch.cat([T(a), T(b), T(c)], 0), "dimension=0"))
    a, b = r(2, 1), r(2, 3)
    cases.append(single("concatenate_dim1", "concatenate", [a, b], torch.cat([T(a), T(b)], 1), "dimension=1"))
    ai, bi = rng.integers(-9, 9, (2, 2, 2)).astype(I32), rng.integers(-9, 9, (2, 3, 2)).astype(I32)
    cases.append(single("concatenate_i32_middle", "concatenate", [ai, bi], torch.cat([T(ai), T(bi)], 1), "dimension=1"))
    cases.append(single("concatenate_one", "concatenate", [a], T(a), "dimension=0"))

    x = r(3, 4)
    v = np.array(-7.5, F32)
    for name, xx, low, high, interior in [
        ("edges", x, [1, 2], [2, 0], [0, 0]), ("negative", x, [-1, 1], [0, -2], [0, 0]),
        ("interior", x, [0, 0], [0, 0], [1, 2]), ("mixed", x, [-1, 2], [1, -3], [2, 1]),
        ("crop_into_interior", r(5), [-2], [-1], [1]), ("empty_operand", r(0, 2), [1, 0], [1, 1], [3, 0]),
    ]:
        want = lax_pad(xx, v, low, high, interior)
        attrs = (f"edge_padding_low={lz_list(low)}, edge_padding_high={lz_list(high)}, "
                 f"interior_padding={lz_list(interior)}")
        cases.append(single(f"pad_{name}", "pad", [xx, v], N(want), attrs))
    xi = rng.integers(-9, 9, (2, 3)).astype(I32)
    cases.append(single("pad_i32", "pad", [xi, np.array(100, I32)], N(lax_pad(xi, 100, [1, -1], [0, 2], [1, 1])).astype(I32),
                        "edge_padding_low=[1, -1], edge_padding_high=[0, 2], interior_padding=[1, 1]"))
    return cases
