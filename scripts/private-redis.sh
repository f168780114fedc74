# private-redis.sh: sourced by the bench scripts. With $name set to the
# script's name, it finds redis-server and redis-cli (as internal/toolbin:
# XGR_<NAME>_BIN, .tools/bin, PATH), makes a work directory ($work, removed
# on exit), starts a private redis-server on a free loopback port (no
# persistence) and sets $server, $cli, $port and $url. The caller's EXIT
# trap must not be replaced.

find_bin() { # name → path
	local var="XGR_$(echo "$1" | tr 'a-z-' 'A-Z_')_BIN"
	if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
	if [ -x ".tools/bin/$1" ]; then echo ".tools/bin/$1"; return; fi
	if command -v "$1" >/dev/null; then command -v "$1"; return; fi
	echo "$name: $1 not found (looked at \$$var, .tools/bin and PATH): run \`make tools\` (installs the apt package redis-server)" >&2
	exit 1
}
server=$(find_bin redis-server)
cli=$(find_bin redis-cli)

work=$(mktemp -d)
redis_pid=
cleanup() {
	if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_redis: a free loopback port (one nothing answers on), the server on
# it, and $url once it answers.
start_redis() {
	port=
	for _ in $(seq 50); do
		local p=$((20000 + RANDOM % 40000))
		if ! (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
	done
	[ -n "$port" ] || { echo "$name: no free port found" >&2; exit 1; }
	"$server" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --logfile "$work/redis.log" &
	redis_pid=$!
	for _ in $(seq 100); do
		"$cli" -p "$port" ping >/dev/null 2>&1 && break
		sleep 0.05
	done
	"$cli" -p "$port" ping >/dev/null || { echo "$name: redis-server did not start:" >&2; cat "$work/redis.log" >&2; exit 1; }
	url="redis://127.0.0.1:$port/0"
}
