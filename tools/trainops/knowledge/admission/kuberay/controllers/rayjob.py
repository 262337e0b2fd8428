"""KubeRay v1.2.2 ray-operator/controllers/ray/rayjob_controller.go: validateRayJobSpec. The
RayJob controller runs it on each reconcile and, when it fails, logs the error and requeues: the
RayJob is accepted by the API server and then never starts."""

from __future__ import annotations

import yaml

from trainops.model.shape import mapping

UPSTREAM = "ray-operator/controllers/ray/rayjob_controller.go validateRayJobSpec, KubeRay v1.2.2"


def validate_ray_job_spec(doc: dict) -> list[tuple[str, str]]:
    """The first refusal (upstream returns one error), at the field it concerns."""
    spec = mapping(doc.get("spec"))
    suspend = spec.get("suspend") is True
    selector = mapping(spec.get("clusterSelector"))
    if suspend and spec.get("shutdownAfterJobFinishes") is not True:
        text = "a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended"
        return [("spec.shutdownAfterJobFinishes", text)]
    if suspend and selector:
        return [
            (
                "spec.clusterSelector",
                "the ClusterSelector mode doesn't support the suspend operation",
            )
        ]
    if spec.get("rayClusterSpec") is None and not selector:
        return [("spec.rayClusterSpec", "one of RayClusterSpec or ClusterSelector must be set")]
    runtime_env = spec.get("runtimeEnvYAML")
    if isinstance(runtime_env, str) and (problem := _runtime_env_error(runtime_env)):
        return [
            ("spec.runtimeEnvYAML", f"failed to unmarshal RuntimeEnvYAML: {runtime_env}: {problem}")
        ]
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and deadline <= 0:
        return [("spec.activeDeadlineSeconds", "activeDeadlineSeconds must be a positive integer")]
    backoff = spec.get("backoffLimit")
    if isinstance(backoff, int) and backoff < 0:
        return [("spec.backoffLimit", "backoffLimit must be a positive integer")]
    return []


def _runtime_env_error(text: str) -> str | None:
    """utils.UnmarshalRuntimeEnvYAML: the text decodes (apimachinery util/yaml, YAML to JSON)
    into a map[string]interface{}; empty text is an empty map. The reason is worded here, not
    as the Go JSON decoder words it."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        return f"not YAML ({getattr(error, 'problem', None) or 'syntax error'})"
    if value is None or isinstance(value, dict):
        return None
    return f"cannot unmarshal {type(value).__name__} into Go value of type utils.RuntimeEnvType"
