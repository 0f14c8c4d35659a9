#!/usr/bin/python3
"""`lazax train` stops with a lazax error naming the step when the loss is NaN or infinite.

usage: train_nan.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_nan)
A model whose first weight is all NaN gives a NaN loss at step 1: the run must exit 1 with
"[train] the loss is NaN at step 1" on stderr and write no checkpoint.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_torch_model as tm  # noqa: E402

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
SIZE = dict(dim=32, layers=1, heads=4, hidden=64, batch=2, seq=16)


def path(name):
    return os.path.join(SCRATCH, name)


weights = tm.random_weights(
    tm.param_shapes(SIZE["dim"], SIZE["layers"], SIZE["heads"], SIZE["hidden"]), seed=1)
first = sorted(weights)[0]
weights[first] = np.full_like(weights[first], np.nan)
tm.write_safetensors(path("nan_init.safetensors"), weights)
rng = np.random.default_rng(2)
np.save(path("batches.npy"), rng.integers(0, 256, (3, SIZE["batch"], SIZE["seq"] + 1)))
args = [LAZAX, "train", "--dim", str(SIZE["dim"]), "--layers", str(SIZE["layers"]),
        "--heads", str(SIZE["heads"]), "--hidden", str(SIZE["hidden"]),
        "--init", path("nan_init.safetensors"), "--batches", path("batches.npy"),
        "--steps", "3", "--save", path("ckpt.safetensors"), "--svg", "", "--sample", "0", "--quiet"]
r = subprocess.run(args, capture_output=True, text=True, timeout=300)
ok = r.returncode == 1 and "[train] the loss is NaN at step 1" in r.stderr
ok = ok and not os.path.exists(path("ckpt.safetensors"))
if not ok:
    print("exit", r.returncode, "\nstdout:", r.stdout, "\nstderr:", r.stderr)
    raise SystemExit(f"expected a NaN-loss error naming step 1 (weight {first} set to NaN)")
print("ok:", r.stderr.strip().splitlines()[-1])
