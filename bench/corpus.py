"""A corpus of realistic Kubernetes resources for the validation benchmark (deterministic)."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

KINDS_PER_APP = 10  # Deployment, Service, ConfigMap, Job, CronJob, StatefulSet, Role, RoleBinding, PVC, NetworkPolicy


def _pod(name: str, rng: random.Random) -> dict:
    return {
        "metadata": {"labels": {"app": name, "tier": rng.choice(["web", "worker", "batch"])}},
        "spec": {
            "serviceAccountName": name,
            "automountServiceAccountToken": False,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 10001,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": "main",
                    "image": f"registry.example.com/team/{name}:{rng.randint(1, 9)}.{rng.randint(0, 20)}.0",
                    "imagePullPolicy": "IfNotPresent",
                    "args": ["--port=8080", f"--log-level={rng.choice(['info', 'debug'])}"],
                    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                    "env": [
                        {"name": f"SETTING_{k}", "value": f"value-{k}"}
                        for k in range(rng.randint(2, 6))
                    ]
                    + [
                        {
                            "name": "POD_NAME",
                            "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
                        }
                    ],
                    "resources": {
                        "requests": {"cpu": "100m", "memory": "128Mi"},
                        "limits": {"cpu": "500m", "memory": "256Mi"},
                    },
                    "readinessProbe": {
                        "httpGet": {"path": "/ready", "port": "http"},
                        "periodSeconds": 10,
                    },
                    "livenessProbe": {
                        "httpGet": {"path": "/live", "port": "http"},
                        "initialDelaySeconds": 10,
                    },
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                    "volumeMounts": [
                        {"name": "config", "mountPath": "/etc/app"},
                        {"name": "tmp", "mountPath": "/tmp"},
                    ],
                }
            ],
            "volumes": [
                {"name": "config", "configMap": {"name": name}},
                {"name": "tmp", "emptyDir": {}},
            ],
        },
    }


def app(index: int, rng: random.Random) -> list[dict]:
    name, ns = f"app-{index}", f"team-{index % 20}"
    meta = {
        "name": name,
        "namespace": ns,
        "labels": {"app": name, "app.kubernetes.io/part-of": "bench"},
    }
    batch_pod = _pod(name, rng)
    batch_pod["spec"]["restartPolicy"] = "OnFailure"
    return [
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


def write_corpus(folder: Path, resources: int = 10_000, files: int = 200, seed: int = 7) -> int:
    """Write `resources` objects across `files` multi-document files; returns the count written."""
    rng = random.Random(seed)
    docs = [doc for index in range(resources // KINDS_PER_APP) for doc in app(index, rng)]
    folder.mkdir(parents=True, exist_ok=True)
    per_file = -(-len(docs) // files)
    for number in range(files):
        chunk = docs[number * per_file : (number + 1) * per_file]
        (folder / f"manifests-{number:03d}.yaml").write_text(
            yaml.safe_dump_all(chunk, sort_keys=False)
        )
    return len(docs)
