# rumbench: `make run` runs the main job (a quick insert benchmark on pebble, rocksdb, wiredtiger and sqlite);
# `make test` runs every test. Both work on a fresh Debian machine with Go and gcc; whatever else
# they need is installed here with apt-get when missing (as root).

GO      ?= go
ARGS    ?=
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
SHA     := $(shell git rev-parse HEAD 2>/dev/null)
PKG     := github.com/rumbench/rumbench/internal/bench
LDFLAGS := -X $(PKG).Version=$(VERSION) -X $(PKG).GitSHA=$(SHA)
APT     := DEBIAN_FRONTEND=noninteractive apt-get -y -q
## TAGS: the cgo engines built in (each needs its Debian -dev package, installed by deps)
TAGS    ?= rocksdb wiredtiger

.PHONY: build run test bench deps server-deps browser-deps prometheus-deps clean syncshim ferretdb vs-sysbench vs-pgbench vs-ycsb vs-linkbench sysbench-deps pyload-deps java-deps

build: deps syncshim
	CGO_ENABLED=1 $(GO) build -tags "$(TAGS)" -ldflags "$(LDFLAGS)" -o bin/rumbench ./cmd/rumbench

## ferretdb: the mongo engine's managed server (FerretDB v1 embedded), beside the binary; it is
## a Go module of its own (tools/ferretdb), so FerretDB's dependencies stay out of rumbench's.
## Built for the tests; `make ferretdb` for --engine mongo without a mongod (make run does not
## need it: its engines are embedded)
FERRETDB := bin/rumbench-ferretdb
ferretdb:
	@mkdir -p bin
	cd tools/ferretdb && GOWORK=off $(GO) build -o ../../$(FERRETDB) .

## syncshim: the sync accounting library (--syscalls) that managed servers load with
## LD_PRELOAD, beside the binary; rumbench compiles its embedded copy with gcc when it is missing
CC      ?= gcc
SHIM    := bin/librumsync.so
syncshim: $(SHIM)
$(SHIM): internal/syncacct/cshim/syncshim.c | deps
	@mkdir -p bin
	$(CC) -O2 -Wall -shared -fPIC -DRUMSYNC_PRELOAD -o $@ $< -ldl

## run: the main job; pass flags with ARGS="--engine pebble --profile small"
run: build
	./bin/rumbench run $(ARGS)

## test: vet and every test (real engines and private servers, no mocks)
test: deps server-deps browser-deps prometheus-deps pyload-deps syncshim ferretdb
	$(GO) vet -tags "$(TAGS)" ./...
	RUMBENCH_SYNCSHIM=$(CURDIR)/$(SHIM) RUMBENCH_FERRETDB=$(CURDIR)/$(FERRETDB) CGO_ENABLED=1 $(GO) test -tags "$(TAGS)" -count=1 -timeout 30m ./...

## bench: the client-cost benchmarks (go test -bench)
bench: deps syncshim ferretdb
	RUMBENCH_SYNCSHIM=$(CURDIR)/$(SHIM) RUMBENCH_FERRETDB=$(CURDIR)/$(FERRETDB) CGO_ENABLED=1 $(GO) test -tags "$(TAGS)" -run '^$$' -bench . -benchmem ./...

## static: the binary of the container image (Containerfile): statically linked, SQLite by cgo,
## without the RocksDB and WiredTiger engines (sharded runs drive a shared server, see docs/distributed.md)
STATIC_TAGS := netgo osusergo sqlite_omit_load_extension
.PHONY: static
static: deps
	CGO_ENABLED=1 $(GO) build -trimpath -tags "$(STATIC_TAGS)" -ldflags "-s -w -linkmode external -extldflags -static $(LDFLAGS)" -o bin/rumbench-static ./cmd/rumbench

## vs-sysbench: sysbench and rumbench side by side on one private PostgreSQL and one MariaDB:
## point-query, read-only and update-index at 1 and 4 threads on 100,000 rows, both clients' CPU
## per statement measured from /proc/<pid>/stat, and the ratios (docs/client-cost.md); pass
## options with VSARGS="--secs 20 --repeats 5 --insert-rows 1000000" (--insert-rows: also the
## insert benchmark's load, rumbench beside the Python loader tools/pyload/iiload.py)
VSARGS  ?=
vs-sysbench: build server-deps sysbench-deps pyload-deps
	$(GO) build -o bin/vs-sysbench ./cmd/vs-sysbench
	./bin/vs-sysbench --rumbench rumbench=bin/rumbench $(VSARGS)

## vs-pgbench: pgbench and rumbench's script workload side by side on one private PostgreSQL:
## the three built-in scripts at 1 and 4 clients, both clients' CPU per transaction
## (docs/scripts.md); SECS, REPEATS, CLIENTS, SCALE and SCRIPTS set in the environment
vs-pgbench: build server-deps
	$(GO) build -o bin/vs-sysbench ./cmd/vs-sysbench
	tools/vs-pgbench/vs-pgbench.sh bin/rumbench bin/vs-sysbench

