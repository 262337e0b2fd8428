"""Benchmark `trainops validate`: on a heavy corpus against parsing it, and on this repository
cold, warm and after one edit, with each kustomize backend and as the tool was before its caches.

Every measurement runs in a fresh process (interpreter start included, as a user sees it) and every
contender is pinned to the same cores. Peak memory is the process tree's: the most its processes
held at once (sampled, shared pages counted once), or the largest one's own peak where that is more.
The corpus is as heavy as real manifests (full pod templates: probes, env from every source,
volumes, affinity, init containers; at least 25 MB per 10,000 resources), and trainops checks it
from inside this repository, with the CRD roots trainops.yaml configures. "Cold" starts from an
empty cache; "warm" runs again with nothing changed.

The same 10,000 objects are also laid out as a file per resource (nothing large enough to cache
alone) and with a tenth of them custom resources (Kubeflow PyTorchJobs, whose schemas the CRD
roots' renders give), each against kubeconform too.

Targets: schema checks of the corpus, warm, in at most 0.5x the time PyYAML's CSafeLoader takes
just to parse it on one core; `trainops validate` of this repository with nothing changed in at
most 10% of a cold run, after editing one workload file in at most 30%, after editing an
operator root's local file in at most 3 s (the first edit after the cold run, and the median of
three edits after it), cold in at most 10 s and no slower than before the
caches; peak memory under 400 MiB on the corpus; the API server's checks adding at most 25% to a
run of every rule, api-validation alone at most 10%; with kubeconform v0.7.0 present (given
trainops's exported schemas, -n 2, the same cores), trainops cold at most 1.0x its time on the
corpus and warm at most 0.5x, in every layout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from corpus import write_corpus  # noqa: E402
from trainops.render.kustomize import in_process  # noqa: E402
from trainops.rules import RULES  # noqa: E402

API_SERVER_RULES = ("cel-rules", "api-validation")
REPO = Path(__file__).resolve().parent.parent
MIRROR = Path(os.environ.get("TRAINOPS_MIRROR") or REPO.parent / "shared" / "mirror")
# The tool as it was before its render cache, for the "no slower cold" target.
BEFORE = os.environ.get("TRAINOPS_BENCH_BEFORE", "05f87c1")
EDITED = Path("workloads/bookstore-ml/job.yaml")
# A local file of an operator root (its remote base is the Training Operator's): what the hook
# runs when it is edited.
OPERATOR_EDITED = Path("operators/training-operator/deployment-patch.yaml")
# Edits change a value that reaches the rendered objects (a memory limit or request, lowered so
# the objects stay valid): a comment or a reformat would leave every build's output as it was, and
# every cached result after it, which is not what a user's edit does.
OPERATOR_VALUE = "memory: 512Mi"

PYTHON = sys.executable
TRAINOPS = [PYTHON, "-m", "trainops"]
CORES = sorted(os.sched_getaffinity(0))[:2]
PARSE_ONLY = (
    "import glob, sys, yaml\n"
    "for path in sorted(glob.glob(sys.argv[1] + '/*.yaml')):\n"
    "    list(yaml.load_all(open(path).read(), Loader=yaml.CSafeLoader))\n"
)
# Runs the command and samples the memory of its whole process tree (kustomize processes, the
# pykustomize helper and the parse workers included) every 10 ms, each process's proportional set
# size (shared pages split among the processes sharing them); the peak is the larger of the
# highest sum and the largest single process's own peak resident size (which catches spikes
# between samples).
MEASURE = r"""
import json, os, resource, subprocess, sys, threading, time

def tree(pid):
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as children:
                for child in children.read().split():
                    found += tree(int(child))
    except OSError:
        pass
    return found

def resident_kib(pid):
    # Proportional: a page shared by processes counts once in their sum (a child forked to run
    # a program holds all of its parent's pages until it does; resident size counted them twice).
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, IndexError):
        return 0

start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
peak_sum = 0
stderr = []
reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()))
reader.start()
ended = []
finished = threading.Event()

def wait():
    process.wait()
    ended.append(time.perf_counter())
    finished.set()

threading.Thread(target=wait).start()
while not finished.is_set():
    began = time.perf_counter()
    peak_sum = max(peak_sum, sum(resident_kib(pid) for pid in tree(process.pid)))
    # The sampler shares the contenders' cores, and reading a large process's smaps_rollup takes
    # milliseconds: every 10 ms it held a third of a core during a 3 s run of several processes.
    # So it rests twenty times what a sample took (at most a twentieth of a core); the end is
    # timed by the thread that waits for the process, not by this loop.
    finished.wait(max(0.01, 20 * (time.perf_counter() - began)))
