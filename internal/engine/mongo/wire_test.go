package mongo

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// checkDocs reads every document of items back sorted by its id field and compares each with
// the document the session builds for want's rows (the same bytes: fields, order and types).
func checkDocs(t *testing.T, e *eng, s *session, want *table.Rows) {
	t.Helper()
	ctx := context.Background()
	ts, err := e.state(items)
	if err != nil {
		t.Fatal(err)
	}
	field := ts.field[0]
	cur, err := e.db.Collection("items").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: field, Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	for cur.Next(ctx) {
		got = append(got, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != want.N {
		t.Fatalf("%d documents read back, want %d", len(got), want.N)
	}
	for r := range want.N {
		if w := bson.Raw(s.appendDoc(nil, ts, want.Row(r))); !bytes.Equal(got[r], w) {
			t.Fatalf("document %d read back = %s\nwant %s", r, got[r], w)
		}
	}
}

// TestWireOwn inserts through the own wire path, over each io mode's socket, and reads back
// every document (the count and the exact bytes); the driver sees no insert command, the server
// counts one per batch. A duplicate key is table.ErrDuplicate naming the key, the ordered batch
// stops there, and the session goes on working on the same connection.
func TestWireOwn(t *testing.T) {
	ctx := context.Background()
	var driverInserts atomic.Int64
	testMonitor = &event.CommandMonitor{Started: func(_ context.Context, ev *event.CommandStartedEvent) {
		if ev.CommandName == "insert" {
			driverInserts.Add(1)
		}
	}}
	defer func() { testMonitor = nil }()
	for _, io := range ioModes {
		t.Run(io, func(t *testing.T) {
			driverInserts.Store(0)
			e := openManaged(t, map[string]string{"io": io})
			if got := e.Info().Options["wire"]; got != "own" {
				t.Errorf("Info wire = %q, want own (the managed server's default)", got)
			}
			if err := e.CreateTable(ctx, items, true); err != nil {
				t.Fatal(err)
			}
			s0, _ := e.NewSession(ctx)
			defer s0.Close()
			s := s0.(*session)
			before, err := e.ServerSample(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			// Batches of several sizes, a reply of more than one read's worth aside.
			want := table.NewRows(4, 0)
			next := 1
			for _, n := range []int{1, 100, 37, 1000} {
				rows := itemRows(next, n)
				if err := s.Insert(ctx, items, rows); err != nil {
					t.Fatalf("Insert of %d rows: %v", n, err)
				}
				for r := range rows.N {
					copy(want.Append(), rows.Row(r))
				}
				next += n
			}
			if s.wire.nc == nil {
				t.Fatal("the own path was not taken: no own connection")
			}
			after, err := e.ServerSample(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			if d := after.Counters["commands.insert"] - before.Counters["commands.insert"]; d != 4 {
				t.Errorf("server insert commands: %d, want 4", d)
			}
			if n := driverInserts.Load(); n != 0 {
				t.Errorf("the driver sent %d insert commands, want none", n)
			}
			checkDocs(t, e, s, want)

			// A duplicate key (the third row of five): an error naming it, the two rows before
			// it written.
			nc := s.wire.nc
			dup := itemRows(next, 5)
			dup.Row(2)[0].I = 5
			err = s.Insert(ctx, items, dup)
			if !errors.Is(err, table.ErrDuplicate) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Insert of a duplicate key: %v, want one line wrapping ErrDuplicate", err)
			}
			dupID := hex.EncodeToString(table.AppendValue(nil, table.Int64, table.Value{I: 5}))
			if !strings.Contains(err.Error(), "E11000") || !strings.Contains(err.Error(), dupID) || !strings.Contains(err.Error(), "document 2 of 5") {
				t.Errorf("duplicate key error %q: want E11000, the key %s and its document", err, dupID)
			}
			t.Logf("duplicate key: %v", err)
			copy(want.Append(), dup.Row(0))
			copy(want.Append(), dup.Row(1))
			next += 2
			rows := itemRows(next, 10)
			if err := s.Insert(ctx, items, rows); err != nil {
				t.Fatalf("Insert after the duplicate key: %v", err)
			}
			if s.wire.nc != nc {
				t.Errorf("the connection was replaced after a duplicate key")
			}
			for r := range rows.N {
				copy(want.Append(), rows.Row(r))
			}
			checkDocs(t, e, s, want)
		})
	}
}

// TestWireDSN checks wire=own through --dsn (the managed server's URI, one host without
// credentials) and the default there (driver); and that the manifest records driver where
// wire=own cannot serve (w=0).
func TestWireDSN(t *testing.T) {
	ctx := context.Background()
	m := openManaged(t, nil)
	if err := m.CreateTable(ctx, items, true); err != nil {
		t.Fatal(err)
	}
	for _, wire := range []string{"", "own"} {
		x0, err := open(ctx, engine.Options{Dir: t.TempDir(), Extra: map[string]string{"dsn": m.srv.DSN(), "wire": wire}})
		if wire == "" {
			x0, err = open(ctx, engine.Options{Dir: t.TempDir(), Extra: map[string]string{"dsn": m.srv.DSN()}})
		}
		if err != nil {
			t.Fatal(err)
		}
		x := x0.(*eng)
		if got, want := x.Info().Options["wire"], map[string]string{"": "driver", "own": "own"}[wire]; got != want {
			t.Errorf("dsn, wire=%q: Info wire = %q, want %q", wire, got, want)
		}
		s, _ := x.NewSession(ctx)
		from := 1
		if wire == "own" {
			from = 101
		}
		if err := s.Insert(ctx, items, itemRows(from, 100)); err != nil {
			t.Fatal(err)
		}
		if own := s.(*session).wire.nc != nil; own != (wire == "own") {
			t.Errorf("dsn, wire=%q: own connection used: %v", wire, own)
		}
		s.Close()
		x.Close()
	}
	s, _ := m.NewSession(ctx)
	defer s.Close()
	if n, err := s.Count(ctx, items, -1); err != nil || n != 200 {
		t.Errorf("Count = %d, %v; want 200", n, err)
	}
	// Unacknowledged writes go through InsertMany: the manifest says the driver serves them.
	w0 := openManaged(t, map[string]string{"w": "0", "wire": "own"})
	if got := w0.Info().Options["wire"]; !strings.HasPrefix(got, "driver (") || w0.wireOwn {
		t.Errorf("w=0: Info wire = %q (own path on: %v), want driver with the reason", got, w0.wireOwn)
	}
}

// TestWireOptions checks option wire's defaults and its one-line refusals.
func TestWireOptions(t *testing.T) {
	for _, tc := range []struct {
		extra map[string]string
		want  string // the effective value, or a part of the error
		ok    bool
	}{
		{nil, "own", true},
		{map[string]string{"dsn": "mongodb://db1:27017/"}, "driver", true},
		{map[string]string{"dsn": "mongodb://db1:27017/", "wire": "own"}, "own", true},
		{map[string]string{"wire": "driver"}, "driver", true},
		{map[string]string{"wtimeout_ms": "100"}, "driver", true},
		{map[string]string{"wtimeout_ms": "100", "wire": "own"}, "no operation timeout (wtimeout_ms=100); valid: wire=own with wtimeout_ms=0, or wire=driver", false},
		{map[string]string{"wire": "mine"}, "wire=\"mine\" is not valid (valid: own, driver)", false},
		{map[string]string{"dsn": "mongodb://u:pw@db1/", "wire": "own"}, "the dsn has credentials", false},
		{map[string]string{"dsn": "mongodb://db1/?authMechanism=MONGODB-X509&tls=true", "wire": "own"}, "the dsn has credentials, TLS", false},
		{map[string]string{"dsn": "mongodb://db1/?tls=true", "wire": "own"}, "the dsn has TLS", false},
		{map[string]string{"dsn": "mongodb://db1/?compressors=zlib", "wire": "own"}, "the dsn has compressors", false},
		{map[string]string{"dsn": "mongodb://db1,db2/?replicaSet=rs0", "wire": "own"}, "the dsn has 2 hosts", false},
		{map[string]string{"dsn": "mongodb+srv://cluster.example.com/", "wire": "own"}, "mongodb+srv", false},
		{map[string]string{"dsn": "http://db1/", "wire": "own"}, "does not parse", false},
	} {
		c, err := parseConfig(tc.extra, false)
		switch {
		case tc.ok && (err != nil || c.wire != tc.want):
			t.Errorf("%v: wire %q, %v; want %q", tc.extra, c.wire, err, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%v: error %v, want one line containing %q", tc.extra, err, tc.want)
		case !tc.ok && tc.extra["dsn"] != "" && !strings.Contains(err.Error(), "valid: wire=own with a dsn of exactly one host"):
			t.Errorf("%v: error %v does not say what is valid", tc.extra, err)
		}
	}
	if c, _ := parseConfig(map[string]string{"dsn": "mongodb://db1/", "wire": "own"}, false); c.wireNet != "tcp" || c.wireAddr != "db1:27017" {
		t.Errorf("dsn without a port: %s %s, want tcp db1:27017", c.wireNet, c.wireAddr)
	}
}

// TestWireCancel stops the server (SIGSTOP) under an insert on the own connection: the insert
// ends within wireGrace of its context's cancellation or deadline, and the next one, once the
// server runs again, goes on a new connection; an insert whose reply comes within the grace
// completes.
func TestWireCancel(t *testing.T) {
	ctx := context.Background()
	for _, io := range ioModes {
		t.Run(io, func(t *testing.T) {
			e := openManaged(t, map[string]string{"io": io})
			if err := e.CreateTable(ctx, items, true); err != nil {
				t.Fatal(err)
			}
			s0, _ := e.NewSession(ctx)
			defer s0.Close()
			s := s0.(*session)
			if err := s.Insert(ctx, items, itemRows(1, 100)); err != nil {
				t.Fatal(err)
			}
			next := 101
			for _, c := range []struct {
				name string
				ctx  func() (context.Context, context.CancelFunc)
				want error
			}{
				{"cancelled after 200 ms", func() (context.Context, context.CancelFunc) {
					cctx, cancel := context.WithCancel(ctx)
					time.AfterFunc(200*time.Millisecond, cancel)
					return cctx, cancel
				}, context.Canceled},
				{"a 200 ms deadline", func() (context.Context, context.CancelFunc) {
					return context.WithTimeout(ctx, 200*time.Millisecond)
				}, context.DeadlineExceeded},
			} {
				nc := s.wire.nc
				stopServer(t, e.srv.Pid())
				cctx, cancel := c.ctx()
				start := time.Now()
				err := s.Insert(cctx, items, itemRows(next, 100))
				took := time.Since(start)
				cancel()
				syscall.Kill(e.srv.Pid(), syscall.SIGCONT)
				if !errors.Is(err, c.want) || took < wireGrace || took > wireGrace+time.Second {
					t.Errorf("Insert on a stopped server, %s: %v after %v, want %v after the grace (%v) and within 1 s more", c.name, err, took, c.want, wireGrace)
				}
				next += 100
				if err := s.Insert(ctx, items, itemRows(next, 100)); err != nil {
					t.Fatalf("Insert after the server continued: %v", err)
				}
				if s.wire.nc == nc {
					t.Errorf("%s: the interrupted connection is still in use", c.name)
				}
				next += 100
			}
			// A write in flight when its context ends completes when the reply comes within
			// wireGrace: the server continues 300 ms after the cancellation.
			nc := s.wire.nc
			stopServer(t, e.srv.Pid())
			cctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			time.AfterFunc(400*time.Millisecond, func() { syscall.Kill(e.srv.Pid(), syscall.SIGCONT) })
			if err := s.Insert(cctx, items, itemRows(next, 100)); err != nil || s.wire.nc != nc {
				t.Errorf("Insert cancelled in flight, answered within the grace: %v (connection kept: %v), want it done", err, s.wire.nc == nc)
			}
			next += 100
			// A context cancelled before the insert: nothing is sent, the connection stays.
			cctx, cancel = context.WithCancel(ctx)
			cancel()
			if err := s.Insert(cctx, items, itemRows(next, 10)); !errors.Is(err, context.Canceled) {
				t.Errorf("Insert with a cancelled context: %v", err)
			}
			if err := s.Insert(ctx, items, itemRows(next, 10)); err != nil || s.wire.nc != nc {
				t.Errorf("Insert after a cancelled one: %v (connection kept: %v)", err, s.wire.nc == nc)
			}
			// The rows of the interrupted batches may have been written after the server
			// continued; the others were.
			n, err := s.Count(ctx, items, -1)
			if err != nil || n < 410 || n > 610 {
				t.Errorf("Count = %d, %v; want 410 to 610", n, err)
			}
		})
	}
}

// TestWireAllocs checks that an insert batch on the own wire path allocates nothing in steady
// state.
func TestWireAllocs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background()) // a context with a Done channel, as the runner's
	defer cancel()
	for _, io := range ioModes {
		t.Run(io, func(t *testing.T) {
			e := openManaged(t, map[string]string{"io": io})
			if err := e.CreateTable(ctx, items, true); err != nil {
				t.Fatal(err)
			}
			s, _ := e.NewSession(ctx)
			defer s.Close()
			rows := itemRows(1, 100)
			next := int64(1)
			insert := func() {
				for r := range rows.N {
					rows.Row(r)[0].I = next + int64(r)
				}
				next += int64(rows.N)
				if err := s.Insert(ctx, items, rows); err != nil {
					t.Fatal(err)
				}
			}
			insert()
			// AllocsPerRun counts the whole process's allocations, the driver's background
			// monitoring (a heartbeat every 10 s) included: the least of three measurements
			// is the batch's own.
			a := testing.AllocsPerRun(50, insert)
			for range 2 {
				a = min(a, testing.AllocsPerRun(50, insert))
			}
			if a != 0 {
				t.Errorf("%v allocations per 100-row batch, want 0", a)
			}
		})
	}
}

// BenchmarkInsertWire is BenchmarkInsertBatch100 per wire path and io mode, with the client's
// CPU time per batch (cpu-us/op).
func BenchmarkInsertWire(b *testing.B) {
	ctx := context.Background()
	for _, wire := range wireModes {
		for _, io := range ioModes {
			b.Run(wire+"/"+io, func(b *testing.B) {
				e := openManaged(b, map[string]string{"wire": wire, "io": io})
				if err := e.CreateTable(ctx, items, true); err != nil {
					b.Fatal(err)
				}
				s, _ := e.NewSession(ctx)
				defer s.Close()
				rows := itemRows(1, 100)
				next := int64(1)
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					for r := range rows.N {
						rows.Row(r)[0].I = next + int64(r)
					}
					next += int64(rows.N)
					if err := s.Insert(ctx, items, rows); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				cpu := time.Duration(r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano())
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
			})
		}
	}
}

// TestWireServerGone kills the server under the own connection: the next insert fails at once
// (the connection's end), without a cancellation.
func TestWireServerGone(t *testing.T) {
	ctx := context.Background()
	e := openManaged(t, nil)
	if err := e.CreateTable(ctx, items, true); err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	if err := s.Insert(ctx, items, itemRows(1, 100)); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(e.srv.Pid(), syscall.SIGKILL)
	start := time.Now()
	err := s.Insert(ctx, items, itemRows(101, 100))
	if took := time.Since(start); err == nil || took > 2*time.Second || strings.Contains(err.Error(), "\n") {
		t.Errorf("Insert after the server was killed: %v after %v, want one line within 2 s", err, took)
	}
	t.Logf("server gone: %v", err)
}
