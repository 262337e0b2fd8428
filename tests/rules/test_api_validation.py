"""api-validation: what the API server rejects though the schemas accept it, in the API server's words."""

RULE = "api-validation"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
POD = "spec.template.spec"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    found = {(f.object.kind, f.path): f.message for f in findings_of(RULE, "bad.yaml")}
    assert found[("Job", "metadata.name")] == f'Invalid value: "train_job": {SUBDOMAIN}'
    assert found[("Namespace", "metadata.name")].startswith(
        'Invalid value: "Training": a lowercase RFC 1123 label'
    )
    assert found[("Job", "metadata.labels")].startswith(
        'Invalid value: "data science": a valid label must be an empty string'
    )
    assert found[("Job", "metadata.annotations")].startswith(
        'Invalid value: "bad key": name part must consist of'
    )
    assert (
        found[("Job", "spec.backoffLimit")]
        == "Invalid value: -1: must be greater than or equal to 0"
    )
    assert found[("Job", f"{POD}.volumes[1].name")] == 'Duplicate value: "model"'
    assert found[("Job", f"{POD}.containers[1].name")] == 'Duplicate value: "train"'
    assert found[("Job", f"{POD}.containers[0].volumeMounts[0].name")] == 'Not found: "modle"'
    assert (
        found[("Job", f"{POD}.containers[0].ports[0].name")]
        == 'Invalid value: "pytorchjob-port-x": must be no more than 15 characters'
    )
    assert found[("Job", f"{POD}.containers[0].env[0].name")].startswith(
        'Invalid value: "SEED=1": a valid environment variable name must consist only of printable '
        "ASCII characters other than '='"
    )
    assert (
        found[("Job", f"{POD}.containers[0].resources.requests[cpu]")]
        == 'Invalid value: "2": must be less than or equal to cpu limit of 1'
    )
    assert (
        found[("Job", f"{POD}.containers[0].livenessProbe")]
        == "Required value: must specify a handler type"
    )
    assert (
        found[("Job", f"{POD}.restartPolicy")]
        == 'Unsupported value: "Always": supported values: "OnFailure", "Never"'
    )
    assert (
        found[("PersistentVolumeClaim", "spec.accessModes")]
        == "Required value: at least 1 access mode is required"
    )
    assert found[("PersistentVolumeClaim", "spec.resources[storage]")] == "Required value"
    assert found[("Service", "spec.ports[1].name")] == "Required value"
    assert (
        found[("NetworkPolicy", "spec.ingress[0].ports[0].endPort")]
        == "Invalid value: 30000: must be greater than or equal to `port`"  # the port, as the server says
    )
    assert found[("PyTorchJob", "metadata.namepsace")] == 'unknown field "metadata.namepsace"'
    assert found[
        ("PyTorchJob", "spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].name")
    ] == (
        'the Pod the Training Operator creates from this template is rejected: Duplicate value: "init-pytorch" '
        "(the Training Operator adds an init container of that name)"
    )
    assert found[
        ("JobSet", "spec.replicatedJobs[0].template.spec.template.spec.restartPolicy")
    ] == (
        'the Job the JobSet controller creates from this template is rejected: Unsupported value: "Always": '
        'supported values: "OnFailure", "Never"'
    )
    assert len(found) == 21
    assert all(
        f.file == "tests/rules/fixtures/api-validation/bad.yaml"
        for f in findings_of(RULE, "bad.yaml")
    )


def test_the_init_container_the_operator_injects_is_part_of_the_pod(findings_of):
    [finding] = findings_of(RULE, "bad-injected.yaml")
    assert finding.object.kind == "PyTorchJob"
    assert finding.path == "spec.pytorchReplicaSpecs.Worker.template.spec.initContainers"
    assert finding.message.startswith(
        'the Pod the Training Operator creates from this template is rejected: Invalid value: "200m": '
        "must be less than or equal to cpu limit of 100m (in the init-pytorch container the Training Operator injects, "
        "from ConfigMap pytorch-init-container"
    )


def test_more_kinds_in_the_api_servers_words(findings_of):
    found = {(f.object.kind, f.path): f.message for f in findings_of(RULE, "bad-more.yaml")}
    assert found == {
        ("CronJob", "spec.schedule"): (
            'Invalid value: "0 0 2 * * *": expected exactly 5 fields, found 6: [0 0 2 * * *]'
        ),
        ("Job", "metadata.generateName"): f'Invalid value: "Train_": {SUBDOMAIN}',
        ("Job", f"{POD}.containers[0].resources.requests[memory]"): (
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ),
        ("Service", "spec.ports[0].port"): (
            "Invalid value: 70000: must be between 1 and 65535, inclusive"
        ),
        # targetPort defaults to the port, and the server checks it too.
        ("Service", "spec.ports[0].targetPort"): (
            "Invalid value: 70000: must be between 1 and 65535, inclusive"
        ),
    }


