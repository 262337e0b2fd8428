"""Every training container in every environment calls train.py with flags it really has.

The arguments are parsed by train.py's own parser, and torchrun's by torchrun's own parser.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys

import pytest

from helpers import ENVIRONMENTS, REPO, pod_templates

TRAIN_PY = "/workspace/train.py"
# What Kubernetes substitutes for $(VAR) at run time, for parsing.
SAMPLE_ENV = {"WORLD_SIZE": "2", "RANK": "1", "MASTER_ADDR": "job-master-0", "MASTER_PORT": "23456"}


@pytest.fixture(scope="module")
def train_module():
    spec = importlib.util.spec_from_file_location("train_under_test", REPO / "workloads/bookstore-ml/train/train.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def expand(arg: str) -> str:
    return re.sub(r"\$\((\w+)\)", lambda m: SAMPLE_ENV[m.group(1)], arg)


def train_arguments(doc: dict, template: dict) -> list[list[str]]:
    """train.py's arguments for each training container of a pod template."""
    found = []
    for container in template["spec"]["containers"]:
        if container["name"] == "ray-job-submitter":
            continue
        command, args = container.get("command") or [], [expand(a) for a in container.get("args") or []]
        if command == ["torchrun"]:
            found.append(("torchrun", args))
        elif doc["kind"] == "RayJob":
            continue  # Ray containers run Ray; the job's entrypoint runs train.py
        else:
            assert not command, f"{container['name']}: the image's entrypoint runs train.py"
            found.append(("python", args))
    return found


def collect(overlays):
    for env in ENVIRONMENTS:
        for doc in overlays[(env, "workloads")]:
            if doc["kind"] == "RayJob":
                words = shlex.split(doc["spec"]["entrypoint"])
                assert words[:2] == ["python", TRAIN_PY]
                yield env, doc, ("python", words[2:])
            for _, template in pod_templates(doc):
                for launcher in train_arguments(doc, template):
                    yield env, doc, launcher


def test_every_training_container_passes_flags_train_py_has(overlays, train_module):
    seen = set()
    for env, doc, (launcher, args) in collect(overlays):
        if launcher == "torchrun":
            from torch.distributed.run import get_args_parser

            parsed = get_args_parser().parse_args(args)
            assert parsed.training_script == TRAIN_PY, (env, doc["metadata"]["name"])
            args = parsed.training_script_args
        config = train_module.parse_config(args)
        assert config.model_dir == "/workspace/model", (env, doc["metadata"]["name"])
        assert config.checkpoint_dir.startswith("/workspace/model/checkpoints/"), (env, doc["metadata"]["name"])
        seen.add((env, doc["kind"]))
    for env in ENVIRONMENTS:
        assert {(env, "Job"), (env, "PyTorchJob"), (env, "RayJob")} <= seen
    assert ("volcano", "Job") in seen


def test_a_flag_train_py_lacks_is_caught(train_module):
    with pytest.raises(SystemExit):
        train_module.parse_config(["--model-dir=/workspace/model", "--epochs=3"])
