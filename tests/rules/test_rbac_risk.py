from trainops.model.objects import ObjectRef

RBAC = "rbac.authorization.k8s.io/v1"


def test_good(findings_of):
    """Nothing risky, Secrets of its own namespace, an unbound role, and an argued grant."""
    assert findings_of("rbac-risk", "good.yaml") == []


def test_training_operator_as_shipped(findings_of):
    found = [
        f
        for f in findings_of("rbac-risk", "bad.yaml")
        if f.object == ObjectRef(RBAC, "ClusterRole", None, "training-operator")
    ]
    assert [(f.path, f.line) for f in found] == [("rules[1]", 12), ("rules[2]", 15)]
    exec_, secrets = (f.message for f in found)
    assert exec_.startswith(
        "ClusterRole training-operator grants pods/exec create cluster-wide to ServiceAccount "
        "kubeflow/training-operator (ClusterRoleBinding training-operator): its holder runs "
        "commands in any pod"
    )
    assert "grants Secrets get/list/watch cluster-wide" in secrets
    assert secrets.endswith("(Kubernetes RBAC Good Practices, privilege escalation risks)")


def test_every_class_in_a_namespace(findings_of):
    found = findings_of("rbac-risk", "bad.yaml")
    everything: dict[str, list[str]] = {}
    for f in found:
        if f.object == ObjectRef(RBAC, "Role", "tools", "everything"):
            everything.setdefault(f.path, []).append(f.message.split(" (RoleBinding")[0])
    # The namespace's Secrets (rules[4]) are no escalation of a Role bound there.
    assert everything == {
        "rules[0]": [
            "Role everything grants verb escalate in namespace tools to ServiceAccount tools/deployer",
            "Role everything grants verb bind in namespace tools to ServiceAccount tools/deployer",
        ],
        "rules[1]": [
            "Role everything grants verb impersonate in namespace tools to ServiceAccount tools/deployer"
        ],
        "rules[2]": [
            "Role everything grants serviceaccounts/token create in namespace tools to "
            "ServiceAccount tools/deployer"
        ],
        "rules[3]": [
            "Role everything grants apiGroups '*' in namespace tools to ServiceAccount tools/deployer"
        ],
    }
    debugger = sorted(
        (f.path, f.message)
        for f in found
        if f.object == ObjectRef(RBAC, "ClusterRole", None, "debugger")
    )
    assert [path for path, _ in debugger] == ["rules[0]", "rules[1]"]
    assert (
        "grants pods/attach get in namespace tools to Group oncall (RoleBinding debugger)"
        in (debugger[0][1])
    )
    assert "grants nodes/proxy get" in debugger[1][1]


def test_volcano_secrets_where_no_job_uses_ssh(findings_of):
    """The Role shipped for Volcano's controllers in a namespace whose Volcano Job uses pytorch:
    only the ssh plugin (which mpi brings) calls the Secrets API."""
    found = findings_of("rbac-risk", "bad-volcano.yaml")
    assert [(f.object, f.path) for f in found] == [
        (ObjectRef(RBAC, "Role", "bookstore-ml", "volcano-job-secrets"), "rules[0]")
    ]
    assert found[0].message.startswith(
        "Role volcano-job-secrets grants secrets get/create/update/delete in namespace "
        "bookstore-ml to ServiceAccount volcano-system/volcano-controllers (RoleBinding "
        "volcano-job-secrets) for the Volcano Job ssh plugin"
    )
    assert "pkg/controllers/job/plugins/ssh/ssh.go" in found[0].message


def test_volcano_secrets_where_a_job_uses_mpi(findings_of):
    assert findings_of("rbac-risk", "good-volcano.yaml") == []
