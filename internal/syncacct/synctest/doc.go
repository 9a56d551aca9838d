// Package synctest holds the end-to-end tests of the sync accounting: real engines and private
// servers run the insert benchmark through bench.Run with --syscalls, and the tests check the
// syncs per commit that the published findings report (SQLite rollback journal vs WAL, MariaDB
// with and without the binlog), the injected latency, and the coverage notes. It has no code.
package synctest
