#!/usr/bin/python3
"""`lazax train --precision bf16` against PyTorch under torch.autocast("cpu", dtype=torch.bfloat16).

usage: train_torch_bf16.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_torch_bf16)
The same decoder from the same weights on the same batches (AdamW, constant lr, no clipping),
50 steps: lazax's bf16 losses must stay within 2e-2 relative of PyTorch's autocast losses, and
the checkpoint lazax writes keeps f32 weights (no bf16 tensor in it).
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_torch_model as tm  # noqa: E402

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
STEPS, LR, WD = 50, 3e-3, 0.01
SIZE = dict(dim=64, layers=2, heads=4, hidden=192, batch=4, seq=32)


def path(name):
    return os.path.join(SCRATCH, name)


text = np.frombuffer(open(__file__, "rb").read(), dtype=np.uint8).astype(np.int64)
weights = tm.random_weights(
    tm.param_shapes(SIZE["dim"], SIZE["layers"], SIZE["heads"], SIZE["hidden"]), seed=1)
tm.write_safetensors(path("init.safetensors"), weights)
rng = np.random.default_rng(2)
starts = rng.integers(0, len(text) - SIZE["seq"] - 1, (STEPS, SIZE["batch"]))
batches = np.stack([[text[s:s + SIZE["seq"] + 1] for s in row] for row in starts])
np.save(path("batches.npy"), batches)

with torch.autocast("cpu", dtype=torch.bfloat16):
    ref = tm.train_losses(weights, batches, SIZE["layers"], SIZE["heads"], LR, WD, STEPS)

args = [LAZAX, "train", "--dim", str(SIZE["dim"]), "--layers", str(SIZE["layers"]),
        "--heads", str(SIZE["heads"]), "--hidden", str(SIZE["hidden"]),
        "--init", path("init.safetensors"), "--batches", path("batches.npy"),
        "--schedule", "constant", "--clip", "0", "--optimizer", "adamw", "--lr", str(LR),
        "--weight-decay", str(WD), "--steps", str(STEPS), "--precision", "bf16",
        "--log", path("bf16.jsonl"), "--save", path("ckpt.safetensors"),
        "--svg", "", "--sample", "0", "--quiet"]
r = subprocess.run(args, capture_output=True, text=True, timeout=600)
if r.returncode != 0:
    print(r.stdout, r.stderr)
    raise SystemExit(f"lazax train --precision bf16 failed ({r.returncode})")
with open(path("bf16.jsonl")) as f:
    got = [json.loads(line)["loss"] for line in f]
rel = [abs(a - b) / abs(b) for a, b in zip(got, ref)]
ok = len(got) == STEPS and max(rel) <= 2e-2
print(f"{'ok  ' if ok else 'FAIL'} bf16: step 1 {got[0]:.5f} vs torch autocast {ref[0]:.5f}; "
      f"step {STEPS} {got[-1]:.5f} vs {ref[-1]:.5f}; max rel {max(rel):.1e}")
with open(path("ckpt.safetensors"), "rb") as f:
    n = int.from_bytes(f.read(8), "little")
    header = json.loads(f.read(n))
dtypes = {v["dtype"] for k, v in header.items() if k != "__metadata__"}
ck = "F32" in dtypes and not dtypes & {"BF16", "F16"}  # (and the I64 step counter)
print(f"{'ok  ' if ck else 'FAIL'} checkpoint dtypes {sorted(dtypes)}")
if not ok or not ck:
    raise SystemExit("FAILED")
