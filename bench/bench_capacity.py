"""Benchmark the capacity model as a repository grows (issue #45, item 3): a warm `trainops
validate` of this repository, then of copies with 200 more Jobs in its one ClusterQueue and with
a Deployment of 2x10^9 replicas. Before the model counted replicas and bounded its search, the
Deployment ran past 120 s at 1.6 GB and four to six more Jobs past 120 s at 1.78 GB.

Each grown copy is measured with every rule and with every rule but capacity: the difference is
what the capacity model adds to the warm run. What the grown copy costs over this repository is
shown too, but is no target of this benchmark: 200 Jobs more are 1,000 objects more over the
five environments, which every other rule reads as well.

Targets: each case's capacity model adds at most 1 s and 100 MiB to a warm run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from bench_validate import MIRROR, REPO, TRAINOPS, _copy_repository, measure  # noqa: E402

WORKLOADS = Path("workloads/bookstore-ml")
JOBS = 200
REPLICAS = 2_000_000_000
MOST_SECONDS, MOST_MIB = 1.0, 100.0


def _job_template() -> dict:
    return yaml.safe_load((REPO / WORKLOADS / "job.yaml").read_text())


def _add_resource(copy: Path, name: str, docs: list[dict]) -> None:
    (copy / WORKLOADS / name).write_text(yaml.safe_dump_all(docs, sort_keys=False))
    kustomization = copy / WORKLOADS / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + f"  - {name}\n")


def _jobs(copy: Path) -> None:
    """200 Jobs like the repository's, in its queue, each asking a little less or more."""
    docs = []
    for number in range(JOBS):
        job = _job_template()
        job["metadata"]["name"] = f"recommender-train-{number}"
        [container] = job["spec"]["template"]["spec"]["containers"]
        container["resources"]["requests"] = {
            "cpu": f"{50 + number % 7 * 10}m",
            "memory": f"{64 + number % 5 * 32}Mi",
        }
        docs.append(job)
    _add_resource(copy, "bench-jobs.yaml", docs)


def _deployment(copy: Path) -> None:
    """A Deployment of 2x10^9 replicas of the training pod (a valid replica count)."""
    job = _job_template()
    template = job["spec"]["template"]
    template["spec"].pop("restartPolicy", None)
    labels = template["metadata"]["labels"]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "recommender-serve", "namespace": job["metadata"]["namespace"]},
        "spec": {"replicas": REPLICAS, "selector": {"matchLabels": labels}, "template": template},
    }
    _add_resource(copy, "bench-deployment.yaml", [deployment])


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="trainops-bench-capacity-") as folder:
        scratch = Path(folder)
        env = {"TRAINOPS_MIRROR": str(MIRROR), "TRAINOPS_CACHE_DIR": str(scratch / "cache")}
        runs: dict[str, dict] = {}
        cases = {"this repository": None, f"{JOBS} more Jobs": _jobs}
        cases[f"a Deployment of {REPLICAS:.0e} replicas"] = _deployment
        for case, grow in cases.items():
            copy = _copy_repository(scratch / f"repository-{len(runs)}")
            if grow is not None:
                grow(copy)
            command = [*TRAINOPS, "validate"]
            measure(command, copy, 1, env=env)  # fills the cache: the runs below are warm
            runs[case] = measure(command, copy, env=env)
            if grow is not None:
                ignored = [*command, "--ignore", "capacity"]
                runs[f"{case}, without capacity"] = measure(ignored, copy, env=env)
    width = max(map(len, runs))
    print(f"{'warm trainops validate':{width}}  {'seconds':>8}  {'peak MiB':>9}  {'exit':>4}")
    for name, run in runs.items():
        print(
            f"{name:{width}}  {run['seconds']:8.2f}  {run['peak_kib'] / 1024:9.0f}  {run['rc']:4}"
        )
    base = runs["this repository"]
    print()
    met_all = True
    for case in cases:
        if case == "this repository":
            continue
        run, without = runs[case], runs[f"{case}, without capacity"]
        print(
            f"{case}: {run['seconds'] - base['seconds']:+.2f} s and "
            f"{(run['peak_kib'] - base['peak_kib']) / 1024:+.0f} MiB over this repository, "
            "every rule (not a target)"
        )
        for name, value, bound, unit in (
            (f"{case}: capacity adds, s", run["seconds"] - without["seconds"], MOST_SECONDS, "s"),
            (
                f"{case}: capacity adds to the peak, MiB",
                (run["peak_kib"] - without["peak_kib"]) / 1024,
                MOST_MIB,
                "MiB",
            ),
        ):
            met = value <= bound
            met_all &= met
            print(
                f"{name:60} {value:8.2f}  target <= {bound:g} {unit:4} {'met' if met else 'MISSED'}"
            )
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
