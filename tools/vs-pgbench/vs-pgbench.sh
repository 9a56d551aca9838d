#!/bin/bash
# vs-pgbench: pgbench and rumbench side by side on one private PostgreSQL (docs/scripts.md,
# "Client cost beside pgbench"). For each built-in script, client count and thread count (1 and
# CLIENTS), interleaved and repeated: `pgbench -M prepared -j J` and `rumbench run --workload
# script --init=false --jobs J` on the tables `pgbench -i` loaded; each client's CPU is the
# user + system time of its whole process (/usr/bin/time) divided by the transactions it reports.
#
# Usage: tools/vs-pgbench/vs-pgbench.sh [RUMBENCH [VS_SYSBENCH]]
# Environment: SECS (10), REPEATS (3), CLIENTS ("1 4"), SCALE (1), SCRIPTS (the three built-ins).
set -euo pipefail

RB=${1:-bin/rumbench}
VS=${2:-bin/vs-sysbench}
SECS=${SECS:-10}
REPEATS=${REPEATS:-3}
CLIENTS=${CLIENTS:-1 4}
SCALE=${SCALE:-1}
SCRIPTS=${SCRIPTS:-tpcb-like simple-update select-only}
for x in "$RB" "$VS" pgbench /usr/bin/time bc; do
	command -v "$x" >/dev/null || { echo "vs-pgbench: $x not found (make build; go build -o bin/vs-sysbench ./cmd/vs-sysbench; apt-get install postgresql-client time bc)" >&2; exit 2; }
done

work=$(mktemp -d)
chmod 755 "$work" # the server runs as the postgres OS user
"$VS" --serve postgres --dir "$work/server" >"$work/serve.out" 2>&1 &
serve=$!
trap 'kill -INT $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 60); do grep -q -- '--dsn' "$work/serve.out" 2>/dev/null && break; sleep 1; done
grep -q -- '--dsn' "$work/serve.out" || { echo "vs-pgbench: the server did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
port=$(grep -oP 'pgsql-port=\K[0-9]+' "$work/serve.out")
PGPASSWORD=$(grep -oP 'pgsql-password=\K[0-9a-f]+' "$work/serve.out")
export PGPASSWORD
dsn="postgres://postgres:$PGPASSWORD@127.0.0.1:$port/rumbench?sslmode=disable"
pg=(-h 127.0.0.1 -p "$port" -U postgres)
pgbench "${pg[@]}" -i -q -s "$SCALE" rumbench >"$work/init.out" 2>&1

# per CLIENT LABEL TX: CPU µs per transaction from the last /usr/bin/time record.
per() {
	read -r u s <"$work/time"
	echo "$1 $2 tx=$3 cpu_s=$(echo "$u+$s" | bc) us_per_tx=$(echo "scale=2; ($u+$s)*1000000/$3" | bc)"
}
echo "script clients client transactions client_cpu_seconds client_cpu_us_per_transaction"
for rep in $(seq "$REPEATS"); do
	for b in $SCRIPTS; do
		for c in $CLIENTS; do
			for j in $(printf '%s\n' 1 "$c" | sort -un); do
				/usr/bin/time -f "%U %S" -o "$work/time" pgbench "${pg[@]}" -n -M prepared -c "$c" -j "$j" -T "$SECS" -b "$b" rumbench >"$work/pgbench.out" 2>&1
				per "rep=$rep $b c=$c" "pgbench-j$j" "$(grep -oP 'actually processed: \K[0-9]+' "$work/pgbench.out")"
				/usr/bin/time -f "%U %S" -o "$work/time" "$RB" run --workload script --builtin "$b" --init=false --clients "$c" --jobs "$j" \
					--run-secs "$SECS" --engine postgres --dsn "$dsn" --out "$work/runs" >"$work/rumbench.out" 2>&1
				per "rep=$rep $b c=$c" "rumbench-j$j" "$(awk '$1 == "postgres" && $2 ~ /^tx_/ {print $3}' "$work/rumbench.out")"
			done
		done
	done
done
