package mysql

import (
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine"
)

// TestSettingsUnderCap: under a cap MyRocks' memtables are held to what the engine's share
// leaves beside its block cache, at most RocksDB's two 64 MiB write buffers; InnoDB's buffer
// pool is the cache, capped or not.
func TestSettingsUnderCap(t *testing.T) {
	for _, c := range []struct {
		te     string
		memory int64
		want   map[string]string
	}{
		{"rocksdb", 0, map[string]string{"rocksdb_block_cache_size": "33554432", "rocksdb_db_write_buffer_size": ""}},
		{"rocksdb", 128 << 20, map[string]string{"rocksdb_block_cache_size": "33554432", "rocksdb_db_write_buffer_size": "100663296"}},
		{"rocksdb", 8 << 30, map[string]string{"rocksdb_db_write_buffer_size": "134217728"}},
		{"innodb", 128 << 20, map[string]string{"innodb_buffer_pool_size": "33554432", "rocksdb_db_write_buffer_size": ""}},
	} {
		sets, _ := settings(c.te, engine.Options{CacheBytes: 32 << 20, MemoryBytes: c.memory})
		got := map[string]string{}
		for _, s := range sets {
			got[s.Name] = s.Value
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s, memory %d: %s=%q, want %q", c.te, c.memory, k, got[k], v)
			}
		}
	}
}

// TestLost: the errors after which a session reconnects: the server's and the client's codes of
// a connection ended, and a Galera node's refusals while it is out of the Primary Component;
// the same codes for other causes are not.
func TestLost(t *testing.T) {
	for _, c := range []struct {
		err  error
		lost bool
	}{
		{&gomysql.MySQLError{Number: 2013, Message: "Lost connection to server during query"}, true},
		{&gomysql.MySQLError{Number: 1047, Message: "WSREP has not yet prepared node for application use"}, true},
		{&gomysql.MySQLError{Number: 1180, Message: "Error while appending streaming replication fragment(provider status: Not connected to Primary Component)"}, true},
		{&gomysql.MySQLError{Number: 1047, Message: "Unknown command"}, false},
		{&gomysql.MySQLError{Number: 1180, Message: "Got error 28 \"No space left on device\" during COMMIT"}, false},
		{&gomysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock"}, false},
		{gomysql.ErrInvalidConn, true},
	} {
		if got := (dialect{}).Lost(c.err); got != c.lost {
			t.Errorf("Lost(%v) = %v, want %v", c.err, got, c.lost)
		}
	}
}
