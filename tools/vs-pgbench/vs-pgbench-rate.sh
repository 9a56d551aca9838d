#!/bin/bash
# vs-pgbench-rate: pgbench -R and rumbench --rate side by side on one private PostgreSQL
# (docs/rates.md, "Beside pgbench -R"). For each rate, interleaved and repeated: `pgbench -M
# prepared -c C -j C -R RATE -b SCRIPT -l` and `rumbench run --workload script --init=false
# --clients C --rate RATE` on the tables `pgbench -i` loaded, each for SECS seconds. Printed per
# client: transactions per second, the mean schedule lag (ms), the p99 latency from the scheduled
# start (ms: pgbench's per-transaction log, rumbench's tx_SCRIPT_intended) and the client's CPU
# per transaction (user + system of its whole process, /usr/bin/time).
#
# Usage: tools/vs-pgbench/vs-pgbench-rate.sh [RUMBENCH [VS_SYSBENCH]]
# Environment: SECS (20), REPEATS (3), CLIENTS (4), RATES ("2000"), SCALE (1), SCRIPT (select-only),
# FLAT (1: also each client flat out, for the cost of pacing), SLACK (1: pgbench also runs with a
# timer slack of 1 ns, as rumbench's paced clients sleep, to tell its sleeps' lateness from the
# server's).
set -euo pipefail

RB=${1:-bin/rumbench}
VS=${2:-bin/vs-sysbench}
SECS=${SECS:-20}
REPEATS=${REPEATS:-3}
CLIENTS=${CLIENTS:-4}
RATES=${RATES:-2000}
SCALE=${SCALE:-1}
SCRIPT=${SCRIPT:-select-only}
FLAT=${FLAT:-1}
SLACK=${SLACK:-0}
for x in "$RB" "$VS" pgbench /usr/bin/time bc python3; do
	command -v "$x" >/dev/null || { echo "vs-pgbench-rate: $x not found (make build; go build -o bin/vs-sysbench ./cmd/vs-sysbench; apt-get install postgresql-client time bc python3)" >&2; exit 2; }
done

work=$(mktemp -d)
chmod 755 "$work" # the server runs as the postgres OS user
"$VS" --serve postgres --dir "$work/server" >"$work/serve.out" 2>&1 &
serve=$!
trap 'kill -INT $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 60); do grep -q -- '--dsn' "$work/serve.out" 2>/dev/null && break; sleep 1; done
grep -q -- '--dsn' "$work/serve.out" || { echo "vs-pgbench-rate: the server did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
port=$(grep -oP 'pgsql-port=\K[0-9]+' "$work/serve.out")
PGPASSWORD=$(grep -oP 'pgsql-password=\K[0-9a-f]+' "$work/serve.out")
export PGPASSWORD
dsn="postgres://postgres:$PGPASSWORD@127.0.0.1:$port/rumbench?sslmode=disable"
pg=(-h 127.0.0.1 -p "$port" -U postgres)
pgbench "${pg[@]}" -i -q -s "$SCALE" rumbench >"$work/init.out" 2>&1

cpu() { read -r u s <"$work/time"; echo "$u+$s" | bc; }
# pgbench's figures from its output and its per-transaction logs (latency in µs, column 3).
pgfig() {
	local tx lag p99
	tx=$(grep -oP 'actually processed: \K[0-9]+' "$work/pgbench.out")
	lag=$(grep -oP 'rate limit schedule lag: avg \K[0-9.]+' "$work/pgbench.out" || echo -)
	p99=$(cat "$work"/pglog* | python3 -c 'import sys; v=sorted(int(l.split()[2]) for l in sys.stdin); print("%.3f" % (v[min(len(v)-1, int(0.99*len(v)))]/1000))')
	echo "tps=$(echo "scale=1; $tx/$SECS" | bc) lag_ms=$lag p99_ms=$p99 cpu_us_per_tx=$(echo "scale=2; $(cpu)*1000000/$tx" | bc)"
}
# rumbench's figures from its steps.json.
rbfig() {
	local dir
	dir=$(ls -d "$work"/runs/*/ | tail -1)
	python3 - "$dir/steps.json" "$(cpu)" "${SCRIPT//-/_}" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1])) if x["step"] == "run"][0]
tx = sum(k["ops"] for k in s["kinds"] if k["name"] == "tx_" + sys.argv[3])
lat = {l["kind"]: l for l in s["latency"]}
l = lat.get("tx_" + sys.argv[3] + "_intended") or lat["tx_" + sys.argv[3]]
sch = s.get("schedule") or {}
lag = "%.3f" % sch["lag_mean_ms"] if sch else "-"
print("tps=%.1f lag_ms=%s p99_ms=%.3f cpu_us_per_tx=%.2f (in the step: %.2f)" % (tx / s["secs"], lag, l["p99_us"] / 1000, float(sys.argv[2]) * 1e6 / tx, s["client_cpu_us_per_op"]))
PY
}
points="$RATES"
[ "$FLAT" = 1 ] && points="0 $points"
echo "client rate repetition: tps lag_ms p99_ms cpu_us_per_tx"
for rep in $(seq "$REPEATS"); do
	for r in $points; do
		rarg=(); rbarg=()
		[ "$r" != 0 ] && { rarg=(-R "$r"); rbarg=(--rate "$r"); }
		rm -f "$work"/pglog*
		/usr/bin/time -f "%U %S" -o "$work/time" pgbench "${pg[@]}" -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" "${rarg[@]}" \
			-b "$SCRIPT" -l --log-prefix "$work/pglog" rumbench >"$work/pgbench.out" 2>&1
		echo "pgbench rate=$r rep=$rep: $(pgfig)"
		if [ "$SLACK" = 1 ]; then
			# PR_SET_TIMERSLACK (29) to 1 ns, inherited by pgbench and its threads.
			rm -f "$work"/pglog*
			/usr/bin/time -f "%U %S" -o "$work/time" python3 -c 'import ctypes, os, sys; ctypes.CDLL(None).prctl(29, 1, 0, 0, 0); os.execvp(sys.argv[1], sys.argv[1:])' \
				pgbench "${pg[@]}" -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" "${rarg[@]}" -b "$SCRIPT" -l --log-prefix "$work/pglog" rumbench >"$work/pgbench.out" 2>&1
			echo "pgbench-slack1ns rate=$r rep=$rep: $(pgfig)"
		fi
		rm -rf "$work/runs"
		/usr/bin/time -f "%U %S" -o "$work/time" "$RB" run --workload script --builtin "$SCRIPT" --init=false --clients "$CLIENTS" \
			--run-secs "$SECS" "${rbarg[@]}" --engine postgres --dsn "$dsn" --out "$work/runs" --store none --quiet >"$work/rumbench.out" 2>&1
		echo "rumbench rate=$r rep=$rep: $(rbfig)"
	done
done
