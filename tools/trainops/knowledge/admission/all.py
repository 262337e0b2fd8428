"""Every operator's ports registered: importing this module imports each operator's package (which
appends its checks to CHECKS) and gives the registry, complete. Read CHECKS and checks_for from
here, not from the package itself, where only the packages imported so far have registered."""

from __future__ import annotations

from trainops.knowledge.admission import CHECKS, argocd, checks_for, flux  # noqa: F401 - registers their checks

__all__ = ["CHECKS", "checks_for"]
