#!/usr/bin/env python3
"""vs-ycsb: go-ycsb and rumbench side by side on one private server per engine (docs/client-cost.md,
"YCSB beside go-ycsb").

For each engine (PostgreSQL, MariaDB) it starts one private server (`vs-sysbench --serve`), loads
recordcount records with each client into a database of its own (go-ycsb `load`, rumbench
`prepare`), then runs each YCSB workload with each client in turn, the order reversed every other
repeat. Both clients get the same property file (YCSB's own workloadX, upstream) and thread count.

CPU per operation is utime + stime of the client's process from /proc/<pid>/stat, sampled every
50 ms and read a last time after it exited, before it is reaped:
- go-ycsb: its whole process (start-up, connection and table check included: a few ms) over the
  operations its TOTAL line counts;
- rumbench: the samples interpolated over its measured step's window (steps.json start..end: its
  check of the table before and after the run left out) over the step's ops.
User and system time are kept apart as well.

Usage: tools/vs-ycsb/vs-ycsb.py --rumbench bin/rumbench --vs bin/vs-sysbench --go-ycsb bin/go-ycsb
       [--engines postgres,mysql] [--workloads a,c] [--threads 4] [--records 100000] [--secs 20]
       [--repeats 3] [--dir DIR]
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def fail(msg):
    print("vs-ycsb: " + msg, file=sys.stderr)
    sys.exit(2)


def proc_cpu(pid):
    """utime and stime of pid in seconds, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def run_sampled(cmd, out_path):
    """Runs cmd (stdout and stderr to out_path), sampling its CPU; returns the samples
    [(unix time, user s, system s)], the last one read after its exit, and its exit code."""
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        samples = []
        done = threading.Event()

        def sample():
            while not done.is_set():
                c = proc_cpu(p.pid)
                if c:
                    samples.append((time.time(), c[0], c[1]))
                done.wait(0.05)

        th = threading.Thread(target=sample)
        th.start()
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: /proc still has it
        done.set()
        th.join()
        c = proc_cpu(p.pid)
        if c:
            samples.append((time.time(), c[0], c[1]))
        rc = p.wait()
    return samples, rc


def at(samples, t):
    """CPU (user, system) at time t, interpolated between samples."""
    prev = samples[0]
    for s in samples:
        if s[0] >= t:
            if s[0] == prev[0]:
                return s[1], s[2]
            f = (t - prev[0]) / (s[0] - prev[0])
            return prev[1] + f * (s[1] - prev[1]), prev[2] + f * (s[2] - prev[2])
        prev = s
    return prev[1], prev[2]


