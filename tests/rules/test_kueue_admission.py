def test_good(findings_of):
    assert findings_of("kueue-admission", "good.yaml") == []
    assert findings_of("kueue-admission", "good-split.yaml") == []


def test_a_gang_that_fits_no_flavor_whole_nor_split(findings_of, tmp_path):
    from helpers import RULE_FIXTURES

    split = (RULE_FIXTURES / "kueue-admission" / "good-split.yaml").read_text()
    (tmp_path / "tight.yaml").write_text(split.replace('nominalQuota: "4"', 'nominalQuota: "3"'))
    [finding] = findings_of("kueue-admission", tmp_path / "tight.yaml")
    assert finding.message.startswith(
        "the whole gang requests cpu 5, more than ClusterQueue team-cq"
    )


def by_name(findings):
    result = {}
    for finding in findings:
        result.setdefault(finding.object.name, []).append((finding.path, finding.message))
    return result


def test_bad(findings_of):
    found = by_name(findings_of("kueue-admission", "bad.yaml"))
    assert found["too-big"] == [
        (
            "spec",
            "the whole gang requests cpu 8, memory 8Gi, more than ClusterQueue team-cq can ever admit "
            "(flavor default-flavor: cpu 8 > 4 nominal + 2 from the cohort): the job waits forever",
        )
    ]
    assert found["unlabelled"] == [
        (
            "spec.suspend",
            "sets its suspend field to false: Kueue suspends jobs until it admits them",
        ),
        (
            "metadata.labels",
            "namespace training is Kueue-managed but the job has no kueue.x-k8s.io/queue-name label: it runs outside every quota",
        ),
    ]
    assert found["gpu"] == [
        (
            "spec",
            "requests nvidia.com/gpu (1), which ClusterQueue team-cq covers in no resource group: it is never admitted",
        )
    ]
    assert found["wrong-queue"] == [
        (
            "metadata.labels.kueue.x-k8s.io/queue-name",
            "LocalQueue nope-lq does not exist in namespace training",
        )
    ]
    assert found["interactive"] == [
        (
            "kind",
            "Kueue's configuration does not enable the ray.io/raycluster integration, so Kueue ignores this job",
        )
    ]
    assert found["keeps-cluster"] == [
        (
            "spec.shutdownAfterJobFinishes",
            "Kueue admits a RayJob only with shutdownAfterJobFinishes: true",
        ),
        (
            "spec.rayClusterSpec.enableInTreeAutoscaling",
            "Kueue does not admit a RayJob with in-tree autoscaling",
        ),
    ]
    # And nothing on the fixture's other objects (queues, flavors, the admissible jobs).
    assert found["mig"] == [
        (
            "spec",
            "requests nvidia.com/mig-1g.10gb (1), which ClusterQueue team-cq covers in no resource group: it is never admitted",
        )
    ]
    assert set(found) == {
        "too-big", "unlabelled", "gpu", "mig", "wrong-queue", "interactive", "keeps-cluster"
    }  # fmt: skip


def test_hints_name_the_real_queue(findings_of):
    hints = {(f.object.name, f.path): f.hint for f in findings_of("kueue-admission", "bad.yaml")}
    assert hints[("unlabelled", "metadata.labels")] == "label it kueue.x-k8s.io/queue-name: team-lq"
    assert (
        hints[("wrong-queue", "metadata.labels.kueue.x-k8s.io/queue-name")]
        == "label it kueue.x-k8s.io/queue-name: team-lq"
    )
