#!/bin/sh
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s' "$POSTGRES_PASSWORD" > /tmp/pwfile
  initdb --username="${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
  db="${POSTGRES_DB:-${POSTGRES_USER:-postgres}}"
  [ "$db" = postgres ] || createdb --username="${POSTGRES_USER:-postgres}" "$db"
  pg_ctl -w stop >/dev/null
fi
exec "$@" -c listen_addresses='*'
