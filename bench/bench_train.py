"""Benchmark the recommender training: time and peak memory, default and large configs, one core.

Each configuration runs in its own process pinned to one core (so peak RSS is that run's alone);
targets: the default config under 5 s, the large one under 2 GiB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRAIN_DIR = Path(__file__).resolve().parent.parent / "workloads" / "bookstore-ml" / "train"
CONFIGS = {
    "default": ([], {"seconds": 5.0}),
    "large": (
        ["--n-books", "20000", "--n-orders", "1000000", "--n-customers", "200000"],
        {"rss_mib": 2048.0},
    ),
}
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child(args: list[str]) -> None:
    """Run one training in this process and print its time and peak memory as JSON."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sys.path.insert(0, str(TRAIN_DIR))
    import train  # noqa: PLC0415  (imported after pinning, so its threads start on one core)

    with tempfile.TemporaryDirectory() as model_dir:
        started = time.perf_counter()
        with open(os.devnull, "w") as quiet:
            sys.stdout = quiet
            train.train(train.parse_config(["--model-dir", model_dir, *args]))
            sys.stdout = sys.__stdout__
        seconds = time.perf_counter() - started
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mib": rss_mib}))


def main() -> int:
    failed = False
    print(f"{'config':<8} {'seconds':>8} {'peak MiB':>9}  target")
    for name, (args, target) in CONFIGS.items():
        env = {**os.environ, **ONE_CORE}
        done = subprocess.run(
            [sys.executable, __file__, "--child", *args], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            print(f"{name}: failed\n{done.stderr}", file=sys.stderr)
            return 1
        result = json.loads(done.stdout.strip().splitlines()[-1])
        met = all(result[key] <= limit for key, limit in target.items())
        failed |= not met
        wanted = ", ".join(f"{key} <= {limit:g}" for key, limit in target.items())
        print(
            f"{name:<8} {result['seconds']:>8.2f} {result['rss_mib']:>9.0f}  {wanted}: {'met' if met else 'MISSED'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        sys.exit(main())
