"""A container or volume without a name is judged like any other (the schema rule says it needs
one), never a traceback: as found, the Pod Security checks read `container["name"]`."""

from __future__ import annotations

import pytest

from helpers import run_trainops, write_tree

NAMESPACE = (
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n  labels:\n"
    "    pod-security.kubernetes.io/enforce: restricted\n---\n"
)
JOB = (
    "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j, namespace: team}}\n"
    "spec: {{template: {{spec: {{restartPolicy: Never, containers: [{container}]{volumes}}}}}}}\n"
)
CASES = {
    "unnamed container": ("{image: busybox}", ""),
    "unnamed privileged container": ("{image: busybox, securityContext: {privileged: true}}", ""),
    "unnamed host volume": ("{name: c, image: busybox}", ", volumes: [{hostPath: {path: /etc}}]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("level", ["baseline", "restricted"])
def test_psa_judges_what_has_no_name(tmp_path, case, level):
    container, volumes = CASES[case]
    write_tree(tmp_path, {"j.yaml": NAMESPACE + JOB.format(container=container, volumes=volumes)})
    done = run_trainops("psa", "--level", level, str(tmp_path / "j.yaml"))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_judges_what_has_no_name(tmp_path, case):
    container, volumes = CASES[case]
    write_tree(tmp_path, {"j.yaml": NAMESPACE + JOB.format(container=container, volumes=volumes)})
    done = run_trainops("validate", str(tmp_path / "j.yaml"))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1 and "pod-security" in done.stdout, done.stdout
