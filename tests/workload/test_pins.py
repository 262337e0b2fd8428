"""The training image installs exactly what the tests ran against."""

from __future__ import annotations

import re

from helpers import REPO

TRAIN_DIR = REPO / "workloads" / "bookstore-ml" / "train"


def pins(path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if match:
            found[match.group(1).lower()] = match.group(2)
    return found


def test_image_requirements_are_pinned_to_the_locked_versions():
    locked = pins(REPO / "constraints.txt")
    for name in ("requirements.txt", "requirements-torch.txt"):
        required = pins(TRAIN_DIR / name)
        assert required, name
        for package, version in required.items():
            assert locked.get(package) == version, (
                f"{name}: {package}=={version}, locked {locked.get(package)}"
            )


def test_dockerfile_runs_as_65532_with_the_training_entrypoint():
    dockerfile = (TRAIN_DIR / "Dockerfile").read_text()
    assert "USER 65532:65532" in dockerfile
    assert (
        dockerfile.count('ENTRYPOINT ["python", "/workspace/train.py"]') == 3
    )  # train, torch, cuda
    base = re.search(r"ARG PYTHON_IMAGE=(\S+)", dockerfile).group(1)
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+", base), base


def test_the_ray_image_the_rayjob_and_the_tests_use_one_ray_version():
    dockerfile = (TRAIN_DIR / "Dockerfile").read_text()
    image = re.search(r"ARG RAY_IMAGE=rayproject/ray:(\d+\.\d+\.\d+)-py311-cpu", dockerfile).group(
        1
    )
    rayjob = (REPO / "workloads" / "bookstore-ml" / "rayjob.yaml").read_text()
    assert f'rayVersion: "{image}"' in rayjob
    assert pins(REPO / "constraints.txt")["ray"] == image
