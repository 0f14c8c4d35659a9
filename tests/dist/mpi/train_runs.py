"""What ddp.py and shard.py share: `lazax train` of the tiny decoder on N ranks (mpirun) or one
process, each step's loss read back from its --log, and the 1e-5 relative agreement check.
Both take the same arguments: MPIRUN LAZAX SCRATCH_DIR."""
import json
import os
import pathlib
import subprocess
import sys

MPIRUN, LAZAX, SCRATCH = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
COMMON = ["train", "--model", "tiny", "--quiet", "--sample", "0", "--svg", "", "--seed", "3",
          "--schedule", "constant"]  # (a run cut at step 10 then has the same learning rates)
ENV = dict(os.environ, LAZAX_NUM_THREADS="1")


def run(ranks, args):
    """Runs `lazax train` with COMMON and args; returns the command and the finished process."""
    cmd = [LAZAX, *COMMON, *args]
    if ranks > 1:
        cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *cmd]
    return cmd, subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)


def train(ranks, name, *args):
    """A run that must succeed: returns {step: loss} and its --summary JSON."""
    log, summary = SCRATCH / f"{name}.jsonl", SCRATCH / f"{name}.json"
    cmd, p = run(ranks, ["--log", str(log), "--summary", str(summary), *args])
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-2000:]}"
                         f"{p.stderr[-2000:]}")
    losses = {r["step"]: r["loss"] for r in map(json.loads, log.read_text().splitlines())}
    return losses, json.loads(summary.read_text())


def agree(what, a, b, steps):
    worst = max(abs(a[s] - b[s]) / abs(a[s]) for s in steps)
    ok = worst <= 1e-5
    print(f"{what}: steps {steps[0]}-{steps[-1]}, worst relative difference {worst:.2e}: "
          f"{'ok' if ok else 'FAILED'}")
    return ok
