#!/usr/bin/env bash
# callgrind-step: the instructions redis-server executes per plain step
# (joinstore.BenchmarkPlainStep), counted by valgrind's callgrind — a figure
# that, unlike µs, does not move with the machine's load.
#   scripts/callgrind-step.sh [STEPS]      (default 2000)
# Needs valgrind (apt) and redis-server (make tools). Prints the EVALSHA
# instructions per step and the server's total per step, and leaves the
# profile in $CALLGRIND_OUT (default /tmp/xgr-callgrind) for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-2000}
out=${CALLGRIND_OUT:-/tmp/xgr-callgrind}
command -v valgrind >/dev/null || { echo "callgrind-step: valgrind not found: apt-get install valgrind" >&2; exit 1; }
server=${XGR_REDIS_SERVER_BIN:-$(command -v redis-server || true)}
[ -x "$server" ] || { echo "callgrind-step: redis-server not found: run \`make tools\`" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cat >"$out/redis-server" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$out/callgrind.out.%p "$server" "\$@"
WRAP
chmod +x "$out/redis-server"
XGR_REDIS_SERVER_BIN="$out/redis-server" XGR_BENCH_SHUTDOWN=1 \
	go test -run '^$' -bench '^BenchmarkPlainStep$' -benchtime "${steps}x" ./joinstore | grep -E '^(Benchmark|ok|FAIL)'
profile=$(ls -S "$out"/callgrind.out.* | head -1)
callgrind_annotate --inclusive=yes "$profile" >"$out/inclusive.txt" 2>/dev/null
total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' "$out/inclusive.txt")
evalsha=$(awk '/evalShaCommand/ { gsub(",", "", $1); print $1; exit }' "$out/inclusive.txt")
echo "redis-server instructions per plain step: EVALSHA $((evalsha / steps)), whole server $((total / steps)) ($steps steps; profile $profile)"
