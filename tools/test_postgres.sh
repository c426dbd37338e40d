#!/usr/bin/env bash
# A throwaway PostgreSQL for the team-ledger tests: `tools/test_postgres.sh start DIR` starts
# one on a Unix socket only (DIR/socket, no TCP) with its data and log under DIR, and prints
# the libpq connection string the tests read from $TRAINBUDGET_TEST_PG; `stop DIR` stops it
# and removes DIR. Installs Debian's postgresql with apt-get when it is missing and we are
# root; as root the server runs as the `postgres` user (initdb and postgres refuse root).
set -euo pipefail
action="${1:?usage: test_postgres.sh start|stop DIR}"
dir="${2:?usage: test_postgres.sh start|stop DIR}"
port="${TRAINBUDGET_TEST_PG_PORT:-54329}"

find_bin() {
	local found
	for found in /usr/lib/postgresql/*/bin; do
		[ -x "$found/pg_ctl" ] && { echo "$found"; return 0; }
	done
	command -v pg_ctl >/dev/null && { dirname "$(command -v pg_ctl)"; return 0; }
	return 1
}

as_owner() {  # run a server command as the postgres user when we are root
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
start)
	if ! bin="$(find_bin)"; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "installing postgresql with apt-get" >&2
			export DEBIAN_FRONTEND=noninteractive
			apt-get update -q >/dev/null
			apt-get install -y -q --no-install-recommends postgresql >/dev/null
			bin="$(find_bin)"
		else
			echo "error: PostgreSQL is not installed (apt-get install postgresql)" >&2
			exit 1
		fi
	fi
	mkdir -p "$dir/data" "$dir/socket"
	chmod 0700 "$dir" "$dir/data"
	chmod 0755 "$dir/socket"
	touch "$dir/log"
	chmod 0600 "$dir/log"
	if [ "$(id -u)" = 0 ]; then
		chown postgres:postgres "$dir" "$dir/data" "$dir/socket" "$dir/log"
		chmod 0711 "$dir"   # root's test processes reach the socket folder inside
	fi
	as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
	as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
		-o "-p $port -k $dir/socket -c listen_addresses=''" start >/dev/null
	echo "host=$dir/socket port=$port user=postgres dbname=postgres"
	;;
stop)
	if bin="$(find_bin)" && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
	fi
	rm -rf "$dir"
	;;
*)
	echo "usage: test_postgres.sh start|stop DIR" >&2
	exit 2
	;;
esac
