# shellcheck shell=bash
# shellcheck disable=SC2034  # pgbin, port, pg and the rest are the caller's
# A throwaway PostgreSQL cluster for the store's test scripts
# (scripts/test-store.sh, scripts/test-grafana-store.sh), sourced, not run:
#
#   . scripts/pg-throwaway.sh
#   pg_throwaway NAME DB [SERVER OPTION...]
#
# makes a temporary folder ($tmp, /tmp/gpubench-NAME.XXXXXX), a cluster in
# $tmp/pgdata owned by postgres when run as root, listening on a Unix socket
# in $tmp only (no TCP) on a random port ($port), with fsync off and any
# further "-c key=value" server options, and the database DB; sets $pgbin
# (the newest installed server), $as_pg (the command prefix that runs as
# postgres) and $pg (the store URL of DB, user gb); stops the cluster and
# removes $tmp on exit (a trap on EXIT). Exits 2 when a step fails, with its
# log. Needs Debian's postgresql (scripts/need-packages.sh postgresql).
pg_throwaway() {
  local name=$1 db=$2
  shift 2
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  tmp=$(mktemp -d "/tmp/gpubench-$name.XXXXXX")
  chmod 755 "$tmp"
  as_pg=()
  [ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)
  pgdata=$tmp/pgdata
  trap pg_throwaway_stop EXIT
  mkdir -p "$pgdata" && { [ "$(id -u)" != 0 ] || chown postgres "$tmp" "$pgdata"; }
  port=$((20000 + RANDOM % 40000))
  "${as_pg[@]}" "$pgbin/initdb" -D "$pgdata" -A trust -U gb --no-sync >"$tmp/initdb.log" 2>&1 ||
    { cat "$tmp/initdb.log"; exit 2; }
  local opts="-c listen_addresses='' -c unix_socket_directories=$tmp -p $port -c fsync=off" o
  for o in "$@"; do opts="$opts -c $o"; done
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdata" -w -l "$tmp/pg.log" -o "$opts" start >/dev/null ||
    { cat "$tmp/pg.log"; exit 2; }
  "$pgbin/createdb" -h "$tmp" -p "$port" -U gb "$db" || exit 2
  pg="pg:host=$tmp port=$port user=gb dbname=$db"
}

pg_throwaway_stop() {
  [ -f "$pgdata/postmaster.pid" ] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1
  rm -rf "$tmp"
}
