#!/usr/bin/python3
"""jacrev, jacfwd and hessian (built on vmap) against torch.autograd.functional.

usage: torch_jac.py PATH/TO/vmap_jac_driver
Each case is a small function defined here and again in tests/vmap/torch_jac/driver.cc; the
driver gets the same random float64 input on stdin and prints its Jacobians (and, for the scalar
cases "h_*", its Hessian), which must equal torch.autograd.functional.jacobian / hessian within
1e-9 relative and 1e-10 absolute. Prints one line per case; exits non-zero on any failure.
"""
import json
import subprocess
import sys

import numpy as np
import torch

DRIVER = sys.argv[1]
torch.set_default_dtype(torch.float64)


def a_matrix():
    return torch.arange(6, dtype=torch.float64).reshape(3, 2) / 5 - 0.5


CASES = {
    "tanh_mm": ((2, 3), lambda x: torch.tanh(x @ a_matrix()) * x.sum()),
    "softmax_x": ((4,), lambda x: torch.softmax(x, 0) * x),
    "cumsum_log1p": ((3, 2), lambda x: torch.cumsum(torch.log1p(x * x), 0)),
    "h_sin": ((3,), lambda x: (torch.sin(x) * x).sum() + (x * x).sum() * x.sum()),
    "h_lse": ((4,), lambda x: torch.logsumexp(x, 0) + (x * x * x).sum() / 3),
    "h_mm": ((2, 2), lambda x: torch.tanh(x @ x).sum()),
}


def close(name, what, got, want):
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    want = want.detach().numpy().reshape(-1)
    if got.shape != want.shape:
        print(f"FAIL {name} {what}: {got.size} values, PyTorch has {want.size}")
        return False
    if not np.allclose(got, want, rtol=1e-9, atol=1e-10):
        i = int(np.argmax(np.abs(got - want)))
        print(f"FAIL {name} {what}: at {i} lazax {got[i]!r}, PyTorch {want[i]!r}")
        return False
    return True


def main():
    rng = np.random.default_rng(28)
    failed = 0
    for name, (shape, fn) in CASES.items():
        x = rng.uniform(-1, 1, size=shape)
        msg = json.dumps({"case": name, "shape": list(shape), "x": x.reshape(-1).tolist()})
        run = subprocess.run([DRIVER], input=msg, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            print(f"FAIL {name}: the driver failed: {run.stderr.strip()}")
            failed += 1
            continue
        out = json.loads(run.stdout)
        xt = torch.tensor(x)
        jac = torch.autograd.functional.jacobian(fn, xt)
        ok = list(jac.shape) == out["shape"] or print(f"FAIL {name}: shape {out['shape']}")
        ok = close(name, "jacrev", out["jacrev"], jac) and ok
        ok = close(name, "jacfwd", out["jacfwd"], jac) and ok
        if name.startswith("h_"):
            ok = close(name, "hessian", out["hessian"], torch.autograd.functional.hessian(fn, xt)) and ok
        print(("ok   " if ok else "FAIL ") + name)
        failed += 0 if ok else 1
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
