package mongo

import (
	"context"
	"fmt"
	"maps"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/rumbench/rumbench/internal/table"
)

// dbStats are dbStats' sizes of the database, bytes (0 when not reported).
type dbStats struct {
	objects, data, storage, index, total int64
}

func (e *eng) dbStats(ctx context.Context) (dbStats, error) {
	raw, err := e.db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Raw()
	if err != nil {
		return dbStats{}, fmt.Errorf("mongo: dbStats: %w", err)
	}
	num := func(k string) int64 {
		v, err := raw.LookupErr(k)
		if err != nil {
			return 0
		}
		n, _ := v.AsInt64OK()
		if f, ok := v.DoubleOK(); ok {
			n = int64(f)
		}
		return n
	}
	return dbStats{objects: num("objects"), data: num("dataSize"), storage: num("storageSize"), index: num("indexSize"), total: num("totalSize")}, nil
}

// statusCounters are the serverStatus counters a step reports, by their rumbench names, with
// their paths in the serverStatus document. A server that lacks one (FerretDB lacks all but the
// command counts) leaves it out: "not reported".
var statusCounters = []struct {
	name string
	path []string
}{
	{"opcounters.insert", []string{"opcounters", "insert"}},
	{"opcounters.query", []string{"opcounters", "query"}},
	{"opcounters.update", []string{"opcounters", "update"}},
	{"opcounters.delete", []string{"opcounters", "delete"}},
	{"opcounters.getmore", []string{"opcounters", "getmore"}},
	{"opcounters.command", []string{"opcounters", "command"}},
	{"documents.inserted", []string{"metrics", "document", "inserted"}},
	{"documents.returned", []string{"metrics", "document", "returned"}},
	{"documents.updated", []string{"metrics", "document", "updated"}},
	{"documents.deleted", []string{"metrics", "document", "deleted"}},
	{"wt.cache_bytes_read", []string{"wiredTiger", "cache", "bytes read into cache"}},
	{"wt.cache_bytes_written", []string{"wiredTiger", "cache", "bytes written from cache"}},
	{"wt.log_bytes_written", []string{"wiredTiger", "log", "log bytes written"}},
	{"wt.log_syncs", []string{"wiredTiger", "log", "log sync operations"}},
	{"wt.checkpoints", []string{"wiredTiger", "transaction", "transaction checkpoints"}},
	{"wt.block_bytes_written", []string{"wiredTiger", "block-manager", "bytes written"}},
	{"wt.block_bytes_read", []string{"wiredTiger", "block-manager", "bytes read"}},
	{"journal.commits", []string{"dur", "commits"}}, // mmapv1
	{"journal.mb", []string{"dur", "journaledMB"}},  // mmapv1
	{"commands.insert", []string{"metrics", "commands", "insert", "total"}},
	{"commands.find", []string{"metrics", "commands", "find", "total"}},
	{"commands.update", []string{"metrics", "commands", "update", "total"}},
	{"commands.delete", []string{"metrics", "commands", "delete", "total"}},
	{"commands.aggregate", []string{"metrics", "commands", "aggregate", "total"}},
}

// lookupInt returns the number at path in doc.
func lookupInt(doc bson.Raw, path []string) (int64, bool) {
	v, err := doc.LookupErr(path...)
	if err != nil {
		return 0, false
	}
	if n, ok := v.AsInt64OK(); ok {
		return n, true
	}
	if f, ok := v.DoubleOK(); ok {
		return int64(f), true
	}
	return 0, false
}

// hasDoc reports whether doc has an embedded document at path.
func hasDoc(doc bson.Raw, path ...string) bool {
	v, err := doc.LookupErr(path...)
	return err == nil && v.Type == bson.TypeEmbeddedDocument
}

// ServerSample implements table.ServerReporter: serverStatus' counters (operations, documents,
// WiredTiger cache and log bytes, log syncs, checkpoints; FerretDB: command counts), dbStats'
// object count and sizes (with pss only: at a step's start and end), and the managed server's
// process tree. LogBytes and Fsyncs are WiredTiger's log bytes
// written and log sync operations, -1 when the server does not report them.
func (e *eng) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s := table.ServerSample{LogBytes: -1, Fsyncs: -1, Counters: map[string]int64{}}
	if !pss {
		// A tick must not wait on a busy server (FerretDB answers serverStatus after the
		// query it is scanning for): past tickBudget the tick keeps the last reading, and the
		// next one catches up (the counters are cumulative).
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, tickBudget)
		defer cancel()
	}
	raw, err := e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	switch {
	case err != nil && !pss && e.last.Counters != nil:
		s.LogBytes, s.Fsyncs = e.last.LogBytes, e.last.Fsyncs
		for k, v := range e.last.Counters {
			s.Counters[k] = v
		}
		return e.withTree(s, pss)
	case err != nil:
		return s, fmt.Errorf("mongo: serverStatus: %w", err)
	}
	for _, c := range statusCounters {
		if v, ok := lookupInt(raw, c.path); ok {
			s.Counters[c.name] = v
		} else if _, err := raw.LookupErr(c.path[:len(c.path)-1]...); err == nil || (c.path[1] == "commands" && hasDoc(raw, "metrics", "commands")) {
			// The server keeps this group (FerretDB lists a command once it has run): the
			// counter is 0 so far, not "not reported".
			s.Counters[c.name] = 0
		}
	}
	if v, ok := s.Counters["wt.log_bytes_written"]; ok {
		s.LogBytes = v
	}
	if v, ok := s.Counters["wt.log_syncs"]; ok {
		s.Fsyncs = v
	}
	// dbStats walks every collection (FerretDB counts their rows): only at a step's start and
	// end, when the runner also asks for PSS, not on every tick.
	if pss {
		if st, err := e.dbStats(ctx); err == nil {
			s.Counters["dbstats.objects"] = st.objects
			s.Counters["dbstats.data_bytes"] = st.data
			s.Counters["dbstats.index_bytes"] = st.index
		}
	}
	e.last = table.ServerSample{LogBytes: s.LogBytes, Fsyncs: s.Fsyncs, Counters: maps.Clone(s.Counters)}
	return e.withTree(s, pss)
}

// tickBudget bounds a tick's serverStatus.
const tickBudget = 200 * time.Millisecond

// withTree adds the managed server's process figures to s.
func (e *eng) withTree(s table.ServerSample, pss bool) (table.ServerSample, error) {
	if e.srv != nil {
		st, err := e.srv.Stats(pss)
		if err != nil {
			return s, err
		}
		s.Managed, s.CPUTicks, s.UserTicks, s.RSSBytes, s.PSSBytes = true, st.CPUTicks, st.UserTicks, st.RSSBytes, st.PSSBytes
	}
	return s, nil
}
