#!/usr/bin/python3
"""iiload: the insert benchmark's load step (l.i0) with one Python client.

rumbench's stand-in for the Python client of the insert benchmark (iibench.py, in
mdcallag/mytools bench/ibench), written for rumbench from a description of what iibench.py does
per row and per statement; it is not a copy of it. It exists to compare the client CPU that a
Python client spends per loaded row with rumbench's (`vs-sysbench --insert-rows N`,
docs/client-cost.md).

What it does, as iibench.py does for l.i0 with its default statement path:
  * it (re)creates the table: transactionid assigned by the server (bigserial with a sequence
    cache of 1000 on PostgreSQL, auto_increment on MySQL/MariaDB), dateandtime, cashregisterid,
    customerid, productid, price, data varchar(4000), and --secondary-indexes of the three
    secondary indexes (marketsegment, registersegment, pdc) with the table (3 by default, as
    rumbench's l.i0 when no l.x follows it; the reference scripts' l.i0 has none);
  * each row's values come from Python's `random`, seeded with --seed: cashregisterid in
    [0, 1000), productid in [0, 10000), customerid in [0, 100000), price in [0, 500), a data
    length L in [--data-length-min, --data-length-max] (10..20), and the data: L - R letters
    'a' followed by R = int(L*0.75*50/100) characters taken at a random offset of one base64
    text of 4 MiB of os.urandom made at start;
  * a statement is one multi-row INSERT of --rows-per-commit rows whose text is built in Python
    with %-formatting (iibench.py's default path: no driver parameters; the price written with
    two decimals), every row of it with the statement's local wall-clock time as
    'YYYY-MM-DD HH:MM:SS'; the connection is in autocommit mode, so a statement is a
    transaction;
  * it runs ceil(--rows / --rows-per-commit) statements and times each one.

As in iibench.py, the statements are made in a process of their own (forked when the inserting
starts) and passed to the process that runs them through a multiprocessing queue of at most 8
statements: the queue and the two processes' waits on each other cost the client about a quarter
of its CPU per row (docs/client-cost.md). --one-process makes and runs them in turn in one
process instead. The CPU of the process tree is the client's: the maker is reaped before the exit, so
its CPU is in the parent's cutime and cstime (/proc/<pid>/stat) once the parent has exited.

It prints "iiload: inserting ..." when it starts inserting (after the interpreter's start, the
connection and the table's creation) and, at the end, one line
"iiload: rows N secs S rows/s R max_stmt_us M".
"""

import argparse
import base64
import multiprocessing
import os
import random
import sys
import time

MARK_START = "iiload: inserting"

# Statements the maker may be ahead of the inserter (iibench.py's queue bound).
QUEUE_LEN = 8

COLUMNS = "dateandtime,cashregisterid,customerid,productid,price,data"

# The secondary indexes, in the order --secondary-indexes adds them.
INDEXES = [
    ("marketsegment", "productid, customerid, price"),
    ("registersegment", "cashregisterid, customerid, price"),
    ("pdc", "price, dateandtime, customerid"),
]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="iiload", description="the insert benchmark's l.i0 load with one Python client")
    p.add_argument("--dbms", choices=["postgres", "mysql"], required=True, help="server kind (mysql: MySQL or MariaDB)")
    p.add_argument("--host", default="127.0.0.1", help="server host")
    p.add_argument("--port", type=int, default=0, help="server TCP port (0: the driver's default)")
    p.add_argument("--socket", default="", help="mysql: Unix socket path instead of TCP")
    p.add_argument("--user", default="", help="user name")
    p.add_argument("--password", default="", help="password")
    p.add_argument("--database", default="rumbench", help="database name")
    p.add_argument("--table", default="pi1", help="table name; the table is dropped and created")
    p.add_argument("--rows", type=int, default=1000000, help="rows to insert (rounded up to whole statements)")
    p.add_argument("--rows-per-commit", type=int, default=100, help="rows per INSERT statement, one commit each")
    p.add_argument("--secondary-indexes", type=int, default=3, help="secondary indexes created with the table (0..3)")
    p.add_argument("--data-length-min", type=int, default=10, help="shortest data value")
    p.add_argument("--data-length-max", type=int, default=20, help="longest data value")
    p.add_argument("--data-random-pct", type=int, default=50, help="percent of the data that is random (base64) text")
    p.add_argument("--cashregisters", type=int, default=1000, help="cashregisterid is uniform in [0, this)")
    p.add_argument("--products", type=int, default=10000, help="productid is uniform in [0, this)")
    p.add_argument("--customers", type=int, default=100000, help="customerid is uniform in [0, this)")
    p.add_argument("--max-price", type=int, default=500, help="price is uniform in [0, this)")
    p.add_argument("--seed", type=int, default=3221223452, help="seed of Python's random")
    p.add_argument("--one-process", action="store_true",
                   help="make and run the statements in turn in this process (default: a maker process feeds this one through a queue of 8, as iibench.py does)")
    a = p.parse_args(argv)
    if a.rows < 1:
        p.error("--rows must be at least 1")
    if a.rows_per_commit < 1:
        p.error("--rows-per-commit must be at least 1")
    if not 0 <= a.secondary_indexes <= len(INDEXES):
        p.error("--secondary-indexes must be 0..3")
    if not 1 <= a.data_length_min <= a.data_length_max <= 4000:
        p.error("want 1 <= --data-length-min <= --data-length-max <= 4000")
    if not 0 <= a.data_random_pct <= 100:
        p.error("--data-random-pct must be 0..100")
    if min(a.cashregisters, a.products, a.customers, a.max_price) < 1:
        p.error("--cashregisters, --products, --customers and --max-price must be at least 1")
    return a


