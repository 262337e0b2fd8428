"""Values in messages as field.Error's ErrorBody prints them, from the one set of printers
(formats.py) every part of the port uses."""

from __future__ import annotations

from trainops.knowledge.apivalidation import meta
from trainops.knowledge.apivalidation.formats import invalid, shown


def test_both_deletion_finalizers_quote_the_list_as_the_server_does():
    # kube-apiserver v1.32.13, recorded in tests/conformance (a ConfigMap with both finalizers).
    errors = meta.validate(
        "",
        "ConfigMap",
        {"name": "argocd-cm", "finalizers": ["orphan", "foregroundDeletion"]},
        custom=False,
    )
    assert (
        "metadata.finalizers",
        'Invalid value: []string{"orphan", "foregroundDeletion"}: '
        "finalizer orphan and foregroundDeletion cannot be both set",
    ) in errors


def test_strings_are_quoted_as_strconv_quote_and_nil_is_null():
    assert invalid("café", "x") == 'Invalid value: "café": x'  # JSON would write caf\u00e9
    assert invalid("a\tb", "") == 'Invalid value: "a\\tb"'  # no trailing ": " without a detail
    assert shown(None) == "null"
    assert shown(["a", "b"]) == '[]string{"a", "b"}'
