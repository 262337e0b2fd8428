"""Differential conformance: trainops' verdict on an object against a real kube-apiserver's.

Cases are the objects every root of the repository renders, as rendered, and seeded mutations of
them (mutations.py) that follow the checks of the pinned upstream validation. A live server (the
one ../shared/tools/kube-apiserver builds, v1.32.13) is asked for each with a server-side dry-run
create through the `kubernetes` client; its verdicts and messages are recorded in
apiserver-v1.32/verdicts.jsonl.gz, so that the ordinary suite compares trainops with the server's
answers on any machine (test_recorded.py). `python tests/conformance/harness.py record` asks a
server again (TRAINOPS_TEST_KUBECONFIG names it) and writes the fixture; `... record-cases
cases/<name>.yaml...` asks about those hand-written cases alone and puts their verdicts in place of those files' earlier ones;
`... report` prints the disagreements, grouped by mutation.

What the server is asked, and what counts: CustomResourceDefinitions are installed for real first
(with their conversion webhooks dropped: no operator runs here), and every namespace and service
account the objects name is created, without Pod Security labels, so the verdict is the API
server's validation alone, not admission. A 409 (AlreadyExists) comes after validation passed:
accepted. A 422 (Invalid) or 400 (BadRequest: a field the schema does not know, a value of the
wrong type) is a rejection. Anything else (a webhook, a quota) is not a verdict on the object and
the case is dropped.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURE = HERE / "apiserver-v1.32" / "verdicts.jsonl.gz"
SERVER = "kube-apiserver v1.32.13"
KUBECONFIG_ENV = "TRAINOPS_TEST_KUBECONFIG"
FIELD_MANAGER = "trainops-conformance"
# What trainops says about an object on its own: the rules that stand for the API server's checks.
SERVER_RULES = {"schema", "api-validation", "cel-rules", "malformed-object", "yaml-syntax"}
# A finding on what an operator builds from a custom resource's template (the Pod KubeRay creates,
# the Job the JobSet controller creates): the server accepts the resource and the controller's
# request fails later, so it is no verdict on the resource itself.
CONTROLLER_BUILT = " creates from this template is rejected: "
# Kinds the server is not asked about: their objects change the server (webhooks would intercept
# every later request; an APIService would take a group over).
NOT_ASKED = {
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "APIService",
    "ValidatingAdmissionPolicyBinding",
}


@dataclass
class Case:
    id: str  # "<base digest>/<mutation>"
    mutation: str  # "as-rendered" or a mutation's id
    doc: dict
    verdict: str = ""  # "accepted" or "rejected" by the server; "" before it was asked
    message: str = ""  # the server's message when it rejected


def _digest(doc: dict) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:12]


def base_objects() -> list[dict]:
    """Every object the repository's roots render (each distinct object once)."""
    sys.path.insert(0, str(REPO / "tools"))
    from trainops.check.validate import Root, load_roots
    from trainops.model.config import load_config
    from trainops.render import kustomization
    from trainops.render.kustomize import find_kustomize
    from trainops.render.renderer import Renderer
    from trainops.rules import RULES

    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    mirror = Path(os.environ.get("TRAINOPS_MIRROR") or REPO.parent / "shared" / "mirror")
    renderer = Renderer(find_kustomize(), mirror)
    paths = kustomization.configured_roots(config) + config.crd_root_paths()
    loaded = load_roots([Root(p) for p in paths], renderer)
    found: dict[str, dict] = {}
    for result in loaded:
        for obj in result.objects:
            doc = copy.deepcopy(obj.doc)
            annotations = doc.get("metadata", {}).get("annotations") or {}
            annotations.pop("config.kubernetes.io/origin", None)
            if not annotations:
                doc.get("metadata", {}).pop("annotations", None)
            if doc.get("kind") not in NOT_ASKED:
                found.setdefault(_digest(doc), doc)
    return [found[key] for key in sorted(found)]


