"""Data parallel `lazax train` on 2 ranks against one process on the whole batch: the losses of
20 steps of the decoder agree within 1e-5 relative (f32), and a checkpoint written with 2 ranks
resumes on 1 and the other way round, giving the uninterrupted run's losses.
Usage: ddp.py MPIRUN LAZAX SCRATCH_DIR"""
import shutil
import sys

from train_runs import SCRATCH, agree, train


def main() -> int:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    one, _ = train(1, "one", "--steps", "20")
    two, _ = train(2, "two", "--steps", "20")
    ok = agree("2 ranks vs 1 process", one, two, list(range(1, 21)))
    ok &= agree("2 ranks vs 1 process (first 2)", one, two, [1, 2])
    # Written with 2 ranks, resumed with 1; written with 1, resumed with 2.
    for first, then in ((2, 1), (1, 2)):
        ckpt = SCRATCH / f"from{first}.safetensors"
        train(first, f"head{first}", "--steps", "10", "--save", str(ckpt))
        tail, _ = train(then, f"tail{then}", "--steps", "20", "--resume", str(ckpt))
        ok &= agree(f"written on {first}, resumed on {then}", one, tail, list(range(11, 21)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
