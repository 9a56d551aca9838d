#!/bin/bash
# vs-linkbench: Java LinkBench (the fork behind the Small Datum reports, mdcallag/linkbench) and
# rumbench side by side on one private MariaDB (docs/client-cost.md, "LinkBench beside Java
# LinkBench"). rumbench loads the graph once (database linkdb0, the fork's DDL); then, interleaved
# and repeated, each client runs its request phase on it with REQUESTERS requesters for SECS
# seconds: `linkbench -r` and `rumbench run --reuse --workload linkbench --loops 1`. Client CPU
# per request: Java's from /proc/<pid>/stat, read each time its requester logs its progress
# ("Requester #0 N/... requests done", every 5 s), between the first and the last such line (the
# JVM's start and JIT warm-up before the first excluded); rumbench's is its loop step's own
# process_cpu_us_per_op (the same /proc counters over the step's window). Both also as
# process_cpu_us_per_request: the process's whole CPU (its last reading, every 0.1 s) per
# request. Statements per request: the server's Com_begin, Com_commit and Com_rollback over each
# client's run, and Questions (rumbench's over its loop step, without its checks' queries).
#
# Usage: tools/vs-linkbench/vs-linkbench.sh [RUMBENCH [VS_SYSBENCH]]
# Environment: LINKBENCH (a checkout of mdcallag/linkbench, built here with `mvn -q package
# -DskipTests` when target/FacebookLinkBench.jar is missing; default: cloned from GitHub into the
# working directory), MAXID1 (100001), SECS (60), REPEATS (3), REQUESTERS (1), BUFFER_POOL_MB
# (2048: the graph, about 1 GB, stays cached, as in the reports' cached setup; the server starts
# with rumbench's managed 64 MiB and is raised before the load), KEEP (set: keep the working
# directory).
set -euo pipefail

RB=${1:-bin/rumbench}
VS=${2:-bin/vs-sysbench}
MAXID1=${MAXID1:-100001}
SECS=${SECS:-60}
REPEATS=${REPEATS:-3}
REQUESTERS=${REQUESTERS:-1}
BUFFER_POOL_MB=${BUFFER_POOL_MB:-2048}
for x in "$RB" "$VS" java mvn mariadb python3; do
	command -v "$x" >/dev/null || { echo "vs-linkbench: $x not found (make build; go build -o bin/vs-sysbench ./cmd/vs-sysbench; apt-get install default-jdk-headless maven mariadb-client python3)" >&2; exit 2; }
done
RB=$(realpath "$RB")

work=$(mktemp -d)
chmod 755 "$work" # the server runs as the mysql OS user
"$VS" --serve mariadb --dir "$work/server" >"$work/serve.out" 2>&1 &
serve=$!
cleanup() {
	kill -INT $serve 2>/dev/null || true
	wait $serve 2>/dev/null || true
	if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "vs-linkbench: kept $work" >&2; fi
}
trap cleanup EXIT

lb=${LINKBENCH:-}
if [ -z "$lb" ]; then
	lb=$work/linkbench
	git clone -q https://github.com/mdcallag/linkbench "$lb"
	git -C "$lb" checkout -q 9ef9cc8
fi
lb=$(realpath "$lb")
if [ ! -f "$lb/target/FacebookLinkBench.jar" ]; then
	(cd "$lb" && mvn -q package -DskipTests) >"$work/mvn.out" 2>&1 || { cat "$work/mvn.out" >&2; exit 1; }
fi

for _ in $(seq 60); do grep -q -- '--dsn' "$work/serve.out" 2>/dev/null && break; sleep 1; done
grep -q -- '--dsn' "$work/serve.out" || { echo "vs-linkbench: the server did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
port=$(grep -oP 'mysql-port=\K[0-9]+' "$work/serve.out")
pw=$(grep -oP 'mysql-password=\K[0-9a-f]+' "$work/serve.out")
my=(mariadb -h127.0.0.1 -P"$port" -urumbench -p"$pw" -N -B)
"${my[@]}" -e "SET GLOBAL innodb_buffer_pool_size = $((BUFFER_POOL_MB << 20)); CREATE DATABASE linkdb0"
dsn="rumbench:$pw@tcp(127.0.0.1:$port)/linkdb0"
rbflags=(--workload linkbench --profile small --maxid1 "$MAXID1" --engine mysql --dsn "$dsn" --data-dir "$work/rb" --out "$work/runs" --store none)
# The load is set-up here, not measured: slices load the same graph sooner.
"$RB" prepare "${rbflags[@]}" --load-split slices >"$work/prepare.out" 2>&1 || { tail -20 "$work/prepare.out" >&2; exit 1; }
echo "loaded: $(grep -o 'invariants ok: .*' "$work/prepare.out" | head -1)"

# status: the server's statement counters, one line.
status() {
	"${my[@]}" -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions','Com_begin','Com_commit','Com_rollback')" | awk '{printf "%s=%s ", $1, $2}'
}
# perreq BEFORE AFTER REQUESTS: each counter's change per request.
perreq() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
b = dict(kv.split("=") for kv in sys.argv[1].split())
a = dict(kv.split("=") for kv in sys.argv[2].split())
n = float(sys.argv[3])
print(" ".join("%s/req=%.3f" % (k.lower(), (int(a[k]) - int(b[k])) / n) for k in sorted(a)))
PY
}

