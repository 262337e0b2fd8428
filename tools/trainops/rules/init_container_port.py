"""The Training Operator's init container waits for a port the PyTorchJob's Master serves.

What it catches: a PyTorchJob with a Master whose Master pods declare no container port that the
`init-pytorch` container waits for. The Training Operator v1.8.1 adds that init container to
every other replica's pods of a job with a Master (pkg/controller.v1/pytorch/initcontainer.go,
setInitContainer), rendered from the template file its `--pytorch-init-container-template-file`
names; the template gets the Master's address and a number of tries, never a port, so the port
it waits for is written in it (knowledge/psa/injected.py reads it).

Why it matters: until the Master accepts connections there, the workers stay in their init
container: it gives up after its tries and, under `restartPolicy: OnFailure`, starts again, so
the workers never start, the job never fails (its backoffLimit counts running pods' restarts,
v1.8.1 pkg/core/job.go, PastBackoffLimit), and Kueue evicts and requeues it at every
waitForPodsReady timeout.

How to fix: serve the Master on the port the template waits for, and declare it as the Master
container's `pytorchjob-port` (or change the template's port and every Master's together).
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.psa.injected import awaited_ports, pytorch_init, receives_pytorch_init
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings

ID = "init-container-port"
SEVERITY = Severity.ERROR
SUMMARY = "the Training Operator's init container waits for a port the PyTorchJob's Master serves"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        if obj.kind != "PyTorchJob" or obj.group != "kubeflow.org":
            continue
        specs = mapping(mapping(obj.doc.get("spec")).get("pytorchReplicaSpecs"))
        if not any(
            receives_pytorch_init(obj.doc, f"spec.pytorchReplicaSpecs.{role}.template")
            for role in specs
        ):
            continue  # no Master, or no other pod to inject into
        init = cluster.memo("pytorch-init", pytorch_init)
        awaited = awaited_ports(init)
        master = mapping(mapping(mapping(specs["Master"]).get("template")).get("spec"))
        served = {
            port.get("containerPort")
            for container in mappings(master.get("containers"))
            for port in mappings(container.get("ports"))
        }
        for port in awaited:
            if port in served:
                continue
            declared = ", ".join(str(p) for p in sorted(p for p in served if isinstance(p, int)))
            yield on_object(
                ID,
                SEVERITY,
                rendered.root,
                obj,
                f"PyTorchJob {obj.name}'s other pods wait in init-pytorch until its Master "
                f"accepts connections on port {port} ({init.source}), but the Master's pods "
                f"declare {f'ports {declared}' if declared else 'no port'}: the workers never "
                "start, and Kueue evicts the job at each waitForPodsReady timeout (Training "
                "Operator v1.8.1 pkg/controller.v1/pytorch/initcontainer.go, setInitContainer)",
                "spec.pytorchReplicaSpecs.Master.template.spec.containers",
                f"serve the Master on port {port} and declare it as its pytorchjob-port",
            )
