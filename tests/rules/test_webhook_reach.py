from trainops.model.objects import ObjectRef

ADMISSION = "admissionregistration.k8s.io/v1"


def test_good(findings_of):
    """Scoped to the managed namespace, a webhook that fails open, and a queued Job reached."""
    assert findings_of("webhook-reach", "good.yaml") == []


def test_kueue_job_webhook_as_shipped_gates_volcanos_hook(findings_of):
    found = findings_of("webhook-reach", "bad.yaml")
    [mutating] = [
        f
        for f in found
        if f.object
        == ObjectRef(
            ADMISSION, "MutatingWebhookConfiguration", None, "kueue-mutating-webhook-configuration"
        )
    ]
    assert mutating.path == "webhooks[0].namespaceSelector"
    assert mutating.message.startswith(
        "webhook mjob.kb.io (MutatingWebhookConfiguration kueue-mutating-webhook-configuration, "
        "failurePolicy Fail) gates Job volcano-system/volcano-admission-init (Helm "
        "pre-install,pre-upgrade hook, which Argo CD runs as a sync hook): while Service "
        "kueue-system/kueue-webhook-service cannot answer, the API server refuses them"
    )


def test_a_validating_webhook_scoped_elsewhere_gates_nothing(findings_of):
    found = findings_of("webhook-reach", "bad.yaml")
    assert not [f for f in found if f.object and f.object.kind == "ValidatingWebhookConfiguration"]


def test_a_queued_job_the_webhook_does_not_reach(findings_of):
    """The mutating webhook reaches `research` (NotIn kube-system, kueue-system), so the queued
    Job there is reached; the finding is the Volcano hook only."""
    found = findings_of("webhook-reach", "bad.yaml")
    assert not [f for f in found if f.object and f.object.kind == "Job"]


def test_a_queued_job_outside_the_scoped_webhook(findings_of):
    [finding] = findings_of("webhook-reach", "bad-unreached.yaml")
    assert finding.object == ObjectRef("batch/v1", "Job", "research", "nightly")
    assert finding.path == "metadata.labels.kueue.x-k8s.io/queue-name"
    assert finding.message.startswith(
        "Job nightly names LocalQueue research-lq in namespace research, which Kueue's webhook "
        "mjob.kb.io (kueue-mutating-webhook-configuration) does not reach: it is created "
        "unsuspended"
    )


def test_a_rule_reaches_an_object_as_the_api_server_matches_its_resources():
    # As found: `jobs/*` (every subresource of jobs, and jobs themselves) was taken for none.
    # k8s.io/apiserver v0.32.13 rules/rules.go, Matcher.resource: the object itself matches
    # `jobs`, `*`, `jobs/*` and `*/*`; `jobs/status` matches its status alone.
    from trainops.knowledge import webhooks
    from trainops.model.objects import K8sObject

    job = K8sObject(
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "n"}},
        "job.yaml",
        1,
    )
    for resources, reached in (
        (["jobs"], True),
        (["*"], True),
        (["jobs/*"], True),
        (["*/*"], True),
        (["jobs/status"], False),
        (["*/status"], False),
        (["cronjobs"], False),
    ):
        hook = {
            "rules": [{"apiGroups": ["batch"], "resources": resources, "operations": ["CREATE"]}]
        }
        assert webhooks.reaches(hook, job, ("jobs", False), {}) is reached, resources
