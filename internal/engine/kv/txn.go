package kv

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/table"
)

// Transactions. A KV store gives atomic batches, not transactions, so the adapter adds what
// sysbench-style read-modify-write statements need, as MyRocks does above RocksDB:
//   - row locks: a write locks its row (one of lockStripes striped mutexes, by the row's key)
//     until its transaction commits, so concurrent read-modify-writes of one row serialize and
//     index entries stay consistent with their rows;
//   - an overlay of the rows the open transaction wrote, so its later statements read its own
//     writes (the batch itself cannot be read).
// A session that holds locks and meets a held one waits up to lockWait, then rolls back with
// table.ErrConflict (a deadlock would otherwise be possible); a session holding none waits.

const (
	lockStripes = 4096
	lockWait    = 5 * time.Millisecond
)

// rowLocks are the striped row locks of one engine.
type rowLocks struct{ m [lockStripes]sync.Mutex }

// stripe returns the lock stripe of a row by its key (table id and encoded primary key).
func stripe(key []byte) uint32 {
	return uint32(maphash.Bytes(stripeSeed, key) >> 52) // 12 bits: lockStripes
}

var stripeSeed = maphash.MakeSeed()

// overlayRow is a row the open transaction wrote: its key and value at off in the overlay's
// arena, or deleted.
type overlayRow struct {
	off, klen, vlen int
	deleted         bool
}

// txnState is a session's open transaction (or the current autocommit write statement).
type txnState struct {
	open    bool // Begin was called
	held    []uint32
	overlay []overlayRow
	arena   []byte // keys and values of overlay
}

// autoSeq hands out auto-increment keys: one above the largest key, found once.
type autoSeq struct {
	once sync.Once
	next atomic.Int64
	err  error
}

// lock takes the lock of the row whose key is key for the session's transaction.
func (s *session) lock(key []byte) error {
	st := stripe(key)
	for _, h := range s.txn.held {
		if h == st {
			return nil
		}
	}
	m := &s.e.locks.m[st]
	if !m.TryLock() {
		if len(s.txn.held) == 0 {
			m.Lock()
		} else if !waitLock(m) {
			return table.ErrConflict
		}
	}
	s.txn.held = append(s.txn.held, st)
	return nil
}

func waitLock(m *sync.Mutex) bool {
	deadline := time.Now().Add(lockWait)
	for time.Now().Before(deadline) {
		runtime.Gosched()
		if m.TryLock() {
			return true
		}
	}
	return false
}

// endTxn drops the transaction's uncommitted writes and releases its locks.
func (s *session) endTxn() {
	for _, st := range s.txn.held {
		s.e.locks.m[st].Unlock()
	}
	s.txn.held = s.txn.held[:0]
	s.txn.overlay = s.txn.overlay[:0]
	s.txn.arena = s.txn.arena[:0]
	s.txn.open = false
}

// Begin implements table.Session.
func (s *session) Begin(ctx context.Context) error {
	if s.txn.open {
		return errTxnOpen
	}
	s.txn.open = true
	return nil
}

// Commit implements table.Session.
func (s *session) Commit(ctx context.Context) error {
	err := s.batch.Commit()
	s.endTxn()
	return err
}

// Rollback implements table.Session.
func (s *session) Rollback(ctx context.Context) error {
	err := s.batch.Close()
	s.batch = s.e.store.NewBatch()
	s.endTxn()
	return err
}

// finish ends a write statement: in autocommit mode it commits; on error it rolls back.
func (s *session) finish(ctx context.Context, err error) error {
	if err != nil {
		s.Rollback(ctx)
		return err
	}
	if s.txn.open {
		return nil
	}
	return s.Commit(ctx)
}

// readRow reads row key into s.val, the transaction's own writes first, and reports whether it
// exists.
func (s *session) readRow(key []byte) ([]byte, bool, error) {
	for i := len(s.txn.overlay) - 1; i >= 0; i-- {
		o := &s.txn.overlay[i]
		if !bytes.Equal(s.txn.arena[o.off:o.off+o.klen], key) {
			continue
		}
		if o.deleted {
			return nil, false, nil
		}
		s.val = append(s.val[:0], s.txn.arena[o.off+o.klen:o.off+o.klen+o.vlen]...)
		return s.val, true, nil
	}
	var found bool
	var err error
	s.val, found, err = s.e.store.Get(key, s.val[:0])
	return s.val, found, err
}

// remember records a write of the open transaction in its overlay.
func (s *session) remember(key, val []byte, deleted bool) {
	if !s.txn.open {
		return // autocommit: the statement commits before anything reads again
	}
	o := overlayRow{off: len(s.txn.arena), klen: len(key), vlen: len(val), deleted: deleted}
	s.txn.arena = append(append(s.txn.arena, key...), val...)
	s.txn.overlay = append(s.txn.overlay, o)
}

// observe raises the sequence to at least id, a key inserted explicitly, so that generated keys
// stay above it.
func (q *autoSeq) observe(id int64) {
	for {
		cur := q.next.Load()
		if id <= cur || q.next.CompareAndSwap(cur, id) {
			return
		}
	}
}

// nextID returns the next auto-increment key of t: one above the largest key it holds (found
// once, by bisection over the key space), then counting up.
func (s *session) nextID(t *table.Table, ts *tableState) (int64, error) {
	q := ts.seq
	q.once.Do(func() {
		var top int64
		top, q.err = s.maxPK(t, ts)
		q.observe(top)
	})
	if q.err != nil {
		return 0, q.err
	}
	return q.next.Add(1), nil
}

// maxPK returns the largest primary key of t, 0 when it is empty.
func (s *session) maxPK(t *table.Table, ts *tableState) (int64, error) {
	it, err := s.e.store.NewIter(ts.bounds[0].lower, ts.bounds[0].upper)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	lo, hi := int64(-1)<<63, int64(1<<63-1)
	if t.Columns[0].Type == table.Int32 {
		lo, hi = -1<<31, 1<<31-1
	}
	key := binary.BigEndian.AppendUint32(nil, ts.id)
	exists := func(pk int64) bool { return it.SeekGE(appendKey(key[:4], t, []table.Value{{I: pk}})) }
	if !exists(lo) {
		return 0, nil // empty
	}
	// Invariant: a key >= lo exists; none >= hi+1.
	for lo < hi {
		mid := lo + int64((uint64(hi)-uint64(lo))/2) + 1 // hi-lo overflows int64 for int64 keys
		if exists(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return max(lo, 0), nil
}
