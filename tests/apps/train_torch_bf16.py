#!/usr/bin/python3
"""`lazax train --precision bf16` against PyTorch under torch.autocast("cpu", dtype=torch.bfloat16).

usage: train_torch_bf16.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_torch_bf16)
The same decoder from the same weights on the same batches (AdamW, constant lr, no clipping),
50 steps: lazax's bf16 losses must stay within 2e-2 relative of PyTorch's autocast losses, and
the checkpoint lazax writes keeps f32 weights (no bf16 tensor in it).
"""
import os
import shutil
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
weights, batches = tm.make_run_inputs(text, SIZE, STEPS, 1, path("init.safetensors"),
                                     path("batches.npy"))

with torch.autocast("cpu", dtype=torch.bfloat16):
    ref = tm.train_losses(weights, batches, SIZE["layers"], SIZE["heads"], LR, WD, STEPS)

got = [r["loss"] for r in tm.lazax_train(
    LAZAX, SIZE, path("init.safetensors"), path("batches.npy"), LR, WD, path("bf16.jsonl"),
    "--steps", str(STEPS), "--precision", "bf16", "--save", path("ckpt.safetensors"))]
rel = [abs(a - b) / abs(b) for a, b in zip(got, ref)]
ok = len(got) == STEPS and max(rel) <= 2e-2
print(f"{'ok  ' if ok else 'FAIL'} bf16: step 1 {got[0]:.5f} vs torch autocast {ref[0]:.5f}; "
      f"step {STEPS} {got[-1]:.5f} vs {ref[-1]:.5f}; max rel {max(rel):.1e}")
dtypes = tm.checkpoint_dtypes(path("ckpt.safetensors"))
ck = "F32" in dtypes and not dtypes & {"BF16", "F16"}  # (and the I64 step counter)
print(f"{'ok  ' if ck else 'FAIL'} checkpoint dtypes {sorted(dtypes)}")
if not ok or not ck:
    raise SystemExit("FAILED")
