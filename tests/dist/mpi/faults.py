"""A rank that fails ends the whole job: under `mpirun -np 2`, rank 1 of fault_driver raises, is
killed, or hangs at step 3; mpirun must exit non-zero within 10 s of the fault, and the output
must name the rank. Usage: faults.py MPIRUN FAULT_DRIVER"""
import os
import subprocess
import sys
import time

MODES = {
    # mode: what the output must contain
    "raise": "[rank 1/2] [fault_driver] rank 1 raised at step 3",
    "kill": "rank 1",
    "hang": "[rank 0/2] [dist] collective #",
}


def main() -> int:
    mpirun, driver = sys.argv[1], sys.argv[2]
    env = dict(os.environ, LAZAX_NUM_THREADS="1", LAZAX_DIST_TIMEOUT_S="2")
    failed = 0
    for mode, needle in MODES.items():
        start = time.monotonic()
        try:
            p = subprocess.run([mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2",
                                driver, mode], env=env, capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            print(f"{mode}: the job hung (still running after 60 s)")
            failed += 1
            continue
        took = time.monotonic() - start
        out = p.stdout + p.stderr
        # The fault happens after ~3 steps (well under a second); 10 s after it at most.
        ok = p.returncode != 0 and needle in out and took < 11
        print(f"{mode}: exit {p.returncode} after {took:.1f} s: {'ok' if ok else 'FAILED'}")
        if not ok:
            print(out[-3000:])
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
