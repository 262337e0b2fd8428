"""Volcano v1.15.1 pkg/webhooks/admission/podgroups/validate/validate_podgroup.go validatePodGroup,
for a scheduling.volcano.sh PodGroup on CREATE: the network topology's two tiers exclusive, in
the spec and in the first subGroupPolicy that sets both. checkQueueState (the Queue exists and is
Open) reads the cluster and is left out."""

from __future__ import annotations

from trainops.knowledge.admission.volcano.selector import seen
from trainops.knowledge.apivalidation.formats import Errors
from trainops.model.shape import mapping

UPSTREAM = (
    "pkg/webhooks/admission/podgroups/validate/validate_podgroup.go validatePodGroup, "
    "Volcano v1.15.1"
)
_BOTH = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously."
)


def _both(topology: object) -> bool:
    topology = mapping(topology)
    return topology.get("highestTierAllowed") is not None and bool(topology.get("highestTierName"))


def webhook_check(doc: dict) -> Errors:
    """validateNetworkTopology, of a PodGroup validatepodgroup.volcano.sh sees."""
    if not seen(doc):
        return []
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    if _both(spec.get("networkTopology")):
        errors.append(("spec.networkTopology", _BOTH))
    policies = spec.get("subGroupPolicy")
    for index, policy in enumerate(policies if isinstance(policies, list) else []):
        policy = mapping(policy)
        if _both(policy.get("networkTopology")):
            errors.append(
                (
                    f"spec.subGroupPolicy[{index}].networkTopology",
                    f"in subGroupPolicy '{policy.get('name') or ''}': {_BOTH}",
                )
            )
            break
    return errors
