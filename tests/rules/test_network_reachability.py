"""network-reachability on fixtures: each bad one is a defect the repository had, as it was."""

from trainops.model.objects import ObjectRef

RULE = "network-reachability"
POLICY_FILE = "tests/rules/fixtures/network-reachability/{}.yaml"


def paths(findings):
    return sorted((f.object.kind, f.path, f.message.split(" needs ")[0]) for f in findings)


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []
    assert findings_of(RULE, "good-webhook-backend.yaml") == []


def test_only_the_rendezvous_port_between_ranks(findings_of):
    findings = findings_of(RULE, "bad-rendezvous-port-only.yaml")
    assert paths(findings) == [
        (
            "PyTorchJob",
            "spec.pytorchReplicaSpecs.Master.template",
            "Master of PyTorchJob ranks → Worker of PyTorchJob ranks",
        ),
        (
            "PyTorchJob",
            "spec.pytorchReplicaSpecs.Worker.template",
            "Worker of PyTorchJob ranks → Master of PyTorchJob ranks",
        ),
        (
            "PyTorchJob",
            "spec.pytorchReplicaSpecs.Worker.template",
            "Worker of PyTorchJob ranks → Worker of PyTorchJob ranks",
        ),
    ]
    first = findings[0]
    assert first.object == ObjectRef("kubeflow.org/v1", "PyTorchJob", "training", "ranks")
    assert first.file == POLICY_FILE.format("bad-rendezvous-port-only")
    assert first.line == 113  # the Master template, the path the finding names
    assert "needs every TCP port" in first.message
    assert "but only TCP 23456 may pass (TCP 1-23455, 23457-65535 blocked)" in first.message
    policy = (
        f"NetworkPolicy training/allow-ranks ({POLICY_FILE.format('bad-rendezvous-port-only')}:39)"
    )
    assert "its egress is limited by" in first.message and policy in first.message
    assert "its ingress is limited by" in first.message


def test_operator_cannot_poll_the_dashboard(findings_of):
    [finding] = findings_of(RULE, "bad-operator-dashboard.yaml")
    assert finding.object == ObjectRef("ray.io/v1", "RayJob", "training", "ray")
    assert finding.path == "spec.rayClusterSpec.headGroupSpec.template"
    assert finding.message.startswith(
        "the KubeRay operator (ray-system/kuberay-operator) → head of RayJob ray needs TCP 8265 "
        "(KubeRay's RayJob controller polls the head's dashboard for the job's status), but nothing may pass"
    )
    assert "its ingress is limited by" in finding.message and "allow-ray" in finding.message
    assert (
        "egress" not in finding.message.split("blocked)")[1]
    )  # the operator's namespace has no policy


def test_default_deny_without_dns(findings_of):
    findings = findings_of(RULE, "bad-no-dns.yaml")
    assert {f.path for f in findings} == {
        "spec.pytorchReplicaSpecs.Master.template",
        "spec.pytorchReplicaSpecs.Worker.template",
        "spec.rayClusterSpec.headGroupSpec.template",
        "spec.rayClusterSpec.workerGroupSpecs[0].template",
        "spec.submitterPodTemplate",
    }
    assert all(
        "the cluster DNS (kube-system pods k8s-app=kube-dns) needs TCP 53; UDP 53" in f.message
        for f in findings
    )


def test_webhook_backend_isolated_from_the_api_server(findings_of):
    [finding] = findings_of(RULE, "bad-webhook-backend.yaml")
    assert finding.object == ObjectRef(
        "admissionregistration.k8s.io/v1",
        "ValidatingWebhookConfiguration",
        None,
        "operator-validating",
    )
    assert finding.path == "webhooks[0].clientConfig.service"
    assert finding.message.startswith("the API server → pods of Deployment operator needs TCP 9443")
    assert "default-deny-ingress" in finding.message


def test_jobset_ranks_left_out_of_the_rank_policy(findings_of):
    """A JobSet whose pods find each other by hostname is one distributed job (JobSet v0.12.0
    defaults network.enableDNSHostnames to true); its pods need every TCP port between them."""
    findings = findings_of(RULE, "jobset-ranks.yaml")
    assert paths(findings) == [
        (
            "JobSet",
            "spec.replicatedJobs[0].template.spec.template",
            "replicated job trainer of JobSet unlabelled → replicated job trainer of JobSet unlabelled",
        )
    ]
    assert "needs every TCP port" in findings[0].message
