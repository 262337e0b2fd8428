"""Benchmark `trainops validate` against merely parsing with libyaml, and against kubernetes-validate.

Each measurement runs in a fresh process (interpreter start included, as a user sees it), best of
three; peak memory is the process tree's maximum resident size. Targets: schema validation in at
most 0.7x the time of parsing the corpus with PyYAML's CSafeLoader on one core, at least 30x
faster than `python -m kubernetes_validate --strict`, peak memory under 400 MiB, and the checks the
API server itself makes (CEL rules, its own validation of objects and of the Pods operators build)
adding at most 25% to a run of every rule.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from corpus import write_corpus  # noqa: E402
from trainops.rules import RULES  # noqa: E402

API_SERVER_RULES = ("cel-rules", "api-validation")

PYTHON = sys.executable
TRAINOPS = str(Path(PYTHON).parent / "trainops")
PARSE_ONLY = (
    "import glob, sys, yaml\n"
    "for path in sorted(glob.glob(sys.argv[1] + '/*.yaml')):\n"
    "    list(yaml.load_all(open(path).read(), Loader=yaml.CSafeLoader))\n"
)
MEASURE = (
    "import json, resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "print(json.dumps({'seconds': time.perf_counter() - start, 'rc': done.returncode,\n"
    "                  'peak_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,\n"
    "                  'stderr': done.stderr.decode()[-500:]}))\n"
)


def measure(argv: list[str], cwd: Path, repeat: int = 3, one_core: bool = False) -> dict:
    best = None
    for _ in range(repeat):
        command = ["taskset", "-c", "0", *argv] if one_core and shutil.which("taskset") else argv
        done = subprocess.run(
            [PYTHON, "-c", MEASURE, *command], cwd=cwd, capture_output=True, text=True, check=True
        )
        result = json.loads(done.stdout)
        if result["rc"] not in (0, 1):
            raise SystemExit(f"{' '.join(argv[:4])} … failed ({result['rc']}): {result['stderr']}")
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="trainops-bench-") as scratch:
        corpus = Path(scratch) / "corpus"
        resources = write_corpus(corpus)
        # Beside the corpus, not in it: validate against one Kubernetes version, as kubernetes-validate does.
        (Path(scratch) / "trainops.yaml").write_text("kubernetesVersions: [v1.32]\n")
        files = sorted(str(p) for p in corpus.glob("*.yaml"))
        size = sum(Path(f).stat().st_size for f in files)
        print(f"corpus: {resources} resources in {len(files)} files, {size / 2**20:.1f} MiB\n")
        runs = {
            "parse only (PyYAML CSafeLoader, one core)": measure(
                [PYTHON, "-c", PARSE_ONLY, str(corpus)], corpus, one_core=True
            ),
            "trainops validate: schema checks": measure(
                [TRAINOPS, "validate", "--select", "schema,schema-missing", "corpus"], corpus.parent
            ),
            "trainops validate: every rule": measure(
                [TRAINOPS, "validate", "corpus"], corpus.parent
            ),
            "trainops validate: every rule but the API server's": measure(
                [
                    TRAINOPS,
                    "validate",
                    "--select",
                    ",".join(r for r in RULES if r not in API_SERVER_RULES),
                    "corpus",
                ],
                corpus.parent,
            ),
            "kubernetes-validate --strict": measure(
                [
                    PYTHON,
                    "-m",
                    "kubernetes_validate",
                    "--strict",
                    "--quiet",
                    "-k",
                    "1.32.0",
                    *files,
                ],
                corpus,
                repeat=1,
            ),
        }
    width = max(map(len, runs))
    print(f"{'':{width}}  {'seconds':>8}  {'resources/s':>12}  {'peak MiB':>9}")
    for name, run in runs.items():
        print(
            f"{name:{width}}  {run['seconds']:8.2f}  {resources / run['seconds']:12,.0f}  {run['peak_kib'] / 1024:9.0f}"
        )
    parse = runs["parse only (PyYAML CSafeLoader, one core)"]["seconds"]
    schema = runs["trainops validate: schema checks"]
    every = runs["trainops validate: every rule"]
    baseline = runs["kubernetes-validate --strict"]["seconds"]
    without_api_server = runs["trainops validate: every rule but the API server's"]["seconds"]
    targets = [
        (
            "schema checks / CSafeLoader parse",
            schema["seconds"] / parse,
            "<= 0.70",
            schema["seconds"] / parse <= 0.7,
        ),
        (
            "kubernetes-validate / schema checks",
            baseline / schema["seconds"],
            ">= 30",
            baseline / schema["seconds"] >= 30,
        ),
        (
            "peak memory of every rule, MiB",
            every["peak_kib"] / 1024,
            "< 400",
            every["peak_kib"] / 1024 < 400,
        ),
        (
            "every rule / without the API server's",
            every["seconds"] / without_api_server,
            "<= 1.25",
            every["seconds"] / without_api_server <= 1.25,
        ),
    ]
    print()
    for name, value, wanted, met in targets:
        print(f"{name:38} {value:8.2f}  target {wanted:8}  {'met' if met else 'MISSED'}")
    return 0 if all(met for *_, met in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
