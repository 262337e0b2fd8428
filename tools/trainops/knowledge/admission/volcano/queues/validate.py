"""Volcano v1.15.1 pkg/webhooks/admission/queues/validate/validate_queue.go AdmitQueues on CREATE,
for a scheduling.volcano.sh Queue: validateQueue (the quantities of capability, deserved and
guarantee; deserved between guarantee and capability; the state; the hierarchy annotations)
and, of validateHierarchicalQueue, what the Queue alone decides (it is not its own parent).
What reads other Queues through the lister (the parent's existence, depth, allocated pods,
children and siblings' sums, another Queue's hierarchy under this one) is left out."""

from __future__ import annotations

import copy

from trainops.knowledge.apivalidation.formats import Errors, parse_quantity
from trainops.knowledge.apivalidation.go_quantity import Quantity
from trainops.model.shape import mapping

UPSTREAM = "pkg/webhooks/admission/queues/validate/validate_queue.go AdmitQueues, Volcano v1.15.1"

# scheduling v1beta1 KubeHierarchyAnnotationKey and KubeHierarchyWeightAnnotationKey.
HIERARCHY = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"
_STATES = ("Open", "Closed")
_ROOT = "requestBody"  # the field.Path validateQueue builds its errors' paths from


def webhook_check(doc: dict) -> Errors:
    """AdmitQueues' errors as their aggregate, of the Queue mutatequeue.volcano.sh has
    defaulted: validateQueue's, else the parent's own check."""
    doc = default(doc)
    errors = validate_queue(doc)
    if errors:
        return errors
    name = mapping(doc.get("metadata")).get("name")
    parent = mapping(doc.get("spec")).get("parent")
    if parent not in (None, "", "root") and parent == name:
        return [("spec.parent", f"queue {name} cannot use itself as parent")]
    return []


def default(doc: dict) -> dict:
    """pkg/webhooks/admission/queues/mutate/mutate_queue.go createQueuePatch: a hierarchy and
    its weights both set, the hierarchy not under root, gain root and its weight 1 in front.
    (Reclaimable and the weight are defaulted too; no check reads them.)"""
    annotations = mapping(mapping(doc.get("metadata")).get("annotations"))
    hierarchy = str(annotations.get(HIERARCHY) or "")
    weights = str(annotations.get(WEIGHTS) or "")
    if not hierarchy or not weights or hierarchy.startswith("root"):
        return doc
    doc = copy.deepcopy(doc)
    doc["metadata"]["annotations"].update({HIERARCHY: f"root/{hierarchy}", WEIGHTS: f"1/{weights}"})
    return doc


def validate_queue(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    return (
        _quantities(spec)
        + _state(mapping(doc.get("status")).get("state"))
        + _hierarchy(mapping(mapping(doc.get("metadata")).get("annotations")))
    )


def _quantity(value: object) -> Quantity | None:
    parsed = parse_quantity(value)
    return parsed if isinstance(parsed, Quantity) else None


def _non_negative(name: str, value: object, path: str) -> Errors:
    """ValidateResourceQuantityValue's sign check (core validation ValidateNonnegativeQuantity)."""
    amount = _quantity(value)
    if amount is not None and amount.value < 0:
        return [(path, f'Invalid value: "{amount.string()}": must be greater than or equal to 0')]
    return []


def _quantities(spec: dict) -> Errors:
    """validateResourceQuantityOfQueue."""
    here = f"{_ROOT}.spec"
    capability = mapping(spec.get("capability"))
    deserved = mapping(spec.get("deserved"))
    guarantee = mapping(mapping(spec.get("guarantee")).get("resource"))
    errors: Errors = []
    for name, value in capability.items():
        errors += _non_negative(name, value, f"{here}.capability.{name}")
    for name, value in deserved.items():
        errors += _non_negative(name, value, f"{here}.deserved.{name}")
    for name, value in guarantee.items():
        errors += _non_negative(name, value, f"{here}.guarantee.resource.{name}")
        least = _quantity(value)
        if least is None:
            continue
        if name not in deserved:
            errors.append(
                (
                    f"{here}.deserved.{name}",
                    f'Invalid value: "<nil>": deserved[{name}] must be >= '
                    f"guarantee[{name}]={least.string()}",
                )
            )
            continue
        have = _quantity(deserved[name])
        if have is not None and have.value < least.value:
            errors.append(
                (
                    f"{here}.deserved.{name}",
                    f'Invalid value: "{have.string()}": deserved[{name}]={have.string()} must be '
                    f">= guarantee[{name}]={least.string()}",
                )
            )
    if deserved and capability:
        for name, value in deserved.items():
            have, most = _quantity(value), _quantity(capability.get(name))
            if have is not None and most is not None and have.value > most.value:
                errors.append(
                    (
                        f"{here}.deserved.{name}",
                        f'Invalid value: "{have.string()}": deserved[{name}]={have.string()} '
                        f"must be <= capability[{name}]={most.string()}",
                    )
                )
    return errors


def _state(state: object) -> Errors:
    """validateStateOfQueue: the status's state, when set, Open or Closed."""
    if not state or state in _STATES:
        return []
    return [
        (
            f"{_ROOT}.spec.state",
            f'Invalid value: "{state}": queue state must be in [{" ".join(_STATES)}]',
        )
    ]


def _hierarchy(annotations: dict) -> Errors:
    """validateHierarchicalAttributes, without the lister: as many weights as path parts, each
    weight a number greater than 0."""
    hierarchy = str(annotations.get(HIERARCHY) or "")
    weights = str(annotations.get(WEIGHTS) or "")
    if not hierarchy and not weights:
        return []
    where = f"{_ROOT}.metadata.annotations"
    if len(hierarchy.split("/")) != len(weights.split("/")):
        return [
            (
                where,
                f'Invalid value: "{hierarchy}": {HIERARCHY} must have the same length with '
                f"{WEIGHTS}",
            )
        ]
    for weight in weights.split("/"):
        try:
            number = float(weight)  # strconv.ParseFloat, near enough for a weight
        except ValueError:
            return [
                (
                    where,
                    f'Invalid value: "{weights}": {weight} in the {weights} is invalid number: '
                    f'strconv.ParseFloat: parsing "{weight}": invalid syntax',
                )
            ]
        if not number > 0:
            return [
                (
                    where,
                    f'Invalid value: "{weights}": {weight} in the {weights} must be larger than 0',
                )
            ]
    return []