def make_cases(bases: list[dict]) -> list[Case]:
    from mutations import MUTATIONS, more_bases, synthetic_bases

    cases = []
    known = {_digest(x) for x in bases}
    extra = synthetic_bases(bases) + more_bases(bases)
    bases = bases + [b for b in extra if _digest(b) not in known]
    crd_sizes = sorted(
        len(json.dumps(b)) for b in bases if b.get("kind") == "CustomResourceDefinition"
    )
    small_crd = crd_sizes[2] if len(crd_sizes) > 2 else 0
    for doc in bases:
        base = _digest(doc)
        cases.append(Case(f"{base}/as-rendered", "as-rendered", doc))
        if doc.get("kind") == "CustomResourceDefinition" and len(json.dumps(doc)) > small_crd:
            continue  # mutate the three smallest CRDs only: each copy of a large one is ~100 KB
        for mutation in MUTATIONS:
            for variant, mutated in mutation.apply(doc):
                name = mutation.id + (f"[{variant}]" if variant else "")
                cases.append(Case(f"{base}/{name}", mutation.id, mutated))
    return cases


CASES = HERE / "cases"


def hand_written_cases() -> list[Case]:
    """Realistic manifests written one mistake (or one edge of the legal) at a time, apart from
    the mutations and without reading them (cases/<family>.yaml, each headed `# case: <name>`):
    what a hidden set of such cases tries, the recording answers for everyone."""
    import yaml

    found = []
    for file in sorted(CASES.glob("*.yaml")):
        for part in file.read_text().split("\n---\n"):
            name = next(
                (
                    line.removeprefix("# case: ")
                    for line in part.splitlines()
                    if line.startswith("# case: ")
                ),
                None,
            )
            doc = yaml.safe_load(part)
            if name is None or not isinstance(doc, dict):
                raise ValueError(f"{file}: a case without `# case: <name>` or an object")
            found.append(Case(f"case:{name}", f"hand-written:{file.stem}", doc))
    return found


def built_cases(cases: list[Case], bases: list[dict]) -> list[Case]:
    """What the operators build from each custom resource's pod templates (operator_pods.py: the
    Pod KubeRay creates, the Job the JobSet controller creates, the Training Operator's worker with
    its init container), as objects of their own: the server judges them as the operator's
    request, and trainops judges them as the Pods and Jobs they are."""
    sys.path.insert(0, str(REPO / "tools"))
    from trainops.knowledge.operator_pods import OPERATORS, operator_pod
    from trainops.knowledge.pod_templates import pod_templates
    from trainops.model.objects import K8sObject
    from trainops.model.rendered import Cluster, Rendered

    environment = Cluster(
        [Rendered("bases", objects=[K8sObject(b, "bases.yaml", 1) for b in bases])]
    )
    built = []
    for case in cases:
        doc = case.doc
        if str(doc.get("apiVersion", "")).rpartition("/")[0] not in OPERATORS:
            continue  # no operator builds from it (a built-in controller's Pods are the server's)
        metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        for template in pod_templates(doc):
            made = operator_pod(K8sObject(doc, "case.yaml", 1), template, environment)
            if made.error is not None:
                continue
            spec = copy.deepcopy(made.template.spec)
            labels = (
                (made.template.metadata or {}).get("labels")
                if isinstance(made.template.metadata, dict)
                else None
            )
            meta = {
                "name": f"built-{len(built)}",
                "namespace": metadata.get("namespace") or "default",
            }
            if isinstance(labels, dict):
                meta["labels"] = labels
            if made.restart_policies:  # the controller creates a Job of it
                made_doc = {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": meta,
                    "spec": {"template": {"metadata": {"labels": labels or {}}, "spec": spec}},
                }
            else:
                made_doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
            built.append(
                Case(f"{case.id}/built:{template.path}", f"{case.mutation}@built", made_doc)
            )
    return built


# --- asking the server -------------------------------------------------------------------------


def _client(kubeconfig: str):
    from kubernetes import config as kube_config
    from kubernetes import dynamic

    return dynamic.DynamicClient(kube_config.new_client_from_config(config_file=kubeconfig))


def _dry_run_create(client, path: str, doc: dict) -> tuple[int, dict]:
    """POST with dryRun=All and fieldValidation=Strict, as `kubectl apply --dry-run=server`
    validates (the dynamic client cannot ask for strict field validation): (status, body)."""
    api = client.client
    query = [("dryRun", "All"), ("fieldManager", FIELD_MANAGER), ("fieldValidation", "Strict")]
    request = api.param_serialize(
        "POST",
        path,
        query_params=query,
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body=doc,
        auth_settings=["BearerToken"],
    )
    response = api.call_api(*request)
    data = response.read()
    try:
        body = json.loads(data)
    except ValueError:
        body = {"message": data.decode(errors="replace")}
    return response.status, body


