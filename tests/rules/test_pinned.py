from trainops.knowledge.pins import Pin, problem, split_image


def test_good(findings_of):
    assert findings_of("pinned", "good") == []


def test_bad_images_are_named_with_their_paths_and_lines(findings_of):
    findings = sorted(findings_of("pinned", "bad-images.yaml"), key=lambda f: f.path)
    assert [(f.line, f.path, f.message) for f in findings] == [
        (
            15,
            "spec.template.spec.containers[0].image",
            "image registry.example.com/web:latest uses a floating tag",
        ),
        (
            17,
            "spec.template.spec.containers[1].image",
            "image registry.example.com/sidecar has no tag: it runs whatever `latest` is",
        ),
        (
            12,
            "spec.template.spec.initContainers[0].image",
            "image us-central1-docker.pkg.dev/k8s-staging-images/tool comes from a staging registry; use the release registry",
        ),
    ]


def test_an_unpinned_remote_base_is_named_at_its_line(findings_of):
    [finding] = findings_of("pinned", "bad-base")
    assert finding.file.endswith("pinned/bad-base/kustomization.yaml") and finding.line == 2
    assert (
        finding.message
        == "remote base https://github.com/argoproj/argo-cd.git//manifests/crds has no ref: it follows the default branch"
    )


def test_refs_tags_and_chart_versions():
    def base(ref):
        return Pin("remote base", "https://github.com/o/r.git//d", ref, "k.yaml", 1)

    assert problem(base("v1.2.3")) is None and problem(base("ray-operator/v1.2.2")) is None
    assert problem(base("0f8735faade3651dfe44e45c6fbc30fa9152641d")) is None
    assert "not a release tag" in problem(base("main")) and "not a release tag" in problem(
        base("HEAD")
    )
    assert "not a release tag" in problem(base("0f8735f"))

    def chart(version):
        return Pin("helm chart", "repo/chart", version, "k.yaml", 1)

    assert problem(chart("1.2.3")) is None and "not an exact version" in problem(chart("~1.2"))
    assert split_image("registry:5000/team/app") == ("registry:5000/team/app", None)
    assert split_image("registry:5000/team/app:1.0") == ("registry:5000/team/app", "1.0")
