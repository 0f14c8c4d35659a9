#!/usr/bin/python3
"""`lazax train --precision params=f32,compute=bf16,output=f32` (a lazax::Policy) against PyTorch.

usage: train_policy.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_policy)
The decoder of train_torch_bf16.py from the same weights on the same batches, 50 steps, with the
model under a bf16 compute policy (its norms in f32): the losses stay within 2e-2 relative of
PyTorch's f32 losses and are not lazax's f32 losses (the compute is bf16), the checkpoint keeps
f32 weights, `lazax sample` takes the policy, and a bad policy is a usage error naming the field.
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
STEPS, LR, WD = 50, 3e-3, 0.01
SIZE = dict(dim=64, layers=2, heads=4, hidden=192, batch=4, seq=32)
POLICY = "params=f32,compute=bf16,output=f32"


def path(name):
    return os.path.join(SCRATCH, name)


text = np.frombuffer(open(__file__, "rb").read(), dtype=np.uint8).astype(np.int64)
weights, batches = tm.make_run_inputs(text, SIZE, STEPS, 1, path("init.safetensors"),
                                     path("batches.npy"))
ref = tm.train_losses(weights, batches, SIZE["layers"], SIZE["heads"], LR, WD, STEPS)


def train(precision, name, save=True):
    save_args = ["--save", path(name + ".safetensors")] if save else []
    return [r["loss"] for r in tm.lazax_train(
        LAZAX, SIZE, path("init.safetensors"), path("batches.npy"), LR, WD,
        path(name + ".jsonl"), "--steps", str(STEPS), "--precision", precision, *save_args)]


failed = []
got, f32 = train(POLICY, "policy"), train("f32", "f32", save=False)
rel = [abs(a - b) / abs(b) for a, b in zip(got, ref)]
ok = len(got) == STEPS and max(rel) <= 2e-2 and got != f32
print(f"{'ok  ' if ok else 'FAIL'} policy: step 1 {got[0]:.5f} vs torch f32 {ref[0]:.5f}; "
      f"step {STEPS} {got[-1]:.5f} vs {ref[-1]:.5f}; max rel {max(rel):.1e}; "
      f"lazax f32 step {STEPS} {f32[-1]:.5f}")
failed += [] if ok else ["losses"]

dtypes = tm.checkpoint_dtypes(path("policy.safetensors"))
ck = "F32" in dtypes and not dtypes & {"BF16", "F16"}  # (and the I64 step counter)
print(f"{'ok  ' if ck else 'FAIL'} checkpoint dtypes {sorted(dtypes)}")
failed += [] if ck else ["checkpoint"]

r = subprocess.run([LAZAX, "sample", "--checkpoint", path("policy.safetensors"),
                    "--precision", POLICY, "--tokens", "20"],
                   capture_output=True, text=True, timeout=300)
ok = r.returncode == 0 and len(r.stdout) > 0
print(f"{'ok  ' if ok else 'FAIL'} lazax sample --precision {POLICY}: rc {r.returncode}")
failed += [] if ok else ["sample"]

for bad, want in [("params=bf16,compute=bf16", "must keep params=f32"),
                  ("compute=i32", "unknown dtype 'i32' for compute"),
                  ("comp=bf16", "unknown field 'comp'"), ("bf17", "unknown precision 'bf17'")]:
    r = subprocess.run([LAZAX, "train", "--precision", bad, "--steps", "1"], capture_output=True,
                       text=True, timeout=60)
    ok = r.returncode == 2 and want in r.stderr
    print(f"{'ok  ' if ok else 'FAIL'} --precision {bad}: rc {r.returncode}, "
          f"{r.stderr.strip().splitlines()[0] if r.stderr.strip() else '(no message)'}")
    failed += [] if ok else [bad]
if failed:
    raise SystemExit("FAILED: " + ", ".join(failed))
