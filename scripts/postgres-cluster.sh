#!/usr/bin/env bash
# Starts (or stops) a private PostgreSQL 15 cluster for tests and local development:
#   scripts/postgres-cluster.sh start [DIR] [PORT]   → prints the DATABASE_URL to use
#   scripts/postgres-cluster.sh stop  [DIR]
# The server binaries come with the machine image; as root they run through `su postgres`.
set -euo pipefail
action=${1:-start}
dir=$(realpath -m "${2:-.tmp/postgres}")
port=${3:-54329}
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}

case "$action" in
  start)
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then useradd --system --no-create-home postgres; fi
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "'$bin/initdb' -D '$dir/data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >'$dir/initdb.log'"
    fi
    if ! as_owner "'$bin/pg_ctl' -D '$dir/data' status" >/dev/null 2>&1; then
      as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-c listen_addresses=127.0.0.1 -p $port -k '$dir' -c fsync=off -c max_connections=300\" start" >/dev/null
    fi
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "'$bin/pg_ctl' -D '$dir/data' -m fast stop" >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop [DIR] [PORT]" >&2; exit 2 ;;
esac
