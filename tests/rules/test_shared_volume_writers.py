"""shared-volume-writers: the training script as the repository had it (scripts/pid_named.py,
its temporary file named by process id, run by the Job and the Volcano master, each pid 1 in its
own pod, writing one claim) and as fixed (scripts/unique.py: mkstemp)."""

from __future__ import annotations

from pathlib import Path

from helpers import RULE_FIXTURES, validate_fixture

RULE = "shared-volume-writers"


def test_pid_named_files_of_pods_sharing_a_claim():
    found = sorted(
        (Path(f.file).name, f.line, Path(f.roots[0]).parent.name, f.message)
        for f in validate_fixture(RULE, RULE_FIXTURES / RULE / "trainops.yaml")
    )
    writers = (
        "the pods of Job recommender-train, Job recommender-train-volcano run it writing claim "
        "recommender-model: each pod has its own PID namespace, where the entrypoint is pid 1, "
        "so their names collide in the shared volume"
    )
    assert found == [
        (
            "pid_named.py",
            8,
            "found",
            f'names a file by its process id (f".{{path.name}}.{{os.getpid()}}.tmp"), and {writers}',
        ),
        (
            "pid_named.py",
            15,
            "found",
            f'names a file by its process id ("train-%d.log" % os.getpid()), and {writers}',
        ),
    ]
    # envs/alone: one pod writes the claim (and a read-only reader writes nothing); envs/fixed
    # runs scripts/unique.py, whose pid is only printed.
