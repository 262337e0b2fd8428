"""init-container-port: the workers' init container waits for a port the Master serves."""

from __future__ import annotations

from trainops.knowledge.psa.injected import InjectedInit, awaited_ports

RULE = "init-container-port"


def test_good(findings_of):
    """The Master declares the awaited port; a job with no Master; a template waiting by name."""
    assert findings_of(RULE, "good.yaml") == []
    assert findings_of(RULE, "good-nslookup.yaml") == []


def test_a_master_on_another_port_or_none(findings_of):
    store, portless = findings_of(RULE, "bad.yaml")
    assert store.object.name == "store"
    assert store.path == "spec.pytorchReplicaSpecs.Master.template.spec.containers"
    assert store.message.startswith(
        "PyTorchJob store's other pods wait in init-pytorch until its Master accepts connections "
        "on port 23456 (ConfigMap pytorch-init-container ("
    )
    assert "but the Master's pods declare ports 29400: the workers never start" in store.message
    assert portless.object.name == "portless"
    assert "but the Master's pods declare no port:" in portless.message


def test_the_ports_a_template_waits_for():
    def ports(*words: str) -> list[int]:
        return awaited_ports(InjectedInit([{"name": "init", "command": list(words)}], "here"))

    assert ports("sh", "-c", "nc -z job-master-0 23456; echo job-master-0:23456") == [23456]
    assert ports("sh", "-c", "until nc -z job-master-0:8080; do :; done") == [8080]
    assert ports("sh", "-c", "until nslookup job-master-0; do sleep 2; done") == []
    assert ports("sh", "-c", "nc -z other-host 23456") == []
