"""Every training container in every environment calls train.py with flags it really has.

The arguments are parsed by train.py's own parser, and torchrun's by torchrun's own parser; the
elastic PyTorchJob's rendezvous store (rendezvous_store.py, its Master) by the store's, on the
port its rdzvPort names.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys

import pytest

from helpers import ENVIRONMENTS, REPO, pod_templates

TRAIN_PY = "/workspace/train.py"
STORE = ["python", "/workspace/rendezvous_store.py"]
# What Kubernetes substitutes for $(VAR) at run time, for parsing.
SAMPLE_ENV = {
    "WORLD_SIZE": "2",
    "RANK": "1",
    "MASTER_ADDR": "job-master-0",
    "MASTER_PORT": "23456",
    "PET_RDZV_ENDPOINT": "job-master-0:23456",
}


@pytest.fixture(scope="module")
def train_module():
    spec = importlib.util.spec_from_file_location(
        "train_under_test", REPO / "workloads/bookstore-ml/train/train.py"
    )
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
        command, args = (
            container.get("command") or [],
            [expand(a) for a in container.get("args") or []],
        )
        if command == ["torchrun"]:
            found.append(("torchrun", args))
        elif command == STORE:
            found.append(("store", args))
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


def _module(name: str):
    spec = importlib.util.spec_from_file_location(
        f"{name}_under_test", REPO / f"workloads/bookstore-ml/train/{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_training_container_passes_flags_train_py_has(overlays, train_module):
    seen = set()
    store_parser = _module("rendezvous_store").parser()
    for env, doc, (launcher, args) in collect(overlays):
        if launcher == "store":
            # The Master serves the rendezvous on the port the workers' endpoint names.
            policy = doc["spec"]["elasticPolicy"]
            assert policy["rdzvHost"] == f"{doc['metadata']['name']}-master-0", env
            assert store_parser.parse_args(args).port == policy["rdzvPort"], env
            seen.add((env, "store"))
            continue
        if launcher == "torchrun":
            from torch.distributed.run import get_args_parser

            parsed = get_args_parser().parse_args(args)
            assert parsed.training_script == TRAIN_PY, (env, doc["metadata"]["name"])
            args = parsed.training_script_args
        config = train_module.parse_config(args)
        assert config.model_dir == "/workspace/model", (env, doc["metadata"]["name"])
        assert config.checkpoint_dir.startswith("/workspace/model/checkpoints/"), (
            env,
            doc["metadata"]["name"],
        )
        seen.add((env, doc["kind"]))
    for env in ENVIRONMENTS:
        assert {(env, "Job"), (env, "PyTorchJob"), (env, "RayJob")} <= seen
    assert ("volcano", "Job") in seen
    assert {env for env, kind in seen if kind == "store"} == {"cloud", "gpu"}


def test_a_flag_train_py_lacks_is_caught(train_module):
    with pytest.raises(SystemExit):
        train_module.parse_config(["--model-dir=/workspace/model", "--epochs=3"])


def operator_environment(replicas: int, nproc_per_node: int, rank: int) -> dict[str, str]:
    """What the Training Operator v1.8 sets on a PyTorchJob pod with a Master
    (pkg/controller.v1/pytorch/envvar.go and master.go): WORLD_SIZE and RANK count processes."""
    return {
        "MASTER_ADDR": "job-master-0",
        "MASTER_PORT": "23456",
        "WORLD_SIZE": str(replicas * nproc_per_node),
        "RANK": str(rank),
        "PET_NNODES": str(replicas),
        "PET_NPROC_PER_NODE": str(nproc_per_node),
        "PET_NODE_RANK": str(rank),
    }


@pytest.mark.parametrize("nproc_per_node", [1, 2])
def test_torchrun_sizes_the_job_in_pods_whatever_nproc_per_node(
    overlays, monkeypatch, nproc_per_node
):
    """--nnodes=$(WORLD_SIZE) was right only while nprocPerNode was 1: it counts processes, not pods."""
    from torch.distributed.run import get_args_parser

    job = next(d for d in overlays[("kind", "workloads")] if d["kind"] == "PyTorchJob")
    replicas = sum(r.get("replicas", 1) for r in job["spec"]["pytorchReplicaSpecs"].values())
    container = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    environment = operator_environment(replicas, nproc_per_node, rank=1)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    args = [re.sub(r"\$\((\w+)\)", lambda m: environment[m.group(1)], a) for a in container["args"]]
    parsed = get_args_parser().parse_args(
        args
    )  # torchrun's PET_* fallbacks are read as the parser is built
    assert (parsed.nnodes, parsed.nproc_per_node, parsed.node_rank) == (
        str(replicas),
        str(nproc_per_node),
        1,
    )
    assert (parsed.master_addr, parsed.master_port) == ("job-master-0", 23456)