def _prepare(client, cases: list[Case]) -> None:
    """Install the CRDs (conversion webhooks dropped) and create every namespace and service
    account the cases name, for real, so a dry run meets only validation."""
    from kubernetes.dynamic.exceptions import ConflictError

    crds = client.resources.get(
        api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition"
    )
    for case in cases:
        if case.mutation == "as-rendered" and case.doc.get("kind") == "CustomResourceDefinition":
            crd = copy.deepcopy(case.doc)
            crd["spec"].pop("conversion", None)
            with contextlib.suppress(ConflictError):
                crds.create(body=crd)
    _wait_established(client)
    namespaces = {
        c.doc["metadata"].get("namespace") for c in cases if isinstance(c.doc.get("metadata"), dict)
    }
    accounts = {"default"}
    for case in cases:
        spec = case.doc.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("serviceAccountName"), str):
            accounts.add(spec["serviceAccountName"])
    namespace_api = client.resources.get(api_version="v1", kind="Namespace")
    account_api = client.resources.get(api_version="v1", kind="ServiceAccount")
    for namespace in sorted(n for n in namespaces if isinstance(n, str) and n):
        try:
            namespace_api.create(body={"metadata": {"name": namespace}})
        except ConflictError:
            pass  # made by an earlier run: its service accounts may still be missing
        except Exception:  # noqa: BLE001 - a name the server refuses (a case of its own)
            continue
        for account in sorted(accounts):
            # exists already, or a name the server refuses (a case of its own)
            with contextlib.suppress(Exception):
                account_api.create(body={"metadata": {"name": account}}, namespace=namespace)
    client.resources.invalidate_cache()


def _wait_established(client) -> None:
    import time

    crds = client.resources.get(
        api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition"
    )
    for _ in range(100):
        pending = [
            item.metadata.name
            for item in crds.get().items
            if not any(
                c.type == "Established" and c.status == "True"
                for c in (item.status.conditions or [])
            )
        ]
        if not pending:
            return
        time.sleep(0.2)


def ask(cases: list[Case], kubeconfig: str) -> list[Case]:
    """The cases the server gave a verdict on, with it."""
    from kubernetes.dynamic.exceptions import ResourceNotFoundError

    client = _client(kubeconfig)
    _prepare(client, cases)
    judged = []
    for index, case in enumerate(cases):
        doc = case.doc
        try:
            resource = client.resources.get(
                api_version=str(doc.get("apiVersion")), kind=str(doc.get("kind"))
            )
        except (ResourceNotFoundError, ValueError):
            continue
        metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        namespace = metadata.get("namespace") if resource.namespaced else None
        if resource.namespaced and not isinstance(namespace, str):
            namespace = "default"
        status, body = _dry_run_create(client, resource.path(namespace=namespace), doc)
        if status in (200, 201, 409):  # 409: AlreadyExists comes after validation passed
            case.verdict = "accepted"
        elif status in (400, 422):
            case.verdict, case.message = "rejected", str(body.get("message", ""))[:2000]
        else:
            continue  # not a verdict on the object (a webhook, a quota, a server error)
        judged.append(case)
        if index % 500 == 0:
            print(f"asked {index}/{len(cases)}", file=sys.stderr)
    return judged


# --- the fixture -------------------------------------------------------------------------------


def record(cases: list[Case], path: Path = FIXTURE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(asdict(case), sort_keys=True) + "\n" for case in cases)
    with gzip.GzipFile(path, "wb", mtime=0) as out:  # no timestamp: the same cases, the same bytes
        out.write(lines.encode())


def recorded(path: Path = FIXTURE) -> list[Case]:
    with gzip.open(path, "rt") as lines:
        return [Case(**json.loads(line)) for line in lines if line.strip()]


# --- trainops' verdicts ------------------------------------------------------------------------


