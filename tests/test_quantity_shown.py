"""Amounts as trainops prints them (capacity, quota findings): in plain digits at any size."""

from __future__ import annotations

import pytest

from trainops.model.quantity import parse, show


@pytest.mark.parametrize(
    ("resource", "amount", "shown"),
    [
        ("memory", "1140Gi", "1140Gi"),  # was 1.14e+03Gi (trainops capacity gpu)
        ("memory", "28Gi", "28Gi"),
        ("memory", "512Mi", "0.5Gi"),
        ("ephemeral-storage", "20000Gi", "20000Gi"),
        ("cpu", "95.69", "95.69"),
        ("cpu", "12345", "12345"),
        ("cpu", "250m", "250m"),
        ("nvidia.com/mig-1g.10gb", "56", "56"),
    ],
)
def test_amounts_are_shown_in_plain_digits(resource, amount, shown):
    assert show(resource, parse(amount)) == shown


def test_an_integer_past_any_float_is_no_quantity():
    with pytest.raises(ValueError, match="too large for a Kubernetes quantity"):
        parse(10**400)  # YAML reads it as an int; float() of it raised OverflowError