seconds = ended[0] - start
reader.join()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "rc": process.returncode,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_kib": max(peak_sum, usage.ru_maxrss),
                  "stderr": stderr[0].decode()[-500:]}))
"""


def measure(
    argv: list[str],
    cwd: Path,
    repeat: int = 3,
    cores: list[int] = CORES,
    env: dict[str, str] | None = None,
) -> dict:
    """Best of `repeat` runs, pinned to `cores`."""
    pinned = ["taskset", "-c", ",".join(map(str, cores))] if shutil.which("taskset") else []
    best = None
    for _ in range(repeat):
        done = subprocess.run(
            [PYTHON, "-c", MEASURE, *pinned, *argv],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **(env or {})},
        )
        result = json.loads(done.stdout)
        if result["rc"] not in (0, 1):
            raise SystemExit(f"{' '.join(argv[:5])} … failed ({result['rc']}): {result['stderr']}")
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    assert best is not None
    return best


def _copy_repository(target: Path) -> Path:
    """The tracked files of this repository (the edit is made there, never here)."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    for name in listed.decode().split("\0"):
        if name and (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)
    return target


# trainops.yaml keys added after BEFORE, which its config schema would refuse; the manifests it
# renders stay today's, so both tools do the same rendering work.
_NEWER_CONFIG_KEYS = ("environments", "profiles", "images")


def _without_newer_config(repository: Path, target: Path) -> Path:
    """A copy of `repository` whose trainops.yaml the tool at BEFORE accepts."""
    shutil.copytree(repository, target, symlinks=True)
    config = yaml.safe_load((target / "trainops.yaml").read_text())
    for key in _NEWER_CONFIG_KEYS:
        config.pop(key, None)
    (target / "trainops.yaml").write_text(yaml.safe_dump(config))
    return target