def unix(ts):
    """Seconds since the epoch of an RFC 3339 time with nanoseconds (steps.json)."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$", ts)
    if not m:
        fail(f"cannot read the time {ts!r}")
    base = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) - time.timezone
    return base + float(m.group(2) or 0)


def serve(vs, engine, work):
    """Starts the private server; returns the process and its connection settings."""
    d = os.path.join(work, engine)
    log = open(os.path.join(work, engine + ".serve"), "w+")
    p = subprocess.Popen([vs, "--serve", engine, "--dir", d], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(120):
        log.seek(0)
        text = log.read()
        if "--dsn" in text:
            break
        if p.poll() is not None:
            fail(f"the {engine} server did not start:\n{text}")
        time.sleep(0.5)
    else:
        fail(f"the {engine} server did not start in 60 s")
    opts = dict(re.findall(r"--(?:pgsql|mysql)-(host|port|user|password|db)=(\S+)", text))
    dsn = re.search(r"--dsn '([^']+)'", text).group(1)
    return p, opts, dsn


def goycsb_props(engine, c):
    pre = "pg" if engine == "postgres" else "mysql"
    props = {"host": c["host"], "port": c["port"], "user": c["user"], "password": c["password"], "db": "goycsb"}
    args = []
    for k, v in props.items():
        args += ["-p", f"{pre}.{k}={v}"]
    # go-ycsb serves pprof on :6060 of every interface unless told otherwise; workload=core is its
    # name for CoreWorkload (it refuses YCSB's class name).
    return args + ["-p", "debug.pprof=127.0.0.1:0", "-p", "workload=core"]


def create_db(engine, c):
    if engine == "postgres":
        env = dict(os.environ, PGPASSWORD=c["password"], PGOPTIONS="-c client_min_messages=warning")
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", c["host"], "-p", c["port"], "-U", c["user"], "-d", "rumbench", "-c",
                        "DROP DATABASE IF EXISTS goycsb", "-c", "CREATE DATABASE goycsb"], check=True, env=env)
    else:
        subprocess.run(["mariadb", "-h", c["host"], "-P", c["port"], "-u", c["user"], f"-p{c['password']}", "-e",
                        "DROP DATABASE IF EXISTS goycsb; CREATE DATABASE goycsb"], check=True)


TOTAL = re.compile(r"^(TOTAL|INSERT)\s+- Takes\(s\): ([0-9.]+), Count: (\d+), OPS: ([0-9.]+)", re.M)


def goycsb(a, engine, conn, verb, wl, work, extra):
    out = os.path.join(work, "goycsb.out")
    cmd = [a.go_ycsb, verb, "postgresql" if engine == "postgres" else "mysql", "-P", wl,
           "-p", f"recordcount={a.records}", "-p", f"threadcount={a.threads}"] + goycsb_props(engine, conn) + extra
    samples, rc = run_sampled(cmd, out)
    text = open(out).read()
    if rc != 0:
        fail(f"go-ycsb {verb} exited {rc}:\n{text[-2000:]}")
    tot = [m for m in TOTAL.finditer(text) if m.group(1) == "TOTAL"][-1]
    ops, secs = int(tot.group(3)), float(tot.group(2))
    u, s = samples[-1][1], samples[-1][2]
    return {"ops": ops, "secs": secs, "rate": ops / secs, "user_us": u * 1e6 / ops, "sys_us": s * 1e6 / ops,
            "cpu_us": (u + s) * 1e6 / ops, "own_us": None}


def rumbench(a, engine, dsn, verb, wl, work, extra):
    outdir = os.path.join(work, "rb-runs")
    cmd = [a.rumbench, verb, "--workload", "ycsb", "-P", wl, "-p", f"recordcount={a.records}",
           "--threads", str(a.threads), "--engine", engine, "--dsn", dsn, "--out", outdir, "--store", "none"] + extra
    before = set(os.listdir(outdir)) if os.path.isdir(outdir) else set()
    samples, rc = run_sampled(cmd, os.path.join(work, "rumbench.out"))
    if rc != 0:
        fail(f"rumbench {verb} exited {rc}:\n{open(os.path.join(work, 'rumbench.out')).read()[-2000:]}")
    run = sorted(set(os.listdir(outdir)) - before)[-1]
    st = json.load(open(os.path.join(outdir, run, "steps.json")))[-1]
    t0, t1 = unix(st["start"]), unix(st["end"])
    (u0, s0), (u1, s1) = at(samples, t0), at(samples, t1)
    ops = st["ops"]
    return {"ops": ops, "secs": st["secs"], "rate": ops / st["secs"], "user_us": (u1 - u0) * 1e6 / ops,
            "sys_us": (s1 - s0) * 1e6 / ops, "cpu_us": (u1 - u0 + s1 - s0) * 1e6 / ops,
            "own_us": st["client_cpu_us_per_op"]}


def show(engine, test, client, r):
    own = f" own={r['own_us']:.1f}" if r["own_us"] is not None else ""
    print(f"{engine} {test} {client}: ops={r['ops']} ops/s={r['rate']:.0f} cpu_us/op={r['cpu_us']:.1f} "
          f"(user {r['user_us']:.1f}, sys {r['sys_us']:.1f}){own}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rumbench", default="bin/rumbench")
    ap.add_argument("--vs", default="bin/vs-sysbench")
    ap.add_argument("--go-ycsb", default="bin/go-ycsb")
    ap.add_argument("--engines", default="postgres,mysql")
    ap.add_argument("--workloads", default="a,c")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--secs", type=float, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ycsb-workloads", default="internal/workload/ycsb/ycsbconf/workloads",
                    help="directory of YCSB's workload files (default: the copies rumbench ships, YCSB's own)")
    ap.add_argument("--target", type=int, default=0,
                    help="operations per second of the run steps, the target property of both clients (YCSB's -target; 0: flat out)")
    ap.add_argument("--dir", default="")
    a = ap.parse_args()
    for x in (a.rumbench, a.vs, a.go_ycsb):
        if not shutil.which(x) and not os.access(x, os.X_OK):
            fail(f"{x} not found (make build; go build -o bin/vs-sysbench ./cmd/vs-sysbench; make vs-ycsb installs go-ycsb)")
    engines = [e for e in a.engines.split(",") if e]
    for e in engines:
        if e not in ("postgres", "mysql"):
            fail(f"--engines {e}: valid are postgres, mysql")
    letters = [w for w in a.workloads.split(",") if w]
    for w in letters:
        if w not in "abcdef" or len(w) != 1:
            fail(f"--workloads {w}: valid are a..f")
    if a.threads < 1 or a.records < 1 or a.secs <= 0 or a.repeats < 1 or a.target < 0:
        fail("--threads, --records, --secs and --repeats must be positive, --target 0 or more")
    paced = ["-p", f"target={a.target}"] if a.target else []
    work = a.dir or tempfile.mkdtemp(prefix="vs-ycsb-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)  # the servers run as the postgres and mysql users
    wdir = a.ycsb_workloads
    for w in letters:
        if not os.path.isfile(os.path.join(wdir, "workload" + w)):
            fail(f"no workload{w} in {wdir} (--ycsb-workloads: a directory of YCSB's workload files)")
    print(f"host: {os.uname().nodename}, {os.cpu_count()} CPUs; load average {os.getloadavg()}", flush=True)
    results = []  # (engine, test, client, repeat, result)
    for engine in engines:
        srv, conn, dsn = serve(a.vs, engine, work)
        try:
            create_db(engine, conn)
            wl = os.path.join(wdir, "workload" + letters[0])
            # The loads, each client once: go-ycsb first (its table is its own database's).
            r = goycsb(a, engine, conn, "load", wl, work, [])
            show(engine, "load", "go-ycsb", r)
            results.append((engine, "load", "go-ycsb", 1, r))
            r = rumbench(a, engine, dsn, "prepare", wl, work, ["--fresh"])
            show(engine, "load", "rumbench", r)
            results.append((engine, "load", "rumbench", 1, r))
            rate = {}
            for rep in range(1, a.repeats + 1):
                for w in letters:
                    wl = os.path.join(wdir, "workload" + w)
                    order = ["rumbench", "go-ycsb"] if rep % 2 or w not in rate else ["go-ycsb", "rumbench"]
                    for client in order:
                        if client == "rumbench":
                            r = rumbench(a, engine, dsn, "run", wl, work,
                                         ["--reuse", "--run-secs", str(a.secs), "--warmup-secs", "0"] + paced)
                            rate[w] = a.target or r["rate"]
                        else:
                            # go-ycsb does not read maxexecutiontime: as many operations as
                            # rumbench did in --secs.
                            n = int(rate[w] * a.secs)
                            r = goycsb(a, engine, conn, "run", wl, work, ["-p", f"operationcount={n}"] + paced)
                        show(engine, "workload" + w, client, r)
                        results.append((engine, "workload" + w, client, rep, r))
        finally:
            srv.send_signal(signal.SIGINT)
            srv.wait()
    print(f"load average at the end {os.getloadavg()}")
    print()
    print("| server | test | threads | go-ycsb µs/op | rumbench µs/op | CPU ratio | go-ycsb user / sys | rumbench user / sys | user ratio | go-ycsb ops/s | rumbench ops/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for engine in engines:
        tests = ["load"] + ["workload" + w for w in letters]
        for test in tests:
            g = {rep: r for e, t, c, rep, r in results if e == engine and t == test and c == "go-ycsb"}
            b = {rep: r for e, t, c, rep, r in results if e == engine and t == test and c == "rumbench"}
            ratios = [b[k]["cpu_us"] / g[k]["cpu_us"] for k in g if k in b]
            uratios = [b[k]["user_us"] / g[k]["user_us"] for k in g if k in b]
            med = lambda rs, f: statistics.median(r[f] for r in rs.values())
            print(f"| {'PostgreSQL' if engine == 'postgres' else 'MariaDB'} | {test} | {a.threads} | "
                  f"{med(g, 'cpu_us'):.1f} | {med(b, 'cpu_us'):.1f} | {statistics.median(ratios):.2f} "
                  f"[{min(ratios):.2f}–{max(ratios):.2f}] | {med(g, 'user_us'):.1f} / {med(g, 'sys_us'):.1f} | "
                  f"{med(b, 'user_us'):.1f} / {med(b, 'sys_us'):.1f} | {statistics.median(uratios):.2f} | "
                  f"{med(g, 'rate'):,.0f} | {med(b, 'rate'):,.0f} |")
    if not a.dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
