#!/usr/bin/python3
"""`lazax train` killed with SIGKILL at random moments loses nothing (issue 31).

usage: train_crash.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_crash)

A short run (a 2-layer model of width 64, 400 steps, a checkpoint every 2 steps, so that about
half of its time is spent writing checkpoints) is started with `--resume auto` and killed with
SIGKILL, again and again: at random moments, and every other time as soon as a checkpoint's
temporary file appears (a kill during the write). After each kill the newest checkpoint must load
(`lazax sample` reads it, checksum included) and the next launch must resume from it; the run is
then finished, and its final checkpoint must equal that of an uninterrupted run byte for byte
(weights, optimizer state, generator, sampler, step). Takes about 15 s on 2 cores.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
KILLS = 12
ARGS = ["train", "--dim", "64", "--layers", "2", "--heads", "2", "--hidden", "128", "--batch",
        "4", "--seq", "32", "--steps", "400", "--threads", "1", "--quiet", "--sample", "0",
        "--svg", ""]
CKPT = os.path.join(SCRATCH, "run")
ARGS_RUN = ARGS + ["--checkpoint-dir", CKPT, "--save-every", "2", "--keep", "2", "--resume",
                   "auto"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def checkpoints():
    if not os.path.isdir(CKPT):
        return []
    return sorted(n for n in os.listdir(CKPT) if n.startswith("step-") and
                  n.endswith(".safetensors"))


def temporaries():
    return [n for n in os.listdir(CKPT) if ".tmp-" in n] if os.path.isdir(CKPT) else []


t0 = time.monotonic()
ref = os.path.join(SCRATCH, "reference.safetensors")
r = subprocess.run([LAZAX] + ARGS + ["--save", ref], capture_output=True, text=True, timeout=120)
if r.returncode != 0:
    print(r.stdout, r.stderr)
    sys.exit("FAIL the uninterrupted run: exit %d" % r.returncode)
ref_s = time.monotonic() - t0
print(f"uninterrupted run: {ref_s:.2f} s")

rng = random.Random(31)
mid_write = 0
previous_step = 0
for k in range(KILLS):
    p = subprocess.Popen([LAZAX] + ARGS_RUN, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    start = time.monotonic()
    # Every other kill waits for the n-th write of this launch to be in progress (its temporary
    # file seen); the others come at a random moment.
    wait_tmp = k % 2 == 1
    at = rng.uniform(0.05, 0.5 * ref_s)
    nth, seen = rng.randint(1, 12), set()
    while p.poll() is None:
        now = time.monotonic() - start
        if wait_tmp:
            seen.update(temporaries())
            if len(seen) >= nth:
                break
        elif now >= at:
            break
        if now > 3 * ref_s + 5:
            break
        time.sleep(0.0002 if wait_tmp else 0.005)
    p.send_signal(signal.SIGKILL)
    out, err = p.communicate()
    if p.returncode not in (-signal.SIGKILL, 0):
        fail(f"kill {k}: exit {p.returncode}: {err.strip()}")
    killed_writing = bool(temporaries())
    mid_write += killed_writing
    if "skipping" in err or "Error" in err:
        fail(f"kill {k}: the launch complained: {err.strip()}")
    resumed = [line for line in out.splitlines() if line.startswith("resuming from")]
    names = checkpoints()
    step = int(names[-1][5:13]) if names else 0
    when = "during a checkpoint write" if killed_writing else "between writes"
    print(f"kill {k}: after {time.monotonic() - start:.3f} s ({when}); "
          f"{resumed[0] if resumed else 'started fresh'}; newest checkpoint now step {step}")
    if step < previous_step:
        fail(f"kill {k}: the newest checkpoint went back from step {previous_step} to {step}")
    previous_step = step
    if names:
        s = subprocess.run([LAZAX, "sample", "--checkpoint", os.path.join(CKPT, names[-1]),
                            "--tokens", "1"], capture_output=True, text=True, timeout=60)
        if s.returncode != 0:
            fail(f"kill {k}: the newest checkpoint {names[-1]} does not load: {s.stderr.strip()}")

final = os.path.join(SCRATCH, "final.safetensors")
r = subprocess.run([LAZAX] + ARGS_RUN + ["--save", final], capture_output=True, text=True,
                   timeout=120)
if r.returncode != 0:
    fail(f"the finishing run: exit {r.returncode}: {r.stderr.strip()}")
elif "resuming from" not in r.stdout:
    fail("the finishing run did not resume: " + r.stdout[:300])
if temporaries():
    fail(f"temporary files left after the finishing run: {temporaries()}")
if mid_write == 0:
    fail("no kill landed during a checkpoint write")
if os.path.exists(final):
    with open(ref, "rb") as a, open(final, "rb") as b:
        same = a.read() == b.read()
    print(f"{'ok  ' if same else 'FAIL'} the final checkpoint is byte-identical to the "
          "uninterrupted run's")
    if not same:
        failures.append("final checkpoint differs")
print(f"{KILLS} kills, {mid_write} during a checkpoint write; {time.monotonic() - t0:.1f} s")
if failures:
    sys.exit(f"{len(failures)} failures: {failures}")
print("all ok")
