#!/usr/bin/env bash
# Runs the tests that share state across threads (hot swap, instances, the
# registry and its name owners, loading, the validators' lock-free reads, concurrent calls to
# isolated plugins and calls served in parallel, the runner's protocol in memory, telemetry, a host shut down
# as a service, a cold folder opened and scanned in two halves at once)
# under ThreadSanitizer, in a build folder of their own.
# Fails on any sanitizer report, not only on a failed test. THREAD_SANITIZER
# tells the runner child not to limit its address space (the sanitizer's
# shadow memory would not fit).
#
#   bash Tests/Scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --scratch-path .build-tsan --sanitize=thread -Xswiftc -DTHREAD_SANITIZER >"$log" 2>&1; then
    grep -E 'error:' "$log" >&2 || tail -20 "$log" >&2
    exit 1
fi
set +e
swift test --scratch-path .build-tsan --sanitize=thread -Xswiftc -DTHREAD_SANITIZER \
    --filter 'GraftHostTests\.(HotSwapTests|InstanceTests|RegistryTests|NameOwnershipTests|LoaderTests|ReadMostlyTests|ValidatorTests|IsolationTests/(concurrentCalls|everyAPI|isolatedSwap|renderPipelinedWithCreate)|ScannerTests/coldFolderOnTwoScanners|ParallelCallsTests|TelemetryTests|RunnerCallsTests|MemoryRunnerTests|RingTests/(streamsThroughWrapAround|waitsAndWakes|lyingPositions|emptyBell))|GraftServiceTests' 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "ThreadSanitizer reported $(grep -c 'WARNING: ThreadSanitizer' "$log") problem(s)." >&2
    exit 1
fi
exit "$status"
