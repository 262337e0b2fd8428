from trainops.model.findings import Severity
from trainops.model.objects import ObjectRef


def test_good(findings_of):
    assert findings_of("pod-security", "good.yaml") == []


def test_bad_points_at_the_container_and_the_source_line(findings_of):
    [finding] = findings_of("pod-security", "bad.yaml")
    assert finding.severity is Severity.ERROR
    assert finding.object == ObjectRef("batch/v1", "Job", "training", "train")
    assert finding.line == 30  # the container's securityContext, which lacks capabilities
    assert finding.path == "spec.template.spec.containers[1].securityContext.capabilities"
    assert finding.message.startswith(
        'capabilities_restricted: unrestricted capabilities (container "sidecar" must set'
    )
    assert "restricted:v1.32 is enforced on namespace training" in finding.message
    assert "drop: [ALL]" in finding.hint


def test_a_namespace_without_labels_is_privileged(findings_of):
    assert findings_of("pod-security", "unlabelled.yaml") == []


def test_warn_labels_give_warnings_only(findings_of):
    findings = findings_of("pod-security", "warn-only.yaml")
    assert findings and all(f.severity is Severity.WARNING for f in findings)
    assert {f.message.split(":")[0] for f in findings} == {
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "runAsNonRoot",
        "seccompProfile_restricted",
    }
    assert all("restricted:v1.30 is audited/warned" in f.message for f in findings)


def test_the_init_container_the_training_operator_injects_counts(findings_of):
    findings = findings_of("pod-security", "injected.yaml")
    assert findings and {f.path.split(".spec.")[0] for f in findings} == {
        "spec.pytorchReplicaSpecs.Worker.template"
    }
    assert all(".spec.initContainers[0]." in f.path for f in findings)
    assert all(
        f.message.startswith(
            "the init-pytorch container the Training Operator injects, from the Training Operator's built-in template"
        )
        for f in findings
    )


def test_containers_volcano_and_kuberay_add_count(findings_of):
    found = {
        (f.path, f.message.split(" fails: ")[0])
        for f in findings_of("pod-security", "operator-added.yaml")
    }
    volcano = (
        "the wait-for-master init container Volcano's pytorch plugin adds to worker Pods "
        "(--wait-master-enabled)"
    )
    autoscaler = (
        "the autoscaler container KubeRay adds to the head Pod "
        "(its securityContext comes from autoscalerOptions.securityContext)"
    )
    worker = "spec.tasks[1].template.spec.initContainers[0].securityContext"
    head = "spec.headGroupSpec.template.spec.containers[1].securityContext"
    assert found == {
        (f"{worker}.allowPrivilegeEscalation", volcano),
        (f"{worker}.capabilities", volcano),
        (f"{head}.allowPrivilegeEscalation", autoscaler),
        (f"{head}.capabilities", autoscaler),
    }
    assert findings_of("pod-security", "operator-added-good.yaml") == []
