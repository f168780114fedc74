#!/usr/bin/env bash
# bench-trees: xgr bench on a fan-out/fan-in tree against the go-workflows
# tree harness (bench/peers/cmd/gwtree), side by side on one private
# redis-server: ROUNDS rounds (default 3), each one run of
#   xgr bench --sessions N --concurrency C --replicas 1 examples/bench/tree16.json
#   gwtree --roots N --concurrency C
# with FLUSHALL before each run. Both run 16 leaf activities per root over two
# join levels (root → 4 branches → 4 leaves each, all-joins at both levels).
#
# The comparable unit is the activity (a leaf: xgr's L11–L44 steps, 16 per
# session; go-workflows' Leaf activity, 16 per root), so the rate ratio is
# xgr activities/s ÷ go-workflows activities/s (= sessions/s ÷ roots/s). The
# steps each engine runs besides the leaves (xgr: R, B1–B4, BJ1–BJ4, RJ, 10
# per session; go-workflows: its workflow tasks, counted per run) are shown
# as steps/s but not used in the ratio. The CPU ratio is go-workflows'
# Redis + client CPU per activity ÷ xgr's (xgr's per step × steps per
# session ÷ 16).
# Knobs: BENCH_ROUNDS, BENCH_SESSIONS (1000), BENCH_CONCURRENCY (32),
# XGR_POLL (xgr bench --poll; default that of xgr run, 200ms) and GW_CACHE
# (gwtree --cache, go-workflows' executor cache; default its default, 128).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${BENCH_ROUNDS:-3}
sessions=${BENCH_SESSIONS:-1000}
conc=${BENCH_CONCURRENCY:-32}
gwcache=${GW_CACHE:-128}
leaves=16

name=bench-trees
# shellcheck source=scripts/private-redis.sh
. scripts/private-redis.sh

echo "building xgr and bench/peers/cmd/gwtree ..."
go build -o "$work/xgr" ./cmd/xgr
(cd bench/peers && go build -o "$work/gwtree" ./cmd/gwtree)

start_redis
echo "redis-server $("$server" --version | grep -o 'v=[0-9.]*') on $url; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); xgr poll ${XGR_POLL:-200ms (default)}"
echo "xgr: $sessions sessions of tree16, concurrency $conc, 1 replica; go-workflows: $sessions roots of 4 sub-workflows × 4 activities, concurrency $conc, executor cache $gwcache"
echo "unit: the activity (16 per root: xgr's leaf steps, go-workflows' activities)"

field() { # json name → number
	grep -o "\"$2\":[0-9.e+-]*" <<<"$1" | head -1 | cut -d: -f2
}
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
ratios=()
cpus=()
xs=()
gs=()
for r in $(seq "$rounds"); do
	"$cli" -p "$port" flushall >/dev/null
	x=$("$work/xgr" --log-level warn bench --redis "$url" --sessions "$sessions" --concurrency "$conc" --replicas 1 examples/bench/tree16.json --json)
	"$cli" -p "$port" flushall >/dev/null
	g=$("$work/gwtree" --redis "$url" --roots "$sessions" --concurrency "$conc" --cache "$gwcache" --json)
	# xgr: activities/s = sessions/s × 16; a session's steps are all 26 of
	# tree16, so its per-activity figures are the per-step ones × 26/16.
	xsteps=$(calc %.4f "$(field "$x" steps) / $(field "$x" sessions)")
	xact=$(calc %.1f "$(field "$x" sessions_per_sec) * $leaves")
	gact=$(field "$g" activities_per_sec)
	ratio=$(calc %.3f "$xact / $gact")
	xs+=("$xact"); gs+=("$gact"); ratios+=("$ratio")
	# CPU per activity: Redis's (INFO cpu) + the client process's (getrusage).
	xr=$(calc %.0f "$(field "$x" redis_cpu_us_per_step) * $xsteps / $leaves")
	xc=$(calc %.0f "$(field "$x" client_cpu_us_per_step) * $xsteps / $leaves")
	gr=$(calc %.0f "$(field "$g" redis_cpu_us_per_activity)")
	gc=$(calc %.0f "$(field "$g" client_cpu_us_per_activity)")
	cpus+=("$(calc %.3f "($gr + $gc) / ($xr + $xc)")")
	printf 'round %d: xgr %5.0f activities/s (%5.0f steps/s, %s steps/root; per activity %s round trips, %s cmds, CPU %d µs = redis %d + client %d)\n' \
		"$r" "$xact" "$(field "$x" steps_per_sec)" "$(calc %.0f "$xsteps")" \
		"$(calc %.2f "$(field "$x" roundtrips_per_step) * $xsteps / $leaves")" "$(calc %.1f "$(field "$x" redis_cmds_per_step) * $xsteps / $leaves")" \
		"$((xr + xc))" "$xr" "$xc"
	printf '         go-workflows %5.0f activities/s (%5.0f steps/s, %s steps/root; per activity %s round trips, %s cmds, CPU %d µs = redis %d + client %d) | ratio %s\n' \
		"$gact" "$(field "$g" steps_per_sec)" "$(calc %.0f "$leaves + $(field "$g" workflow_tasks_per_root)")" \
		"$(calc %.2f "$(field "$g" roundtrips_per_activity)")" "$(calc %.1f "$(field "$g" redis_cmds_per_activity)")" \
		"$((gr + gc))" "$gr" "$gc" "$ratio"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'median: xgr %.0f activities/s, go-workflows %.0f activities/s; median ratio xgr/go-workflows (activities/s = roots/s) %s\n' "$(median "${xs[@]}")" "$(median "${gs[@]}")" "$(median "${ratios[@]}")"
printf 'median CPU ratio (go-workflows CPU per activity / xgr CPU per activity, Redis and client): %s\n' "$(median "${cpus[@]}")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
