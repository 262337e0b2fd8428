"""The rule registry: every rule is a module with ID, SEVERITY, SUMMARY, a docstring and check()."""

from __future__ import annotations

from types import ModuleType

from trainops.model.errors import CannotRun
from trainops.rules import (
    api_validation,
    cel_rules,
    crd_header,
    duplicate_object,
    empty_render,
    gitops_lifecycle,
    ignore_annotation,
    kueue_admission,
    layer_order,
    malformed_object,
    network_reachability,
    no_secret_data,
    partial_scope,
    pinned,
    pod_security,
    render_failed,
    runnable,
    schedulable,
    schema,
    schema_missing,
    service_references,
    storage,
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
        pod_security,
        kueue_admission,
        storage,
        schedulable,
        runnable,
        network_reachability,
        service_references,
        partial_scope,
        layer_order,
        gitops_lifecycle,
        pinned,
        crd_header,
        no_secret_data,
        ignore_annotation,
    )
}


def get_rule(rule_id: str) -> ModuleType:
    try:
        return RULES[rule_id]
    except KeyError:
        raise CannotRun(f"unknown rule {rule_id!r}; known rules: {', '.join(RULES)}") from None
