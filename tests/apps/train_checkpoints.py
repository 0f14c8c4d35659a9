#!/usr/bin/python3
"""`lazax train`'s checkpoints under signals, a full disk and bad files (issue 31).

usage: train_checkpoints.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_checkpoints)

- SIGTERM (and SIGINT) mid-run: exit 143 (130), a checkpoint of the last logged step; resuming
  with --resume auto logs the same losses as an uninterrupted run, bit for bit.
- --save-every-min writes checkpoints by wall time.
- SIGUSR1 writes a checkpoint and the run goes on; a second SIGTERM ends the run at once and
  leaves the newest checkpoint loadable.
- A full disk (RLIMIT_FSIZE below a checkpoint's size): exit 1 with a message that names the
  previous checkpoint as intact; no partial or temporary file; that checkpoint still loads.
- A corrupt (flipped byte) or truncated newest checkpoint: --resume FILE is an error naming it;
  --resume auto says so and falls back to the newest intact one.
- A safetensors header with a 0xff byte: the error message escapes it (no raw byte).
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
STEPS = 300
MODEL = ["--dim", "64", "--layers", "2", "--heads", "2", "--hidden", "128", "--batch", "4",
         "--seq", "32", "--threads", "1", "--quiet", "--sample", "0", "--svg", ""]
failures = []


def check(ok, name, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def p(*names):
    return os.path.join(SCRATCH, *names)


def train(*args, steps=STEPS, **kw):
    return subprocess.run([LAZAX, "train", "--steps", str(steps)] + MODEL + list(args),
                          capture_output=True, text=True, timeout=120, **kw)


def losses(log):
    with open(log) as f:
        return [(r["step"], r["loss"]) for r in map(json.loads, f)]


def ckpts(d):
    return sorted(n for n in os.listdir(d) if n.startswith("step-") and n.endswith(".safetensors"))


def loads(path):
    r = subprocess.run([LAZAX, "sample", "--checkpoint", path, "--tokens", "1"],
                       capture_output=True, text=True, timeout=60)
    return r.returncode == 0


def lines_of(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


r = train("--log", p("ref.jsonl"))
check(r.returncode == 0, "uninterrupted run", r.stderr)
reference = losses(p("ref.jsonl"))


def interrupted(sig, status, name):
    d, log = p(name), p(name + ".jsonl")
    proc = subprocess.Popen([LAZAX, "train", "--steps", str(STEPS)] + MODEL +
                            ["--checkpoint-dir", d, "--log", log], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    while proc.poll() is None and lines_of(log) < 20:
        time.sleep(0.002)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == status, f"{name}: exit {status}", f"exit {proc.returncode}: {err}")
    logged = losses(log)
    names = ckpts(d)
    step = int(names[-1][5:13]) if names else -1
    check(0 < step < STEPS and step == logged[-1][0],
          f"{name}: a checkpoint of the last finished step ({logged[-1][0]})", f"{names}")
    r = subprocess.run([LAZAX, "train", "--steps", str(STEPS)] + MODEL +
                       ["--checkpoint-dir", d, "--log", log, "--resume", "auto"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and f"(step {step})" in r.stdout, f"{name}: --resume auto",
          r.stdout + r.stderr)
    check(losses(log) == reference, f"{name}: resumed losses equal the uninterrupted run's")


interrupted(signal.SIGTERM, 143, "sigterm")
interrupted(signal.SIGINT, 130, "sigint")

# SIGUSR1: a checkpoint, and the run goes on; then two SIGTERMs: the second ends it at once.
d = p("usr1")
proc = subprocess.Popen([LAZAX, "train", "--steps", "100000"] + MODEL + ["--checkpoint-dir", d,
                        "--log", p("usr1.jsonl")], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
while proc.poll() is None and lines_of(p("usr1.jsonl")) < 10:
    time.sleep(0.002)
proc.send_signal(signal.SIGUSR1)
deadline = time.monotonic() + 30
while proc.poll() is None and not ckpts(d) and time.monotonic() < deadline:
    time.sleep(0.002)
check(proc.poll() is None and len(ckpts(d)) == 1, "SIGUSR1 writes a checkpoint and goes on")
first = ckpts(d)
at = lines_of(p("usr1.jsonl"))
while proc.poll() is None and lines_of(p("usr1.jsonl")) < at + 10:
    time.sleep(0.002)
proc.send_signal(signal.SIGTERM)
proc.send_signal(signal.SIGTERM)
out, err = proc.communicate(timeout=60)
check(proc.returncode in (-signal.SIGTERM, 143), "two SIGTERMs end the run",
      f"exit {proc.returncode}")
names = ckpts(d)
check(bool(names) and names[0] == first[0] and all(loads(os.path.join(d, n)) for n in names),
      "after two SIGTERMs the checkpoints load", f"{names}")

# --save-every-min: a checkpoint whenever that much wall time passed (here 6 ms: several).
d = p("minutes")
r = train("--checkpoint-dir", d, "--save-every-min", "0.0001", "--keep", "1000", steps=40)
check(r.returncode == 0 and len(ckpts(d)) >= 3, "--save-every-min writes checkpoints",
      f"{ckpts(d)} {r.stderr}")

# A full disk: the run's first checkpoints fit, then RLIMIT_FSIZE is below a checkpoint's size.
d = p("full")
r = train("--checkpoint-dir", d, "--save-every", "4", steps=8)
size = os.path.getsize(os.path.join(d, ckpts(d)[-1]))


def small_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))


r = train("--checkpoint-dir", d, "--save-every", "4", "--resume", "auto", steps=16,
          preexec_fn=small_files)
msg = r.stderr.strip()
check(r.returncode == 1 and "step-00000008.safetensors is intact" in msg and
      "the checkpoint of step 12 was not written" in msg and msg.startswith("[checkpoint]"),
      "a full disk: a clear error naming the intact previous checkpoint", msg)
print("    " + msg)
check(ckpts(d) == ["step-00000004.safetensors", "step-00000008.safetensors"] and
      not [n for n in os.listdir(d) if ".tmp-" in n], "a full disk leaves no partial file",
      f"{os.listdir(d)}")
check(loads(os.path.join(d, "step-00000008.safetensors")), "a full disk: the previous one loads")

# Corrupt and truncated newest checkpoints.
d = p("corrupt")
train("--checkpoint-dir", d, "--save-every", "2", "--keep", "3", steps=6)
with open(os.path.join(d, "step-00000006.safetensors"), "r+b") as f:
    f.seek(-5, os.SEEK_END)
    b = f.read(1)
    f.seek(-5, os.SEEK_END)
    f.write(bytes([b[0] ^ 0x10]))
with open(os.path.join(d, "step-00000004.safetensors"), "r+b") as f:
    f.truncate(os.path.getsize(f.name) - 100)
bad = os.path.join(d, "step-00000006.safetensors")
r = train("--resume", bad, steps=8)
check(r.returncode == 1 and f"[checkpoint] {bad}: corrupt" in r.stderr,
      "--resume FILE with a flipped byte: an error naming it", r.stderr)
r = train("--checkpoint-dir", d, "--resume", "auto", steps=8)
check(r.returncode == 0 and "step-00000006.safetensors: corrupt" in r.stderr and
      "step-00000004.safetensors: tensor" in r.stderr and "truncated?" in r.stderr and
      "resuming from " + os.path.join(d, "step-00000002.safetensors") + " (step 2), the newest "
      "intact checkpoint" in r.stdout and
      os.path.exists(bad + ".corrupt"), "--resume auto falls back to the newest intact one",
      r.stdout + r.stderr)

# A fresh run does not write into a directory of another run's checkpoints.
r = train("--checkpoint-dir", d, steps=8)
check(r.returncode == 1 and "--resume auto" in r.stderr, "a fresh run refuses a used directory",
      r.stderr)

# Hostile bytes are escaped in messages.
header = b'{"a\xff":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
with open(p("hostile.safetensors"), "wb") as f:
    f.write(len(header).to_bytes(8, "little") + header + b"\0\0\0\0")
r = subprocess.run([LAZAX, "sample", "--checkpoint", p("hostile.safetensors")],
                   capture_output=True, timeout=60)
check(r.returncode == 1 and b"\xff" not in r.stderr and b"\\xff" in r.stderr and
      all(c >= 0x20 or c in (9, 10) for c in r.stderr), "a 0xff header byte is escaped",
      repr(r.stderr))
print("    " + r.stderr.decode().strip())

if failures:
    sys.exit(f"{len(failures)} failures: {failures}")
print("all ok")
