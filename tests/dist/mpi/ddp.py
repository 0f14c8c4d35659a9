"""Data parallel `lazax train` on 2 ranks against one process on the whole batch: the losses of
20 steps of the decoder agree within 1e-5 relative (f32), and a checkpoint written with 2 ranks
resumes on 1 and the other way round, giving the uninterrupted run's losses.
Usage: ddp.py MPIRUN LAZAX SCRATCH_DIR"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

MPIRUN, LAZAX, SCRATCH = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
COMMON = ["train", "--model", "tiny", "--quiet", "--sample", "0", "--svg", "", "--seed", "3",
          "--schedule", "constant"]  # (a run cut at step 10 then has the same learning rates)
ENV = dict(os.environ, LAZAX_NUM_THREADS="1")


def train(ranks, name, *args):
    log = SCRATCH / f"{name}.jsonl"
    cmd = [LAZAX, *COMMON, "--log", str(log), *args]
    if ranks > 1:
        cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *cmd]
    p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-2000:]}"
                         f"{p.stderr[-2000:]}")
    return {r["step"]: r["loss"] for r in map(json.loads, log.read_text().splitlines())}


def agree(what, a, b, steps):
    worst = max(abs(a[s] - b[s]) / abs(a[s]) for s in steps)
    ok = worst <= 1e-5
    print(f"{what}: steps {steps[0]}-{steps[-1]}, worst relative difference {worst:.2e}: "
          f"{'ok' if ok else 'FAILED'}")
    return ok


def main() -> int:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    one = train(1, "one", "--steps", "20")
    two = train(2, "two", "--steps", "20")
    ok = agree("2 ranks vs 1 process", one, two, list(range(1, 21)))
    ok &= agree("2 ranks vs 1 process (first 2)", one, two, [1, 2])
    # Written with 2 ranks, resumed with 1; written with 1, resumed with 2.
    for first, then in ((2, 1), (1, 2)):
        ckpt = SCRATCH / f"from{first}.safetensors"
        train(first, f"head{first}", "--steps", "10", "--save", str(ckpt))
        tail = train(then, f"tail{then}", "--steps", "20", "--resume", str(ckpt))
        ok &= agree(f"written on {first}, resumed on {then}", one, tail, list(range(11, 21)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
