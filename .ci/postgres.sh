#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the tests of package postgres, and prints the line that points them
# at it:
#
#	eval "$(.ci/postgres.sh)"        # installs (Debian) if needed, starts, prints export RANKD_TEST_POSTGRES=...
#	go test -race ./postgres/
#	.ci/postgres.sh stop             # stops the server and removes its data directory
#
# The server runs as an unprivileged user (rankd-pg, created when the script runs as root), listens on
# 127.0.0.1 only, trusts every local connection and keeps its data in a temporary directory: it is for tests,
# never for data anyone wants to keep. Running the script again while the server is up changes nothing and prints
# the same line, so it is safe to call from several CI steps. Only the export line goes to stdout; progress goes to
# stderr.
#
# Settings, from the environment: RANKD_PG_PORT (54329), RANKD_PG_DIR (the data directory,
# ${TMPDIR:-/tmp}/rankd-postgres-$RANKD_PG_PORT), RANKD_PG_USER (the system user the server runs as when the
# script runs as root; rankd-pg).
set -euo pipefail

port="${RANKD_PG_PORT:-54329}"
dir="${RANKD_PG_DIR:-${TMPDIR:-/tmp}/rankd-postgres-$port}"
sysuser="${RANKD_PG_USER:-rankd-pg}"
data="$dir/data"
logfile="$dir/server.log"
url="postgres://rankd@127.0.0.1:$port/rankd?sslmode=disable"

log() { echo "postgres.sh: $*" >&2; }

# find_bin sets bin to the directory of PostgreSQL's server programs (initdb, pg_ctl, postgres): Debian keeps
# them out of PATH, in /usr/lib/postgresql/VERSION/bin.
find_bin() {
	bin=""
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		bin="$(dirname "$(readlink -f "$(command -v initdb)")")"
		return 0
	fi
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			bin="$d"
			return 0
		fi
	done
	return 1
}

# as_server runs a command as the user that owns the server: this one, or sysuser when running as root
# (PostgreSQL refuses to run as root).
as_server() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$sysuser" -- "$@"
	else
		su -s /bin/sh "$sysuser" -c "$(printf '%q ' "$@")"
	fi
}

ready() { "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres -U postgres >/dev/null 2>&1; }

psql_super() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }

if ! find_bin; then
	if [ "${1:-}" = stop ]; then
		log "PostgreSQL is not installed: nothing to stop"
		exit 0
	fi
	log "initdb not found: installing Debian's postgresql"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q >&2
	$sudo apt-get install -y -q --no-install-recommends postgresql >&2
	find_bin || { log "postgresql installed, but no initdb in /usr/lib/postgresql/*/bin"; exit 1; }
fi

if [ "${1:-}" = stop ]; then
	if [ -f "$data/PG_VERSION" ]; then
		as_server "$bin/pg_ctl" -D "$data" -m fast -w stop >&2 || true
	fi
	rm -rf "$dir"
	log "stopped; removed $dir"
	exit 0
fi
if [ $# -gt 0 ]; then
	log "usage: $0 [stop]"
	exit 2
fi

if ! ready; then
	if [ "$(id -u)" -eq 0 ] && ! id "$sysuser" >/dev/null 2>&1; then
		log "creating system user $sysuser"
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$sysuser"
	fi
	mkdir -p "$dir"
	chmod 700 "$dir"
	if [ "$(id -u)" -eq 0 ]; then chown "$sysuser" "$dir"; fi
	if [ ! -f "$data/PG_VERSION" ]; then
		log "initdb $data"
		rm -rf "$data"
		as_server "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
			as_server "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
		# Loopback only; the socket lives in the data directory (the system's /var/run/postgresql may not be
		# writable for this user).
		cat >>"$data/postgresql.conf" <<EOF

# rankd CI (.ci/postgres.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
max_connections = 300
EOF
	fi
	log "starting PostgreSQL on 127.0.0.1:$port (log: $logfile)"
	as_server "$bin/pg_ctl" -D "$data" -l "$logfile" -w -t 60 start >&2 || { tail -n 50 "$logfile" >&2 || true; exit 1; }
fi
ready || { log "server on 127.0.0.1:$port does not answer"; exit 1; }

# The role and database the tests use; each test works in a schema of its own inside it.
psql_super <<'EOF' >&2
SELECT 'CREATE ROLE rankd LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rankd')\gexec
SELECT 'CREATE DATABASE rankd OWNER rankd' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'rankd')\gexec
EOF
log "ready: $url"
echo "export RANKD_TEST_POSTGRES='$url'"