def trainops_verdicts(cases: list[Case]) -> dict[str, list[str]]:
    """For each case id, the errors trainops' server rules find in it alone ([] when none): each
    case in a file of its own, the CRDs the cases install as the CRD root."""
    sys.path.insert(0, str(REPO / "tools"))

    from trainops.check.validate import Root, validate
    from trainops.model.config import Config
    from trainops.model.findings import Severity

    with tempfile.TemporaryDirectory(prefix="trainops-conformance-") as scratch:
        top = Path(scratch)
        (top / "crds").mkdir()
        (top / "cases").mkdir()
        crds = [
            c.doc
            for c in cases
            if c.mutation == "as-rendered" and c.doc.get("kind") == "CustomResourceDefinition"
        ]
        # JSON documents (YAML too): 12 MB of CRDs, which even libyaml's emitter took seconds to
        # write, PyYAML's representer being Python.
        (top / "crds" / "crds.yaml").write_text("".join(f"---\n{json.dumps(c)}\n" for c in crds))
        files = {}
        for index, case in enumerate(cases):
            file = top / "cases" / f"{index:05d}.yaml"
            file.write_text(json.dumps(case.doc))
            files[str(file)] = case.id
        config = Config(
            folder=top,
            roots=["cases"],
            crd_roots=["crds"],
            kubernetes_versions=["v1.32"],
            file=top / "trainops.yaml",
        )
        outcome = validate([Root(top / "cases")], None, 2, config, SERVER_RULES, None)
        found: dict[str, list[str]] = {case.id: [] for case in cases}
        for finding in outcome.findings:
            case_id = files.get(str(finding.file)) or files.get(str(top / str(finding.file)))
            if CONTROLLER_BUILT in finding.message:
                continue  # the Pod (or Job) an operator builds fails, not this object: see above
            if case_id is not None and finding.severity is Severity.ERROR:
                found[case_id].append(f"{finding.rule}: {finding.path or ''}: {finding.message}")
        return found


def disagreements(cases: list[Case]) -> dict[str, list[tuple[Case, list[str]]]]:
    """Cases where trainops and the server differ, by mutation: (case, trainops' errors)."""
    verdicts = trainops_verdicts(cases)
    grouped: dict[str, list[tuple[Case, list[str]]]] = defaultdict(list)
    for case in cases:
        errors = verdicts[case.id]
        if bool(errors) != (case.verdict == "rejected"):
            grouped[case.mutation].append((case, errors))
    return dict(grouped)


def summary(cases: list[Case], grouped: dict) -> str:
    kinds = Counter(str(c.doc.get("kind")) for c in cases)
    verdicts = Counter(c.verdict for c in cases)
    lines = [
        f"{len(cases)} cases of {len(kinds)} kinds judged by {SERVER}: "
        f"{verdicts['accepted']} accepted, {verdicts['rejected']} rejected",
        f"{sum(len(v) for v in grouped.values())} disagreements",
    ]
    for mutation, items in sorted(grouped.items(), key=lambda kv: -len(kv[1])):
        case, errors = items[0]
        side = (
            "trainops rejects what the server accepts"
            if errors
            else "trainops passes what the server rejects"
        )
        lines.append(
            f"  {mutation}: {len(items)} ({side}); e.g. {case.doc.get('kind')}: {(errors[0] if errors else case.message)[:200]}"
        )
    return "\n".join(lines)


def record_cases(files: list[str], kubeconfig: str) -> int:
    """Ask the server about the hand-written cases of the named files (cases/<name>.yaml) alone,
    and put its verdicts into the fixture in place of those cases' earlier ones: a new family of
    cases is recorded without rendering the repository again."""
    stems = {Path(f).stem for f in files}
    cases = [c for c in hand_written_cases() if c.mutation.removeprefix("hand-written:") in stems]
    judged = ask(cases, kubeconfig)
    fresh = {c.id for c in cases}
    asked = {f"hand-written:{stem}" for stem in stems}
    kept = [c for c in recorded() if c.id not in fresh and c.mutation not in asked]
    record(kept + judged)
    print(f"recorded {len(judged)} of {len(cases)} cases of {sorted(stems)}", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    command = argv[0] if argv else "report"
    if command == "record-cases":
        kubeconfig = os.environ.get(KUBECONFIG_ENV)
        if not kubeconfig:
            print(f"set {KUBECONFIG_ENV} to a kubeconfig of the server to ask", file=sys.stderr)
            return 2
        return record_cases(argv[1:], kubeconfig)
    if command == "record":
        kubeconfig = os.environ.get(KUBECONFIG_ENV)
        if not kubeconfig:
            print(f"set {KUBECONFIG_ENV} to a kubeconfig of the server to ask", file=sys.stderr)
            return 2
        bases = base_objects()
        cases = make_cases(bases) + hand_written_cases()
        cases += built_cases(cases, bases)
        print(f"{len(cases)} cases", file=sys.stderr)
        judged = ask(cases, kubeconfig)
        record(judged)
        print(f"recorded {len(judged)} verdicts in {FIXTURE.relative_to(REPO)}", file=sys.stderr)
        return 0
    cases = recorded()
    grouped = disagreements(cases)
    print(summary(cases, grouped))
    return 1 if grouped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
