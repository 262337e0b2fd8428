#!/usr/bin/env bash
# The test suite's budget, measured as docs/hooks-and-ci.md states it: `make test` within three
# minutes on two cores, on a fresh clone. Clones this repository's HEAD CLONES times (default 3),
# one after another, each with ../shared beside it and empty caches (its own XDG_CACHE_HOME: pip's,
# uv's and trainops'), runs `make validate` and the test install, then times the first `make test`
# (the suite, lint beside it, make itself) and the CPU the whole machine spent meanwhile. Run it
# with nothing else running: the machine's own speed is part of every number it prints.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/../shared" 2>/dev/null && pwd) || {
  echo "test-budget: no ../shared beside $repo (the mirror and references the tests read)" >&2
  exit 2
}
clones=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CPU seconds of every process so far: user, nice, system, irq and softirq, in USER_HZ (100).
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

for n in $(seq "$clones"); do
  clone=$work/$n
  mkdir -p "$clone"
  git clone --quiet "$repo" "$clone/main"
  ln -s "$shared" "$clone/shared"
  (
    cd "$clone/main"
    export XDG_CACHE_HOME=$clone/xdg CI=true
    make validate >"$clone/validate.log" 2>&1
    make .venv/.installed-test >"$clone/install.log" 2>&1
    start=$(date +%s.%N) before=$(busy) status=0
    make test >"$clone/test.log" 2>&1 || status=$?
    end=$(date +%s.%N) after=$(busy)
    summary=$(grep -E '^=+ .*(passed|failed).* in ' "$clone/test.log" | tail -1 | tr -d '=')
    awk -v n="$n" -v s="$status" -v a="$start" -v b="$end" -v c="$before" -v d="$after" \
      -v t="$summary" 'BEGIN { printf "clone %s: make test exit %s in %.1f s, %.0f s of CPU;%s\n",
        n, s, b - a, (d - c) / 100, t }'
    [ "$status" -eq 0 ] || tail -40 "$clone/test.log"
  )
done
