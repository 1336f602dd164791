#!/usr/bin/env bash
# Runs the whole test suite N times in a row (default 20) on one build and
# stops at the first failure, keeping its log. For flaky tests: a suite that
# passes once in CI may still fail one run in ten on a busy machine.
#
#   bash Tests/Scripts/repeat.sh [N] [swift test options…]
#   bash Tests/Scripts/repeat.sh 50 --filter HotSwapTests
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
shift || true
logs=$(mktemp -d)
swift build --build-tests >"$logs/build.log" 2>&1 || { cat "$logs/build.log" >&2; exit 1; }
for run in $(seq 1 "$runs"); do
    started=$(date +%s)
    if ! swift test --skip-build "$@" >"$logs/run-$run.log" 2>&1; then
        grep -E "✘|error:" "$logs/run-$run.log" | head -40 >&2
        echo "run $run of $runs failed; its log: $logs/run-$run.log" >&2
        exit 1
    fi
    echo "run $run of $runs passed ($(grep -oE 'with [0-9]+ tests' "$logs/run-$run.log" | tail -1), $(( $(date +%s) - started )) s)"
    rm -f "$logs/run-$run.log"
done
echo "all $runs runs passed"