def test_what_operators_add_to_the_pods_they_build(findings_of):
    # Each at its field's line, or the deepest key of it the source holds (Volcano sets hostname).
    found = {(f.path, f.line): f.message for f in findings_of(RULE, "bad-operator-pods.yaml")}
    volcano = "the Pod Volcano creates from this template is rejected: "
    svc = "Volcano's svc plugin (on with pytorch, tensorflow and mpi)"
    long_name = "recommender-train-volcano-with-a-longer-descriptive-name"
    assert found == {
        ("spec.tasks[0].template.spec.hostname", 22): (
            f'{volcano}Invalid value: "{long_name}-master-0": must be no more than 63 characters '
            f"(in the hostname {svc} gives each Pod: its name)"
        ),
        ("spec.tasks[1].template.spec.hostname", 33): (
            f'{volcano}Invalid value: "{long_name}-worker-0": must be no more than 63 characters '
            f"(in the hostname {svc} gives each Pod: its name)"
        ),
        ("spec.tasks[0].template.spec.containers[0].volumeMounts", 28): (
            f'{volcano}Invalid value: "/etc/volcano": must be unique '
            f"(in the mount at /etc/volcano {svc} adds to every container)"
        ),
        ("spec.tasks[1].template.spec.containers[0].ports", 38): (
            f'{volcano}Duplicate value: "pytorchjob-port" '
            "(in the pytorchjob-port port Volcano's pytorch plugin opens on container port 23456)"
        ),
        ("spec.submitterPodTemplate.spec.restartPolicy", 50): (
            "the Job KubeRay creates from this template is rejected: "
            'Unsupported value: "Always": supported values: "OnFailure", "Never"'
        ),
    }
    assert findings_of(RULE, "good-operator-pods.yaml") == []


def test_results_are_kept_by_source_and_checked_again_when_it_changes(tmp_path):
    """A warm run reads an object's errors back (keyed by its source text, trainops' code and the
    cluster's context); an edited file, or an entry that is not what was written, is checked again."""
    import json as json_module

    from helpers import RULE_FIXTURES, run_trainops, write_tree
    from trainops.model import cache

    # Large enough for its parse to be kept (a small file is parsed and checked again each run).
    job = (RULE_FIXTURES / RULE / "bad.yaml").read_text() + "# " + "padding " * 5000 + "\n"
    write_tree(tmp_path, {"app/bad.yaml": job})
    env = {"TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}

    def run():
        done = run_trainops(
            "validate", "--format", "json", "--select", RULE, "app", cwd=tmp_path, env=env
        )
        return [(f["line"], f["path"], f["message"]) for f in json_module.loads(done.stdout)]

    cold = run()
    entries = sorted((tmp_path / "cache" / "api-validation-v1").glob("*"))
    assert cold and len(entries) == 1
    assert run() == cold  # read back
    entries[0].write_bytes(b"garbage\n[]")  # fails its hash check: computed again
    assert run() == cold
    (tmp_path / "app" / "bad.yaml").write_text(job.replace("train_job", "train-job"))
    edited = run()
    assert [f for f in cold if "train_job" in f[2]] and not [
        f for f in edited if "train_job" in f[2]
    ]
    assert cache.package_digest() == cache.package_digest()


def test_gpu_sharing_resources_are_whole_and_not_overcommitted(findings_of):
    """A MIG instance or a time-sliced replica is an extended resource: the API server (v1.32.13,
    asked with --dry-run=server) refuses a fraction and a request below the limit, in these words."""
    found = {(f.object.name, f.path): f.message for f in findings_of(RULE, "bad-gpu-sharing.yaml")}
    container = f"{POD}.containers[0].resources"
    for field in ("limits", "requests"):
        assert found[
            ("half-a-mig-instance", f"{container}.{field}[nvidia.com/mig-1g.10gb]")
        ].endswith('s:"500m", Format:"DecimalSI"}: must be an integer')
    assert (
        found[("shared-request-below-limit", f"{container}.requests")]
        == 'Invalid value: "1": must be equal to nvidia.com/gpu.shared limit of 2'
    )
