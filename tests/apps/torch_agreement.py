#!/usr/bin/python3
"""Agreement of `lazax run` (the reference interpreter) with PyTorch on random inputs.

usage: torch_agreement.py PATH/TO/lazax SCRATCH_DIR [CASE_NAME_SUBSTRING]
For every case this script writes a program in the text form (docs/IR.md) and its inputs as .npy
(fixed seed), runs `lazax run`, and compares the outputs with PyTorch (or NumPy where torch has
no direct equivalent) computed in float64 from the same input values. Floating results must agree
within rtol/atol (f32: 1e-5/1e-6, f64: 1e-12/1e-12, f16: 1e-3/1e-3, bf16: 1e-2/1e-5) with NaNs in
the same places; integer and bool results exactly. bf16 programs (torch_agreement_dtype_cases.py)
convert f32 inputs to bf16 and their bf16 result back to f32: the expected dtype "bf16" means f32
values compared with the reference rounded to bf16. Run by ctest as apps.torch_agreement with Debian's python3.
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

# The cases live next to this script (Python puts the script's directory on sys.path).
from torch_agreement_cases import all_cases

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3] if len(sys.argv) > 3 else ""

TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12), np.float16: (1e-3, 1e-3), "bf16": (1e-2, 1e-5)}


def rounded(want, want_dtype):
    """The float64 reference rounded once to the result dtype (so overflow gives inf there too)."""
    with np.errstate(all="ignore"):
        if want_dtype == "bf16":
            return torch.from_numpy(want.astype(np.float64)).to(torch.bfloat16).double().numpy()
        return want.astype(want_dtype).astype(np.float64)


def compare(got, want, want_dtype):
    """Returns None when `got` agrees with `want` (declared dtype `want_dtype`), else why not."""
    bf16 = isinstance(want_dtype, str) and want_dtype == "bf16"
    file_dtype = np.dtype(np.float32 if bf16 else want_dtype)
    if got.dtype != file_dtype:
        return f"dtype {got.dtype}, expected {file_dtype}"
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if bf16 or file_dtype.kind == "f":
        rtol, atol = TOL["bf16" if bf16 else file_dtype.type]
        with np.errstate(all="ignore"):
            g, w = got.astype(np.float64), rounded(want, want_dtype)
        nan_g, nan_w = np.isnan(g), np.isnan(w)
        with np.errstate(all="ignore"):
            # isclose treats equal infinities as close and inf vs finite as far, as wanted.
            bad = (nan_g != nan_w) | (~nan_w & ~nan_g & ~np.isclose(g, w, rtol=rtol, atol=atol))
            # Zeros must agree in sign too (-0.0 vs 0.0).
            bad |= (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    else:
        bad = got != want.astype(got.dtype)
    if not bad.any():
        return None
    idx = np.argwhere(bad)[:4]
    shown = ", ".join(f"at {tuple(int(i) for i in ix)}: got {got[tuple(ix)]!r} want {want[tuple(ix)]!r}"
                      for ix in idx)
    return f"{int(bad.sum())} of {bad.size} elements differ ({shown})"


def run_case(case):
    d = os.path.join(SCRATCH, case.name)
    os.makedirs(d)
    with open(os.path.join(d, "prog.lzir"), "w") as f:
        f.write(case.program)
    paths = []
    for i, a in enumerate(case.inputs):
        p = os.path.join(d, f"in{i}.npy")
        np.save(p, a)
        paths.append(p)
    out = os.path.join(d, "out")
    cmd = [LAZAX, "run", os.path.join(d, "prog.lzir"), "--inputs", ",".join(paths), "--out", out]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return f"lazax run failed (exit {r.returncode}): {r.stderr.strip()}"
    problems = []
    for i, (want, dt) in enumerate(zip(case.expected, case.out_dtypes)):
        got = np.load(os.path.join(out, f"out{i}.npy"))
        why = compare(got, want, dt)
        if why:
            problems.append(f"out{i}: {why}")
    return "; ".join(problems) or None


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    torch.manual_seed(0)
    cases = [c for c in all_cases(np.random.default_rng(20240601)) if ONLY in c.name]
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    failed, notes = [], []
    for case in cases:
        why = run_case(case)
        print(f"{'ok  ' if why is None else 'FAIL'} {case.name}" + ("" if why is None else f": {why}"),
              flush=True)
        if why is not None:
            failed.append(case.name)
        if case.note:
            notes.append(f"  {case.name}: {case.note}")
    if notes:
        print("known differences from PyTorch (lazax follows lax semantics, see docs/IR.md):")
        print("\n".join(notes))
    print(f"{len(cases) - len(failed)} passed, {len(failed)} failed")
    if failed:
        print("failed: " + " ".join(failed))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
