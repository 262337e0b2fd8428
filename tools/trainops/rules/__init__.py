"""The rules, one a module, and their registry (RULES).

Every rule is a module with ID, SEVERITY, SUMMARY, a docstring (what it catches, why it matters,
how to fix) and check(rendered, cluster) yielding findings. A rule judges with `trainops.model`
and `trainops.knowledge` and never imports another rule: what two rules share is knowledge.
"""

from __future__ import annotations

from types import ModuleType

from trainops.model.errors import CannotRun
from trainops.rules import (
    api_validation,
    capacity,
    cel_rules,
    controller_interplay,
    crd_clash,
    crd_header,
    duplicate_object,
    elastic_spot,
    empty_render,
    gitops_health,
    gitops_lifecycle,
    ignore_annotation,
    init_container_port,
    kueue_admission,
    layer_order,
    malformed_object,
    network_policy_enforced,
    network_reachability,
    no_secret_data,
    not_judged,
    operator_admission,
    partial_scope,
    pinned,
    pod_security,
    provenance,
    rbac_risk,
    render_failed,
    runnable,
    schedulable,
    schema,
    schema_missing,
    service_references,
    shared_volume_writers,
    storage,
    sync_phases,
    webhook_reach,
    workload_priority_class,
    yaml_syntax,
)

RULES: dict[str, ModuleType] = {
    module.ID: module
    for module in (
        render_failed,
        yaml_syntax,
        malformed_object,
        empty_render,
        duplicate_object,
        schema_missing,
        schema,
        cel_rules,
        api_validation,
        operator_admission,
        not_judged,
        pod_security,
        kueue_admission,
        workload_priority_class,
        storage,
        schedulable,
        capacity,
        elastic_spot,
        init_container_port,
        controller_interplay,
        provenance,
        runnable,
        shared_volume_writers,
        network_reachability,
        network_policy_enforced,
        service_references,
        partial_scope,
        layer_order,
        crd_clash,
        sync_phases,
        gitops_lifecycle,
        webhook_reach,
        gitops_health,
        pinned,
        crd_header,
        no_secret_data,
        rbac_risk,
        ignore_annotation,
    )
}


def get_rule(rule_id: str) -> ModuleType:
    try:
        return RULES[rule_id]
    except KeyError:
        raise CannotRun(f"unknown rule {rule_id!r}; known rules: {', '.join(RULES)}") from None
