#!/usr/bin/env bash
# bench-peers: xgr bench against the asynq chain harness (bench/peers), side by
# side on one private redis-server: ROUNDS rounds (default 3), each one run of
#   xgr bench --sessions N --concurrency C --replicas 1 examples/bench/chain10.json
#   asynqchain --chains N --length 10 --concurrency C
# with FLUSHALL before each run. Prints both figures per round and the median of
# the per-round ratios xgr steps/s ÷ asynq tasks/s, and of the CPU ratios
# (asynq's Redis + client CPU per task ÷ xgr's per step: on two cores shared
# by Redis and the client, what a step costs the machine, a figure that
# moves far less with other load than the rates do).
# Knobs: BENCH_ROUNDS, BENCH_SESSIONS (1000), BENCH_CONCURRENCY (32), and
# XGR_POLL (xgr bench --poll; default that of xgr run, 200ms).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${BENCH_ROUNDS:-3}
sessions=${BENCH_SESSIONS:-1000}
conc=${BENCH_CONCURRENCY:-32}

name=bench-peers
# shellcheck source=scripts/private-redis.sh
. scripts/private-redis.sh

echo "building xgr and bench/peers/cmd/asynqchain ..."
go build -o "$work/xgr" ./cmd/xgr
(cd bench/peers && go build -o "$work/asynqchain" ./cmd/asynqchain)

start_redis
echo "redis-server $("$server" --version | grep -o 'v=[0-9.]*') on $url; $(nproc) cores; xgr poll ${XGR_POLL:-200ms (default)}"
echo "xgr: $sessions sessions of chain10, concurrency $conc, 1 replica; asynq: $sessions chains of 10 tasks, concurrency $conc"

field() { # json name → number
	grep -o "\"$2\":[0-9.e+-]*" <<<"$1" | head -1 | cut -d: -f2
}
ratios=()
cpus=()
xs=()
as=()
for r in $(seq "$rounds"); do
	"$cli" -p "$port" flushall >/dev/null
	x=$("$work/xgr" --log-level warn bench --redis "$url" --sessions "$sessions" --concurrency "$conc" --replicas 1 examples/bench/chain10.json --json)
	"$cli" -p "$port" flushall >/dev/null
	a=$("$work/asynqchain" --redis "$url" --chains "$sessions" --length 10 --concurrency "$conc" --json)
	xps=$(field "$x" steps_per_sec)
	aps=$(field "$a" tasks_per_sec)
	ratio=$(awk -v x="$xps" -v a="$aps" 'BEGIN { printf "%.3f", x / a }')
	xs+=("$xps"); as+=("$aps"); ratios+=("$ratio")
	# CPU per step: Redis's (INFO cpu) + the client process's (getrusage).
	xc=$(awk -v r="$(field "$x" redis_cpu_us_per_step)" -v c="$(field "$x" client_cpu_us_per_step)" 'BEGIN { printf "%.0f", r + c }')
	ac=$(awk -v r="$(field "$a" redis_cpu_us_per_task)" -v c="$(field "$a" client_cpu_us_per_task)" 'BEGIN { printf "%.0f", r + c }')
	cpus+=("$(awk -v x="$xc" -v a="$ac" 'BEGIN { printf "%.3f", a / x }')")
	printf 'round %d: xgr %6.0f steps/s (%s cmds, %s round trips, CPU %s µs = redis %s + client %s per step) | asynq %6.0f tasks/s (%s cmds, %s round trips, CPU %s µs = redis %s + client %s per task) | ratio %s\n' \
		"$r" "$xps" "$(printf %.1f "$(field "$x" redis_cmds_per_step)")" "$(printf %.2f "$(field "$x" roundtrips_per_step)")" \
		"$xc" "$(printf %.0f "$(field "$x" redis_cpu_us_per_step)")" "$(printf %.0f "$(field "$x" client_cpu_us_per_step)")" \
		"$aps" "$(printf %.1f "$(field "$a" redis_cmds_per_task)")" "$(printf %.2f "$(field "$a" roundtrips_per_task)")" \
		"$ac" "$(printf %.0f "$(field "$a" redis_cpu_us_per_task)")" "$(printf %.0f "$(field "$a" client_cpu_us_per_task)")" "$ratio"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'median: xgr %.0f steps/s, asynq %.0f tasks/s; median ratio xgr/asynq %s\n' "$(median "${xs[@]}")" "$(median "${as[@]}")" "$(median "${ratios[@]}")"
printf 'median CPU ratio (asynq CPU per task / xgr CPU per step, Redis and client): %s\n' "$(median "${cpus[@]}")"
