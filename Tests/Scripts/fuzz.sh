#!/usr/bin/env bash
# Builds the fuzz targets (Fuzz/: the wire frames a child sends, JSON text,
# a plugin's descriptors) with libFuzzer, and runs each for SECONDS (default
# 5) from a copy of its seed corpus (Fuzz/Corpus/TARGET). Fails on the first
# finding, naming the input it kept.
#
#   bash Tests/Scripts/fuzz.sh [SECONDS] [TARGET...]
#
# To grow a corpus with what a long run found: fuzz-TARGET -merge=1 Fuzz/Corpus/TARGET RUN_FOLDER
set -euo pipefail
cd "$(dirname "$0")/../../Fuzz"
seconds=${1:-5}
shift || true
targets=("${@:-wire json descriptors}")
targets=(${targets[*]})

if ! swift build -c debug -Xswiftc -sanitize=fuzzer >build.log 2>&1; then
    cat build.log >&2
    exit 1
fi
rm -f build.log
findings=$(mktemp -d /tmp/graft-fuzz-findings.XXXXXX)
for target in "${targets[@]}"; do
    work=$(mktemp -d /tmp/graft-fuzz-$target.XXXXXX)
    cp Corpus/"$target"/* "$work"/
    log="$work.log"
    if .build/debug/fuzz-"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/$target-" "$work" >"$log" 2>&1; then
        echo "fuzz-$target: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') inputs in ${seconds} s, no finding"
        rm -rf "$work" "$log"
    else
        tail -40 "$log" >&2
        echo "fuzz-$target found a problem: the input is in $findings (run it again with .build/debug/fuzz-$target FILE)" >&2
        exit 1
    fi
done
rmdir "$findings" 2>/dev/null || true