## vs-ycsb: go-ycsb and rumbench side by side on one private PostgreSQL and one MariaDB: the
## load and YCSB workloads A and C (YCSB's own files) at 4 threads on 100,000 records, both
## clients' CPU per operation from /proc/<pid>/stat, and the ratios (docs/client-cost.md); builds
## go-ycsb v1.0.3 into bin/go-ycsb when missing; options in YCSBARGS ("--secs 20 --repeats 3
## --workloads a,b,c --engines postgres")
YCSBARGS ?=
vs-ycsb: build server-deps
	$(GO) build -o bin/vs-sysbench ./cmd/vs-sysbench
	@test -x bin/go-ycsb || GO=$(GO) tools/vs-ycsb/install-go-ycsb.sh bin/go-ycsb
	tools/vs-ycsb/vs-ycsb.py --rumbench bin/rumbench --vs bin/vs-sysbench --go-ycsb bin/go-ycsb $(YCSBARGS)

## vs-linkbench: Java LinkBench (mdcallag/linkbench, cloned from GitHub and built with maven, or
## the built checkout LINKBENCH=DIR) and rumbench side by side on one private MariaDB: the graph
## loaded once, then each client's request phase in turns, client CPU per request from
## /proc/<pid>/stat and statements per request from the server (docs/client-cost.md); MAXID1,
## SECS, REPEATS and REQUESTERS set in the environment
vs-linkbench: build server-deps java-deps
	$(GO) build -o bin/vs-sysbench ./cmd/vs-sysbench
	tools/vs-linkbench/vs-linkbench.sh bin/rumbench bin/vs-sysbench

## java-deps: a JDK, maven and the mariadb client from Debian (for vs-linkbench)
java-deps:
	@command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 && command -v mariadb >/dev/null 2>&1 || { \
		echo "installing a JDK, maven and the mariadb client"; \
		$(APT) update && $(APT) install default-jdk-headless maven mariadb-client; }

## sysbench-deps: sysbench from Debian (retried once)
sysbench-deps:
	@command -v sysbench >/dev/null 2>&1 || { \
		echo "installing sysbench"; \
		$(APT) update && { $(APT) install sysbench || $(APT) install sysbench; }; }

## pyload-deps: the Python drivers of the Python loader (tools/pyload/iiload.py) for Debian's
## /usr/bin/python3: psycopg2 and MySQLdb (retried once)
PYLOAD_PKGS := python3-psycopg2 python3-mysqldb
pyload-deps:
	@/usr/bin/python3 -c 'import psycopg2, MySQLdb' >/dev/null 2>&1 || { \
		echo "installing $(PYLOAD_PKGS)"; \
		$(APT) update && { $(APT) install $(PYLOAD_PKGS) || $(APT) install $(PYLOAD_PKGS); }; }

## deps: a C compiler for the cgo SQLite driver and the libraries of the cgo engines (RocksDB,
## WiredTiger); installed with apt-get when missing (retried once)
ENGINE_PKGS := librocksdb-dev libwiredtiger-dev
deps:
	@command -v gcc >/dev/null 2>&1 || { \
		echo "installing gcc (cgo: mattn/go-sqlite3)"; \
		$(APT) update && { $(APT) install build-essential || $(APT) install build-essential; }; }
	@if [ -f /usr/include/rocksdb/c.h ] && [ -f /usr/include/wiredtiger.h ]; then :; else \
		echo "installing $(ENGINE_PKGS)"; \
		$(APT) update && { $(APT) install $(ENGINE_PKGS) || $(APT) install $(ENGINE_PKGS); }; fi

## server-deps: PostgreSQL, MariaDB and MyRocks for the server engines and their tests, and for
## the Galera cluster (internal/server/galera.go) the Galera 4 provider and what the rsync state
## transfer script runs: rsync, ss (iproute2) or lsof, ps (procps) (the install is retried once:
## an image hook can fail the first try)
SERVER_PKGS := postgresql mariadb-server mariadb-plugin-rocksdb galera-4 rsync iproute2 procps
server-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v mariadbd >/dev/null 2>&1 && \
		ls /usr/lib/mysql/plugin/ha_rocksdb.so >/dev/null 2>&1 && \
		ls /usr/lib/galera/libgalera_smm.so /usr/lib/galera-4/libgalera_smm.so /usr/lib64/galera-4/libgalera_smm.so \
			/usr/lib/libgalera_smm.so 2>/dev/null | grep -q . && \
		command -v rsync >/dev/null 2>&1 && command -v ps >/dev/null 2>&1 && \
		{ command -v ss >/dev/null 2>&1 || command -v lsof >/dev/null 2>&1; }; then :; else \
		echo "installing $(SERVER_PKGS)"; \
		$(APT) update && { $(APT) install $(SERVER_PKGS) || $(APT) install $(SERVER_PKGS); }; fi

## browser-deps: headless Chromium for the HTML report's browser test (internal/report)
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium (HTML report browser test)"; \
		$(APT) update && { $(APT) install --no-install-recommends chromium || \
			$(APT) install --no-install-recommends chromium; }; }

## prometheus-deps: Prometheus and promtool from Debian, for the tests of the live metrics
## endpoint, the Grafana dashboard's queries and the openmetrics export (internal/live);
## the tests start their own private server on 127.0.0.1 (the package's service is not used)
prometheus-deps:
	@command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || { \
		echo "installing prometheus (live metrics tests)"; \
		$(APT) update && { $(APT) install --no-install-recommends prometheus || \
			$(APT) install --no-install-recommends prometheus; }; }

clean:
	rm -rf bin rumbench-data vs-sysbench-data