def _before(scratch: Path) -> Path | None:
    """The tool's sources at BEFORE, to run with PYTHONPATH; None outside a git checkout."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", BEFORE, "tools", "schemas"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        return None
    target = scratch / "before"
    target.mkdir()
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "tools"


def corpus_runs(scratch: Path) -> tuple[int, dict[str, dict]]:
    corpus = scratch / "corpus"
    resources = write_corpus(corpus)
    files = sorted(str(p) for p in corpus.glob("*.yaml"))
    size = sum(Path(f).stat().st_size for f in files)
    print(f"corpus: {resources} resources in {len(files)} files, {size / 2**20:.1f} MiB")
    print(f"cores: {','.join(map(str, CORES))} for every contender; the parse alone on one\n")
    cache = {"TRAINOPS_CACHE_DIR": str(scratch / "corpus-cache")}
    cold = {"TRAINOPS_CACHE_DIR": str(scratch / "corpus-cold-cache")}
    schema = ["validate", "--select", "schema,schema-missing", str(corpus)]
    runs = {
        "parse only (PyYAML CSafeLoader, one core)": measure(
            [PYTHON, "-c", PARSE_ONLY, str(corpus)], corpus, cores=CORES[:1]
        ),
        "trainops schema checks, cold": measure([*TRAINOPS, *schema], REPO, 1, env=cache),
        "trainops every rule, cold": measure(
            [*TRAINOPS, "validate", str(corpus)], REPO, 1, env=cold
        ),
        "trainops schema checks, warm": measure([*TRAINOPS, *schema], REPO, env=cache),
        "trainops every rule, warm": measure(
            [*TRAINOPS, "validate", str(corpus)], REPO, 3, env=cache
        ),
        "trainops every rule but api-validation, warm": measure(
            [
                *TRAINOPS,
                "validate",
                "--select",
                ",".join(r for r in RULES if r != "api-validation"),
                str(corpus),
            ],
            REPO,
            3,
            env=cache,
        ),
        "trainops every rule but the API server's, warm": measure(
            [
                *TRAINOPS,
                "validate",
                "--select",
                ",".join(r for r in RULES if r not in API_SERVER_RULES),
                str(corpus),
            ],
            REPO,
            3,
            env=cache,
        ),
    }
    kubeconform = _kubeconform()
    schemas = scratch / "schemas"
    if kubeconform is not None:
        subprocess.run(
            [*TRAINOPS, "schemas", "--out", str(schemas)],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        runs["kubeconform v0.7.0 -n 2"] = _kubeconform_run(kubeconform, schemas, corpus)
    # The same objects as other users lay them out: a file per resource (nothing is large enough
    # to cache alone), and with custom resources, whose schemas the CRD roots' renders give.
    for layout, files, custom in LAYOUTS:
        folder = scratch / f"corpus-{layout}"
        write_corpus(folder, files=files, custom=custom)
        caches = scratch / f"cache-{layout}"
        runs[f"{layout}: trainops every rule, cold"] = measure(
            [*TRAINOPS, "validate", str(folder)],
            REPO,
            1,
            env={"TRAINOPS_CACHE_DIR": str(caches)},
        )
        runs[f"{layout}: trainops every rule, warm"] = measure(
            [*TRAINOPS, "validate", str(folder)],
            REPO,
            3,
            env={"TRAINOPS_CACHE_DIR": str(caches)},
        )
        if kubeconform is not None:
            runs[f"{layout}: kubeconform v0.7.0 -n 2"] = _kubeconform_run(
                kubeconform, schemas, folder
            )
    return resources, runs


LAYOUTS = [("a file per resource", 10_000, False), ("a tenth custom resources", 200, True)]


def _kubeconform_run(kubeconform: str, schemas: Path, corpus: Path) -> dict:
    """kubeconform offline, with the schemas trainops exports (the command in docs/checking.md),
    as fast as it goes: -n 2, one worker per core given to every contender."""
    return measure(
        [
            kubeconform, "-strict", "-summary", "-n", str(len(CORES)),
            "-kubernetes-version", "1.32.0",
            "-schema-location", f"{schemas}/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json",
            "-schema-location",
            f"{schemas}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/"
            "{{ .ResourceKind }}{{ .KindSuffix }}.json",
            str(corpus),
        ],
        corpus,
        2,
    )  # fmt: skip


def _kubeconform() -> str | None:
    """kubeconform on PATH, or where ../shared/tools/kubeconform/build.sh builds it."""
    built = Path.home() / ".cache" / "kubeconform-v0.7.0" / "kubeconform"
    return shutil.which("kubeconform") or (str(built) if os.access(built, os.X_OK) else None)


def _changed(text: str, value: str, new: str) -> str:
    if text.count(value) != 1:
        raise SystemExit(f"bench: the edited file no longer holds {value!r} once; update the bench")
    return text.replace(value, new)


def repository_runs(scratch: Path) -> dict[str, dict]:
    """`trainops validate` of a copy of this repository: cold, warm, one file edited."""
    copy = _copy_repository(scratch / "repository")
    env = {"TRAINOPS_MIRROR": str(MIRROR)}
    backends = ["pykustomize"] if in_process() is not None else []
    backends.append("kubectl" if shutil.which("kubectl") else "kustomize")
    runs: dict[str, dict] = {}
    for backend in backends:
        cache = {**env, "TRAINOPS_CACHE_DIR": str(scratch / f"cache-{backend}")}
        cache["TRAINOPS_KUSTOMIZE"] = backend
        command = [*TRAINOPS, "validate"]
        runs[f"repository, {backend}, cold"] = measure(command, copy, 1, env=cache)
        runs[f"repository, {backend}, warm"] = measure(command, copy, env=cache)
        edited = copy / EDITED
        original = edited.read_text()
        edited.write_text(_changed(original, "memory: 1Gi", "memory: 1000Mi"))
        runs[f"repository, {backend}, one workload file edited"] = measure(
            command, copy, 1, env=cache
        )
        edited.write_text(original)
        operator = copy / OPERATOR_EDITED
        original = operator.read_text()
        operator.write_text(_changed(original, OPERATOR_VALUE, "memory: 511Mi"))
        runs[f"repository, {backend}, one operator file edited"] = measure(
            [*command, str(OPERATOR_EDITED)], copy, 1, env=cache
        )
        # The first edit after a cold run reads builds without the origin annotations the cold
        # run's had (other texts, parsed anew); the edits after it, each a new value, are the
        # hook's steady state. Both are shown: one run each is noise, so the median of three.
        again = []
        for number in range(3):
            operator.write_text(_changed(original, OPERATOR_VALUE, f"memory: {510 - number}Mi"))
            again.append(measure([*command, str(OPERATOR_EDITED)], copy, 1, env=cache))
        runs[f"repository, {backend}, operator file edited again (median of 3)"] = sorted(
            again, key=lambda run: run["seconds"]
        )[1]
        operator.write_text(original)
    before = _before(scratch)
    if before is not None:
        old = {
            **env,
            "TRAINOPS_CACHE_DIR": str(scratch / "cache-before"),
            "PYTHONPATH": str(before),
        }
        old["TRAINOPS_KUSTOMIZE"] = "kubectl"
        runs[f"repository, before the caches ({BEFORE}), cold"] = measure(
            [*TRAINOPS, "validate"],
            _without_newer_config(copy, scratch / "repo-before"),
            1,
            env=old,
        )
    return runs


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="trainops-bench-") as folder:
        scratch = Path(folder)
        resources, runs = corpus_runs(scratch)
        repository = repository_runs(scratch)
    width = max(map(len, [*runs, *repository]))
    print(f"{'':{width}}  {'seconds':>8}  {'CPU s':>7}  {'resources/s':>12}  {'peak MiB':>9}")
    for name, run in runs.items():
        print(
            f"{name:{width}}  {run['seconds']:8.2f}  {run['cpu']:7.2f}  "
            f"{resources / run['seconds']:12,.0f}  {run['peak_kib'] / 1024:9.0f}"
        )
    for name, run in repository.items():
        print(
            f"{name:{width}}  {run['seconds']:8.2f}  {run['cpu']:7.2f}  {'':12}  "
            f"{run['peak_kib'] / 1024:9.0f}"
        )
    parse = runs["parse only (PyYAML CSafeLoader, one core)"]["seconds"]
    schema = runs["trainops schema checks, warm"]["seconds"]
    every = runs["trainops every rule, warm"]
    without_api_server = runs["trainops every rule but the API server's, warm"]["seconds"]
    without_api_validation = runs["trainops every rule but api-validation, warm"]["seconds"]
    backend = "pykustomize" if in_process() is not None else "kubectl"
    cold = repository[f"repository, {backend}, cold"]["seconds"]
    warm = repository[f"repository, {backend}, warm"]["seconds"]
    edited = repository[f"repository, {backend}, one workload file edited"]["seconds"]
    targets = [
        ("schema checks, warm / CSafeLoader parse", schema / parse, "<= 0.50", 0.5),
        (f"repository warm / cold ({backend})", warm / cold, "<= 0.10", 0.10),
        (f"repository one file edited / cold ({backend})", edited / cold, "<= 0.30", 0.30),
        ("peak memory of every rule, MiB", every["peak_kib"] / 1024, "< 400", 400),
        (
            f"peak memory of any run on the bench corpus ({backend}), MiB",
            max(run["peak_kib"] for name, run in runs.items() if name.startswith("trainops"))
            / 1024,
            "< 400",
            400,
        ),
        (
            "every rule / without the API server's",
            every["seconds"] / without_api_server,
            "<= 1.25",
            1.25,
        ),
        (
            "every rule / without api-validation",
            every["seconds"] / without_api_validation,
            "<= 1.10",
            1.10,
        ),
    ]
    operator_edit = repository[f"repository, {backend}, one operator file edited"]["seconds"]
    edited_again = repository[f"repository, {backend}, operator file edited again (median of 3)"]
    targets += [
        (f"repository, an operator file edited ({backend}), s", operator_edit, "<= 3", 3.0),
        (
            f"repository, an operator file edited again ({backend}), s",
            edited_again["seconds"],
            "<= 3",
            3.0,
        ),
        (f"repository cold ({backend}), s", cold, "<= 10", 10.0),
    ]
    if "kubeconform v0.7.0 -n 2" in runs:
        kubeconform = runs["kubeconform v0.7.0 -n 2"]["seconds"]
        targets += [
            (
                "corpus cold / kubeconform -n 2",
                runs["trainops every rule, cold"]["seconds"] / kubeconform,
                "<= 1.00",
                1.0,
            ),
            ("corpus warm / kubeconform -n 2", every["seconds"] / kubeconform, "<= 0.50", 0.5),
        ]
        for layout, _, _ in LAYOUTS:
            theirs = runs[f"{layout}: kubeconform v0.7.0 -n 2"]["seconds"]
            for state, bound in (("cold", 1.0), ("warm", 0.5)):
                ours = runs[f"{layout}: trainops every rule, {state}"]["seconds"]
                targets.append(
                    (f"{layout}, {state} / kubeconform", ours / theirs, f"<= {bound:.2f}", bound)
                )
    else:
        print("no kubeconform (../shared/tools/kubeconform/build.sh builds it): not compared")
    before = f"repository, before the caches ({BEFORE}), cold"
    if before in repository:
        targets.append(
            (
                f"repository cold / before ({backend})",
                cold / repository[before]["seconds"],
                "<= 1.00",
                1.0,
            )
        )
    for layout, _, _ in LAYOUTS:  # said, not a target: the bound is the bench corpus's
        peak = max(run["peak_kib"] for name, run in runs.items() if name.startswith(layout))
        print(f"peak memory on the corpus laid out as '{layout}': {peak / 1024:.0f} MiB")
    print()
    met_all = True
    for name, value, wanted, bound in targets:
        met = value <= bound
        met_all &= met
        print(f"{name:52} {value:8.2f}  target {wanted:8}  {'met' if met else 'MISSED'}")
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