# whole REQUESTS: the last CPU reading of the process (ticks, in $work/cpu) per request, µs: its
# whole life, start-up and (rumbench) the count checks before and after its loop included.
whole() {
	python3 -c "print('%.1f' % ($(cat "$work/cpu")*1e6/100/$1))"
}

java_run() {
	local log=$work/java.out before after
	before=$(status)
	(cd "$lb" && LINKBENCH_HOME=$lb exec java -cp target/FacebookLinkBench.jar com.facebook.LinkBench.LinkBenchDriver \
		-c config/LinkConfigMysql.properties -r -Dhost=127.0.0.1 -Dport="$port" -Duser=rumbench -Dpassword="$pw" \
		-Dmaxid1="$MAXID1" -Drequesters="$REQUESTERS" -Dmaxtime="$SECS" -Drequests=5000000000 \
		-Dprogressfreq=5 -Ddisplayfreq=100000) >"$log" 2>&1 &
	local pid=$! last="" first_n="" first_cpu="" n cpu
	# Each requester logs its count every 5 s: read the JVM's CPU when requester #0's changes.
	while kill -0 $pid 2>/dev/null; do
		n=$(grep -oP 'Requester #0 \K[0-9]+(?=/[0-9]+ requests done)' "$log" 2>/dev/null | tail -1 || true)
		if [ -n "$n" ] && [ "$n" != "$last" ]; then
			cpu=$(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null || true)
			[ -n "$cpu" ] || break
			if [ -z "$first_n" ]; then first_n=$n first_cpu=$cpu; fi
			last_n=$n last_cpu=$cpu last=$n
		fi
		cpu=$(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null || true)
		[ -n "$cpu" ] && echo "$cpu" >"$work/cpu"
		sleep 0.1
	done
	wait $pid || { tail -20 "$log" >&2; return 1; }
	after=$(status)
	local total rps
	total=$(grep -oP 'REQUEST PHASE COMPLETED. \K[0-9]+' "$log")
	rps=$(grep -oP 'requests/second = \K[0-9]+' "$log" | tail -1)
	local reqs=$(( (last_n - first_n) * REQUESTERS ))
	echo "java-linkbench requests=$total rps=$rps window_requests=$reqs cpu_us_per_request=$(python3 -c "print('%.1f' % (($last_cpu-$first_cpu)*1e6/100/$reqs))") process_cpu_us_per_request=$(whole "$total") $(perreq "$before" "$after" "$total")"
}

rumbench_run() {
	local before after
	before=$(status)
	"$RB" run --reuse "${rbflags[@]}" --requesters "$REQUESTERS" --loops 1 --loop-secs "$SECS" >"$work/rumbench.out" 2>&1 &
	local pid=$! cpu
	while kill -0 $pid 2>/dev/null; do
		cpu=$(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null || true)
		[ -n "$cpu" ] && echo "$cpu" >"$work/cpu"
		sleep 0.1
	done
	wait $pid || { tail -20 "$work/rumbench.out" >&2; return 1; }
	after=$(status)
	local steps
	steps=$(ls -td "$work"/runs/*/ | head -1)steps.json
	# Questions over the loop step only (rumbench's checks before and after it, and its sampler's
	# status queries, are counted in the server's totals).
	read -r ops rps cpu questions < <(python3 - "$steps" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1])):
    if s.get("step") == "loop1":
        print(s["ops"], round(s["rate_per_sec"]), "%.1f" % s["process_cpu_us_per_op"], s["server_counters"]["Questions"])
PY
)
	echo "rumbench requests=$ops rps=$rps cpu_us_per_request=$cpu process_cpu_us_per_request=$(whole "$ops") $(perreq "$before" "$after" "$ops" | sed 's/ questions\/req=[0-9.]*//') questions/req=$(python3 -c "print('%.3f' % ($questions/$ops))")"
}

uptime
for rep in $(seq "$REPEATS"); do
	if [ $((rep % 2)) = 1 ]; then
		echo "rep=$rep $(java_run)"; echo "rep=$rep $(rumbench_run)"
	else
		echo "rep=$rep $(rumbench_run)"; echo "rep=$rep $(java_run)"
	fi
done
uptime