def connect(a):
    """Returns an autocommit connection of the server's Python driver."""
    if a.dbms == "postgres":
        import psycopg2

        kw = dict(host=a.host, dbname=a.database)
        if a.port:
            kw["port"] = a.port
        if a.user:
            kw["user"] = a.user
        if a.password:
            kw["password"] = a.password
        conn = psycopg2.connect(**kw)
        conn.autocommit = True
        return conn
    import MySQLdb

    kw = dict(db=a.database, autocommit=True)
    if a.socket:
        kw["unix_socket"] = a.socket
    else:
        kw["host"] = a.host
        if a.port:
            kw["port"] = a.port
    if a.user:
        kw["user"] = a.user
    if a.password:
        kw["passwd"] = a.password
    return MySQLdb.connect(**kw)


def create_table(cur, a):
    """Drops and creates the table and its secondary indexes."""
    t = a.table
    cur.execute("drop table if exists %s" % t)
    if a.dbms == "postgres":
        cur.execute(
            "create table %s (transactionid bigserial primary key, dateandtime timestamp without time zone, "
            "cashregisterid int not null, customerid int not null, productid int not null, price int not null, "
            "data varchar(4000))" % t
        )
        cur.execute("alter sequence %s_transactionid_seq cache 1000" % t)
        for name, cols in INDEXES[: a.secondary_indexes]:
            cur.execute("create index %s_%s on %s (%s)" % (t, name, t, cols))
        return
    cur.execute(
        "create table %s (transactionid bigint not null auto_increment, dateandtime datetime, "
        "cashregisterid int not null, customerid int not null, productid int not null, price int not null, "
        "data varchar(4000), primary key (transactionid)) engine=innodb" % t
    )
    if a.secondary_indexes:
        adds = ", ".join("add index %s_%s (%s)" % (t, name, cols) for name, cols in INDEXES[: a.secondary_indexes])
        cur.execute("alter table %s %s" % (t, adds))


class Statements:
    """Makes the INSERT statements: their rows' values from Python's random, their text by
    %-formatting. Per row it does what iibench.py does, in the same shape: one call draws the
    values, reading their ranges from the options, another formats the row."""

    def __init__(self, a):
        self.a = a
        self.head = "insert into %s (%s) values " % (a.table, COLUMNS)
        # One base64 text of random bytes; each row's random part is a slice of it.
        self.pool = base64.b64encode(os.urandom(4 << 20)).decode("ascii")

    def values(self):
        a = self.a
        cash = random.randrange(0, a.cashregisters)
        prod = random.randrange(0, a.products)
        cust = random.randrange(0, a.customers)
        price = random.randrange(0, a.max_price)
        length = random.randrange(a.data_length_min, a.data_length_max + 1)
        # 0.75: the base64 characters carry 3/4 of a byte of randomness each.
        nrand = int(length * 0.75 * (float(a.data_random_pct) / 100))
        off = random.randrange(0, len(self.pool) - nrand)
        data = "%s%s" % ("a" * (length - nrand), self.pool[off : off + nrand])
        return cash, prod, cust, price, data

    def row(self, when):
        cash, prod, cust, price, data = self.values()
        return "('%s',%d,%d,%d,%.2f,'%s')" % (when, cash, cust, prod, price, data)

    def next(self):
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time()))
        rows = [self.row(when) for _ in range(self.a.rows_per_commit)]
        return self.head + ",\n".join(rows)


def make(stmts, count, q, seed):
    """The statement maker's process: puts count statements on q, then None. Python reseeds its
    random in a forked child from the system's entropy, so the seed is set here."""
    random.seed(seed)
    for _ in range(count):
        q.put(stmts.next())
    q.put(None)
    q.close()
    q.join_thread()


def load(a):
    conn = connect(a)
    cur = conn.cursor()
    create_table(cur, a)
    stmts = Statements(a)
    count = -(-a.rows // a.rows_per_commit)
    rows = count * a.rows_per_commit
    timer = time.perf_counter
    max_us = 0
    print("%s %d rows, %d per commit, into %s" % (MARK_START, rows, a.rows_per_commit, a.table), flush=True)
    start = timer()
    if a.one_process:
        random.seed(a.seed)
        for _ in range(count):
            sql = stmts.next()
            t0 = timer()
            cur.execute(sql)
            us = int((timer() - t0) * 1e6)
            if us > max_us:
                max_us = us
    else:
        ctx = multiprocessing.get_context("fork")
        q = ctx.Queue(QUEUE_LEN)
        maker = ctx.Process(target=make, args=(stmts, count, q, a.seed))
        maker.start()
        try:
            while True:
                sql = q.get()
                if sql is None:
                    break
                t0 = timer()
                cur.execute(sql)
                us = int((timer() - t0) * 1e6)
                if us > max_us:
                    max_us = us
        except BaseException:
            maker.terminate()
            maker.join()
            raise
        maker.join()
        if maker.exitcode != 0:
            raise RuntimeError("the statement maker exited with %s" % maker.exitcode)
    secs = timer() - start
    cur.close()
    conn.close()
    print("iiload: rows %d secs %.3f rows/s %.0f max_stmt_us %d" % (rows, secs, rows / secs, max_us), flush=True)


def main(argv):
    a = parse_args(argv)
    try:
        load(a)
    except Exception as e:  # the driver's errors: one line, not a traceback
        print("iiload: %s" % " ".join(str(e).split()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
