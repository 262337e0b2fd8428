"""A parse worker (trainops.model.parse_worker) that also prechecks each unit it parses:
`python -m trainops.check.unit_worker`, started by trainops.model.parse_files for a run that
checks api-validation. So a cold run finds the API server's errors of built-in objects on every
core while it parses, and reads them back from the cache (rules/api_validation.py says which)."""

from __future__ import annotations

import sys

from trainops.model import parse_worker
from trainops.rules import api_validation

if __name__ == "__main__":
    sys.exit(parse_worker.serve(api_validation.precheck_unit))
