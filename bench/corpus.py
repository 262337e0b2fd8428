"""A corpus of realistic Kubernetes resources for the validation benchmark (deterministic)."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

KINDS_PER_APP = 10  # Deployment, Service, ConfigMap, Job, CronJob, StatefulSet, Role, RoleBinding, PVC, NetworkPolicy


def _container(name: str, role: str, rng: random.Random) -> dict:
    """A container as real charts write them: probes, env from every source, mounts, hooks."""
    return {
        "name": role,
        "image": f"registry.example.com/team/{name}-{role}:{rng.randint(1, 9)}.{rng.randint(0, 20)}.0",
        "imagePullPolicy": "IfNotPresent",
        "command": ["/app/bin/server"],
        "args": [
            "--port=8080",
            f"--log-level={rng.choice(['info', 'debug'])}",
            "--config=/etc/app/config.yaml",
        ],
        "ports": [
            {"name": "http", "containerPort": 8080, "protocol": "TCP"},
            {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
        ],
        "env": [{"name": f"SETTING_{k}", "value": f"value-{k}"} for k in range(rng.randint(4, 10))]
        + [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {
                "name": "MEMORY_LIMIT",
                "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}},
            },
            {
                "name": "DATABASE_PASSWORD",
                "valueFrom": {"secretKeyRef": {"name": f"{name}-db", "key": "password"}},
            },
            {
                "name": "FEATURE_FLAGS",
                "valueFrom": {"configMapKeyRef": {"name": name, "key": "key-0", "optional": True}},
            },
        ],
        "envFrom": [{"configMapRef": {"name": name}}, {"secretRef": {"name": f"{name}-env"}}],
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi", "ephemeral-storage": "1Gi"},
            "limits": {"cpu": "500m", "memory": "256Mi", "ephemeral-storage": "2Gi"},
        },
        "startupProbe": {
            "httpGet": {"path": "/started", "port": "http"},
            "failureThreshold": 30,
            "periodSeconds": 2,
        },
        "readinessProbe": {
            "httpGet": {"path": "/ready", "port": "http", "scheme": "HTTP"},
            "periodSeconds": 10,
            "timeoutSeconds": 2,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "livenessProbe": {
            "httpGet": {
                "path": "/live",
                "port": "http",
                "httpHeaders": [{"name": "X-Probe", "value": "liveness"}],
            },
            "initialDelaySeconds": 10,
            "periodSeconds": 20,
            "timeoutSeconds": 3,
        },
        "lifecycle": {"preStop": {"exec": {"command": ["/bin/sh", "-c", "sleep 5"]}}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app", "readOnly": True},
            {"name": "secrets", "mountPath": "/etc/secrets", "readOnly": True},
            {"name": "podinfo", "mountPath": "/etc/podinfo", "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": "cache", "mountPath": "/var/cache/app", "subPath": role},
        ],
    }


def _pod(name: str, rng: random.Random) -> dict:
    tier = rng.choice(["web", "worker", "batch"])
    main = _container(name, "main", rng)
    sidecar = {
        "name": "metrics",
        "image": "registry.example.com/platform/exporter:2.1.0",
        "ports": [{"name": "exporter", "containerPort": 9100, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "64Mi"}},
        "readinessProbe": {"httpGet": {"path": "/metrics", "port": "exporter"}},
        "securityContext": main["securityContext"],
    }
    init = {
        "name": "migrate",
        "image": main["image"],
        "command": ["/app/bin/migrate", "--wait-for-database"],
        "env": main["env"][-3:],
        "resources": main["resources"],
        "securityContext": main["securityContext"],
        "volumeMounts": main["volumeMounts"][:2],
    }
    return {
        "metadata": {
            "labels": {"app": name, "tier": tier, "app.kubernetes.io/version": "1.0.0"},
            "annotations": {
                "prometheus.io/scrape": "true",
                "prometheus.io/port": "9090",
                "checksum/config": f"{rng.getrandbits(128):032x}",
            },
        },
        "spec": {
            "serviceAccountName": name,
            "automountServiceAccountToken": False,
            "priorityClassName": "standard",
            "terminationGracePeriodSeconds": 30,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 10001,
                "runAsGroup": 10001,
                "fsGroup": 10001,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "kubernetes.io/arch",
                                        "operator": "In",
                                        "values": ["amd64", "arm64"],
                                    },
                                    {"key": "node-pool", "operator": "In", "values": [tier]},
                                ]
                            }
                        ]
                    }
                },
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 100,
                            "podAffinityTerm": {
                                "labelSelector": {"matchLabels": {"app": name}},
                                "topologyKey": "kubernetes.io/hostname",
                            },
                        }
                    ]
                },
            },
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": {"app": name}},
                }
            ],
            "tolerations": [
                {"key": "dedicated", "operator": "Equal", "value": tier, "effect": "NoSchedule"}
            ],
            "initContainers": [init],
            "containers": [main, sidecar],
            "volumes": [
                {"name": "config", "configMap": {"name": name, "defaultMode": 420}},
                {"name": "secrets", "secret": {"secretName": f"{name}-tls", "defaultMode": 288}},
                {
                    "name": "podinfo",
                    "downwardAPI": {
                        "items": [
                            {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                            {
                                "path": "annotations",
                                "fieldRef": {"fieldPath": "metadata.annotations"},
                            },
                        ]
                    },
                },
                {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}},
                {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}},
            ],
        },
    }


def _pytorch_job(meta: dict, rng: random.Random) -> dict:
    """A Kubeflow PyTorchJob (a custom resource: its schema comes from the CRD roots)."""
    # Its pods are labelled apart from the application's, which its NetworkPolicy isolates:
    # the job's ranks reach each other on every port, as torch.distributed needs.
    pod = _pod(f"{meta['name']}-train", rng)
    pod["spec"]["restartPolicy"] = "OnFailure"
    pod["spec"]["containers"][0]["name"] = "pytorch"  # the container the operator configures
    replica = {"restartPolicy": "OnFailure", "template": pod}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {**meta, "name": f"{meta['name']}-train"},
        "spec": {
            "runPolicy": {"backoffLimit": 3, "ttlSecondsAfterFinished": 3600},
            "pytorchReplicaSpecs": {
                "Master": {**replica, "replicas": 1},
                "Worker": {**replica, "replicas": rng.randint(1, 4)},
            },
        },
    }


def app(index: int, rng: random.Random, custom: bool = False) -> list[dict]:
    """One application's resources; with `custom`, its CronJob is a PyTorchJob instead."""
    name, ns = f"app-{index}", f"team-{index % 20}"
    meta = {
        "name": name,
        "namespace": ns,
        "labels": {"app": name, "app.kubernetes.io/part-of": "bench"},
    }
    batch_pod = _pod(name, rng)
    batch_pod["spec"]["restartPolicy"] = "OnFailure"
    docs = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta,
            "spec": {
                "replicas": rng.randint(1, 5),
                "selector": {"matchLabels": {"app": name}},
                "template": _pod(name, rng),
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": meta,
            "spec": {
                "selector": {"app": name},
                "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": meta,
            "data": {f"key-{k}": f"setting {k} for {name}" for k in range(rng.randint(3, 10))},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {**meta, "name": f"{name}-migrate"},
            "spec": {"backoffLimit": 2, "ttlSecondsAfterFinished": 3600, "template": batch_pod},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {**meta, "name": f"{name}-nightly"},
            "spec": {
                "schedule": "0 3 * * *",
                "concurrencyPolicy": "Forbid",
                "jobTemplate": {"spec": {"template": batch_pod}},
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {**meta, "name": f"{name}-db"},
            "spec": {
                "serviceName": f"{name}-db",
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": _pod(name, rng),
                "volumeClaimTemplates": [
                    {
                        "metadata": {"name": "data"},
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "10Gi"}},
                        },
                    }
                ],
            },
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": meta,
            "rules": [
                {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {**meta, "name": f"{name}-cache"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "5Gi"}},
            },
        },
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": meta,
            "spec": {
                "podSelector": {"matchLabels": {"app": name}},
                "policyTypes": ["Ingress"],
                "ingress": [
                    {
                        "from": [{"podSelector": {"matchLabels": {"tier": "web"}}}],
                        "ports": [{"protocol": "TCP", "port": 8080}],
                    }
                ],
            },
        },
    ]
    if custom:
        docs[4] = _pytorch_job(meta, rng)
    return docs


class _NoAliases(yaml.SafeDumper):
    """Write shared parts out in full, as manifests do, rather than as YAML anchors."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def write_corpus(
    folder: Path, resources: int = 10_000, files: int = 200, seed: int = 7, custom: bool = False
) -> int:
    """Write `resources` objects across `files` multi-document files (one in ten a custom
    resource with `custom`); returns the count written."""
    rng = random.Random(seed)
    docs = [doc for index in range(resources // KINDS_PER_APP) for doc in app(index, rng, custom)]
    folder.mkdir(parents=True, exist_ok=True)
    per_file = -(-len(docs) // files)
    for number in range(files):
        chunk = docs[number * per_file : (number + 1) * per_file]
        (folder / f"manifests-{number:03d}.yaml").write_text(
            yaml.dump_all(chunk, Dumper=_NoAliases, sort_keys=False)
        )
    return len(docs)
