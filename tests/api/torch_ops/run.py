#!/usr/bin/python3
"""Agreement of the public lazax::Tensor ops with PyTorch on the same random inputs.

usage: run.py PATH/TO/torch_ops_driver SCRATCH_DIR [CASE_NAME_SUBSTRING]
Every case (cases.py, cases_more.py) names a driver op, its inputs and arguments. This script
computes PyTorch's answer twice: in the inputs' own dtypes (the result dtype and shape, which must
match exactly, and whether torch raises: then lazax must raise too) and in float64 with float64 as
the default dtype (the values). It writes the inputs as .npy and the case list as JSON, runs the
driver once for all cases, and compares: floating values within rtol/atol of the float64
reference rounded to the result dtype (f64 1e-9/1e-12, f32 1e-5/1e-6, f16 2e-3/1e-3, bf16
1.6e-2/1e-2, times the case's `tol`), NaNs in the same places, zeros with the same sign; other
dtypes exactly. Cases with `grad` also compare the gradients of backward() with a random
cotangent against torch.autograd. Random-number ops are checked by `check` (range, moments,
repeatability) since the generators differ. Prints one line per failure and a summary.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import torch

from cases import TORCH_DTYPE, all_cases

DRIVER, SCRATCH = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""

TOL = {"f64": (1e-9, 1e-12), "f32": (1e-5, 1e-6), "f16": (2e-3, 1e-3), "bf16": (1.6e-2, 1e-2)}
LZ_NAME = {v: k for k, v in TORCH_DTYPE.items()}
NP_OF = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.float32,
         "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_, "i8": np.int8}


def native(inputs):
    return [torch.from_numpy(np.array(a)).to(TORCH_DTYPE[dt]) for dt, a in inputs]


def torch_native(case):
    """(dtype name, shape) of torch's result in the inputs' dtypes, or (None, error text).
    Torch 1.13 lacks many f16 CPU kernels: then the dtype comes from the same call with bf16
    (or f32) in place of f16, which promote the same way."""
    try:
        r = case.ref(native(case.inputs), case.args)
        return LZ_NAME[r.dtype], tuple(r.shape)
    except Exception as e:  # noqa: BLE001 (torch raises RuntimeError, TypeError, IndexError...)
        err = f"{type(e).__name__}: {e}"
    dts = {dt for dt, _ in case.inputs}
    for low in ("f16", "bf16"):
        if f"for '{'Half' if low == 'f16' else 'BFloat16'}'" not in err:
            continue
        for stand_in in ("bf16", "f32"):
            if stand_in in dts or (stand_in == "f32" and dts & {"f64"}):
                continue
            swapped = [(stand_in if dt == low else dt, a) for dt, a in case.inputs]
            try:
                r = case.ref(native(swapped), case.args)
            except Exception:  # noqa: BLE001
                continue
            name = LZ_NAME[r.dtype]
            return (low if name == stand_in else name), tuple(r.shape)
    return None, err


def to_numpy(t):
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def torch_f64(case, cotangent=None):
    """The values (float inputs in f64, f64 default dtype) and, with a cotangent, the gradients."""
    ts = [torch.from_numpy(np.array(a, dtype=np.float64 if dt in TOL else NP_OF[dt])) for dt, a in case.inputs]
    if cotangent is not None:
        for t in ts:
            if t.is_floating_point():
                t.requires_grad_()
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        r = case.ref(ts, case.args)
        grads = None
        if cotangent is not None:
            leaves = [t for t in ts if t.requires_grad]
            gs = torch.autograd.grad(r, leaves, torch.from_numpy(cotangent.astype(np.float64)).to(r.dtype),
                                     allow_unused=True) if r.requires_grad else [None] * len(leaves)
            it = iter(gs)
            grads = [next(it) if t.requires_grad else None for t in ts]
            grads = [None if g is None else to_numpy(g) for g in grads]
        return to_numpy(r), grads
    finally:
        torch.set_default_dtype(old)


def compare(got, want, dtype, case, signed_zeros=True):
    """None when `got` (as the driver wrote it) agrees with `want` for a result of `dtype`."""
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if dtype in TOL:
        rtol, atol = (v * case.tol for v in TOL[dtype])
        with np.errstate(all="ignore"):
            w = torch.from_numpy(want.astype(np.float64)).to(TORCH_DTYPE[dtype]).double().numpy()
            g = got.astype(np.float64)
            nan_g, nan_w = np.isnan(g), np.isnan(w)
            bad = (nan_g != nan_w) | (~nan_w & ~nan_g & ~np.isclose(g, w, rtol=rtol, atol=atol))
            if case.signed_zeros and signed_zeros:
                bad |= (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    else:
        bad = got != want.astype(got.dtype)
    if not bad.any():
        return None
    idx = np.argwhere(bad)[:3]
    shown = ", ".join(f"at {tuple(int(i) for i in ix)}: got {got[tuple(ix)]!r} want {want[tuple(ix)]!r}"
                      for ix in idx)
    return f"{int(bad.sum())} of {bad.size} differ ({shown})"


def check_random(kind, got, case):
    """Properties of random numbers (lazax's generator is not torch's)."""
    v = got.astype(np.float64)
    a = case.args
    if kind == "uniform":
        ok = v.size == 0 or (v.min() >= 0 and v.max() < 1 and abs(v.mean() - 0.5) < 0.05)
    elif kind == "normal":
        ok = abs(v.mean()) < 0.1 and abs(v.std() - 1) < 0.1
    elif kind == "randint":
        ok = v.min() >= a["low"] and v.max() < a["high"] and len(np.unique(v)) == a["high"] - a["low"]
    elif kind == "bits":
        bits = np.unpackbits(np.ascontiguousarray(got).view(np.uint8))
        ok = abs(bits.mean() - 0.5) < 0.02
    elif kind == "dropout":  # inputs of ones: each entry dropped (0) or scaled by 1 / (1 - p)
        scale = 1 / (1 - a["p"])
        ok = bool(np.all((v == 0) | np.isclose(v, scale, rtol=1e-3))) and abs((v != 0).mean() - (1 - a["p"])) < 0.05
    elif kind == "equal_halves":
        ok = np.array_equal(got[0], got[1]) and len(np.unique(got[0])) > 1
    else:
        raise ValueError(kind)
    return None if ok else f"{kind} check failed: min {v.min()}, max {v.max()}, mean {v.mean()}"


def prepare(case, stem, d, rng):
    """Torch's answers for `case`, and its entry in the driver's case list. Files are named by
    `stem`, not by the case name (which holds characters such as / and *)."""
    # JSON has no NaN or infinities: those go as strings, which the driver reads with strtod.
    args = {k: v if not isinstance(v, float) or np.isfinite(v) else str(v) for k, v in case.args.items()}
    entry = {"name": case.name, "op": case.op, "args": args, "file": stem, "inputs": []}
    for i, (dt, a) in enumerate(case.inputs):
        p = os.path.join(d, f"{stem}.in{i}.npy")
        np.save(p, np.asarray(a, dtype=NP_OF[dt]))
        entry["inputs"].append({"path": p, "dtype": dt})
    dtype, shape = torch_native(case)
    want = {"dtype": dtype, "shape": shape}
    if dtype is None or case.check != "torch":
        return entry, want
    ct = None
    if case.grad and dtype in TOL:
        ct = rng.normal(0, 1, shape).astype(np.float32)
        ct = torch.from_numpy(ct).to(TORCH_DTYPE[dtype]).float().numpy()  # representable
        p = os.path.join(d, f"{stem}.ct.npy")
        np.save(p, ct)
        entry["grad"], entry["cotangent"] = True, {"path": p, "dtype": dtype}
    want["values"], want["grads"] = torch_f64(case, ct)
    return entry, want


def judge(case, want, got, out):
    out = os.path.join(out, want["stem"])
    """None when lazax agrees with torch on `case`, else why not."""
    if want["dtype"] is None:  # torch raises
        if "error" in got:
            return None
        return None if case.extension else f"torch raises ({want['shape'][:120]}), lazax does not"
    if "error" in got:
        return f"lazax raises: {got['error'][:300]}"
    if got["dtype"] != want["dtype"]:
        return f"dtype {got['dtype']}, torch {want['dtype']}"
    if tuple(got["shape"]) != tuple(want["shape"]):
        return f"shape {got['shape']}, torch {list(want['shape'])}"
    value = np.load(out + ".npy")
    if case.check != "torch":
        return check_random(case.check, value, case)
    why = compare(value, want["values"], want["dtype"], case)
    if why:
        return why
    for i, w in enumerate(want.get("grads") or []):
        g = got["grads"][i]
        if w is None:
            if g is not None and np.load(f"{out}.grad{i}.npy").any():
                return f"grad{i}: torch has none, lazax non-zero"
            continue
        in_dt = case.inputs[i][0]
        if g is None:
            w_ok = not np.asarray(w).any()
            if not w_ok:
                return f"grad{i}: lazax has none, torch non-zero"
            continue
        if g != in_dt:
            return f"grad{i}: dtype {g}, expected the input's {in_dt}"
        # (The sign of a zero gradient means nothing: lazax's may be -0.0 where torch's is 0.0.)
        why = compare(np.load(f"{out}.grad{i}.npy"), w, in_dt, case, signed_zeros=False)
        if why:
            return f"grad{i}: {why}"
    return None


def main():
    start = time.time()
    shutil.rmtree(SCRATCH, ignore_errors=True)
    d = os.path.join(SCRATCH, "in")
    out = os.path.join(SCRATCH, "out")
    os.makedirs(d)
    torch.manual_seed(0)
    rng = np.random.default_rng(20240611)
    cases = [c for c in all_cases(rng) if ONLY in c.name]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"case names must be unique: {sorted(dup)[:5]}"
    entries, wants = [], {}
    for i, c in enumerate(cases):
        entry, wants[c.name] = prepare(c, f"c{i}", d, rng)
        wants[c.name]["stem"] = f"c{i}"
        entries.append(entry)
    with open(os.path.join(SCRATCH, "cases.json"), "w") as f:
        json.dump({"cases": entries}, f)
    r = subprocess.run([DRIVER, os.path.join(SCRATCH, "cases.json"), out], capture_output=True, text=True,
                       timeout=500)
    if r.returncode != 0:
        print(f"the driver failed (exit {r.returncode}): {r.stderr.strip()}")
        return 1
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    failed, notes = [], []
    for c in cases:
        why = judge(c, wants[c.name], results[c.name], out)
        if why:
            failed.append(c.name)
            print(f"FAIL {c.name} ({c.op}): {why}", flush=True)
        if c.extension and wants[c.name]["dtype"] is None and "error" not in results[c.name]:
            notes.append(f"  {c.name}: {c.extension}")
    if notes:
        print("torch raises, lazax computes (documented extensions):")
        print("\n".join(notes))
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed ({time.time() - start:.1f} s)")
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
