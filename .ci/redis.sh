#!/usr/bin/env bash
# Starts a throwaway Redis server for the tests of package redis, and prints the line that points them at it:
#
#	eval "$(.ci/redis.sh)"        # installs (Debian) if needed, starts, prints export RANKD_TEST_REDIS=...
#	go test -race ./redis/...
#	.ci/redis.sh stop             # stops the server and removes its directory
#
# The server listens on 127.0.0.1 only, keeps nothing on disk (no RDB snapshots, no append-only file) and runs
# as an unprivileged user (nobody) when the script runs as root: it is for tests, never for data anyone wants
# to keep. Running the script again while the server is up changes nothing and prints the same line, so it is
# safe to call from several CI steps. Only the export line goes to stdout; progress goes to stderr.
#
# Settings, from the environment: RANKD_REDIS_PORT (63790), RANKD_REDIS_DIR (the server's directory, for its
# pid and log files: ${TMPDIR:-/tmp}/rankd-redis-$RANKD_REDIS_PORT), RANKD_REDIS_USER (the system user the
# server runs as when the script runs as root; nobody).
set -euo pipefail

port="${RANKD_REDIS_PORT:-63790}"
dir="${RANKD_REDIS_DIR:-${TMPDIR:-/tmp}/rankd-redis-$port}"
sysuser="${RANKD_REDIS_USER:-nobody}"
pidfile="$dir/redis.pid"
logfile="$dir/redis.log"
url="redis://127.0.0.1:$port/0"

log() { echo "redis.sh: $*" >&2; }

# ping reports whether a server answers PING on the port; without redis-cli it speaks the protocol itself.
ping() {
	if command -v redis-cli >/dev/null 2>&1; then
		[ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]
		return
	fi
	local reply
	reply="$({ exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 && timeout 2 head -c 7 <&3; } 2>/dev/null)" || return 1
	[ "${reply%$'\r'*}" = "+PONG" ]
}

# as_server runs a command as the user the server runs as: this one, or sysuser when running as root (a test
# server needs no privileges, and Redis warns against running as root).
as_server() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$sysuser" -- "$@"
	else
		setpriv --reuid="$sysuser" --regid="$(id -g "$sysuser")" --clear-groups -- "$@"
	fi
}

stop() {
	if [ -f "$pidfile" ]; then
		local pid
		pid="$(cat "$pidfile")"
		if kill "$pid" 2>/dev/null; then
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
		fi
	fi
	rm -rf "$dir"
	log "stopped; removed $dir"
}

case "${1:-}" in
stop)
	stop
	exit 0
	;;
"") ;;
*)
	log "usage: $0 [stop]"
	exit 2
	;;
esac

if ping; then
	log "a server already answers on 127.0.0.1:$port"
	echo "export RANKD_TEST_REDIS='$url'"
	exit 0
fi

if ! command -v redis-server >/dev/null 2>&1; then
	log "redis-server not found: installing Debian's redis-server"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q >&2
	$sudo apt-get install -y -q --no-install-recommends redis-server >&2
fi

mkdir -p "$dir"
chmod 700 "$dir"
if [ "$(id -u)" -eq 0 ]; then chown "$sysuser" "$dir"; fi
log "starting Redis on 127.0.0.1:$port (log: $logfile)"
as_server redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
	--save "" --appendonly no \
	--daemonize yes --pidfile "$pidfile" --logfile "$logfile" >&2

for _ in $(seq 100); do
	if ping; then
		log "ready: $url"
		echo "export RANKD_TEST_REDIS='$url'"
		exit 0
	fi
	sleep 0.1
done
log "server on 127.0.0.1:$port does not answer"
tail -n 50 "$logfile" >&2 || true
exit 1
