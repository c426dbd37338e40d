#!/bin/sh
# Run once by the postgres image on its first start (docker-entrypoint-initdb.d): the team
# ledger's catalog gets its own role and database, apart from Prefect's. DuckLake creates its
# catalog tables there on the ledger's first open.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
	-v pw="$TRAINBUDGET_LEDGER_DB_PASSWORD" <<'SQL'
CREATE ROLE trainbudget_ledger LOGIN PASSWORD :'pw';
CREATE DATABASE trainbudget_ledger OWNER trainbudget_ledger;
SQL
