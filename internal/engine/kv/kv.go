package kv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"

	"github.com/rumbench/rumbench/internal/table"
)

// createIndexBatch is the number of rows CreateIndexes reads with one iterator (none stays open
// between chunks).
const createIndexBatch = 1000

// Engine is the table model over a Store.
type Engine struct {
	store Store
	info  table.Info
	locks rowLocks

	mu     sync.Mutex // serializes catalog changes
	ids    map[uint32]string
	tables atomic.Pointer[map[string]*tableState] // copy on write
}

// tableState is what the adapter knows of one table. It is immutable once published.
type tableState struct {
	id       uint32
	indexIDs []uint32
	indexed  bool // secondary indexes exist and are maintained
	// bounds[0] is the row key range; bounds[i+1] the range of index i: [lower, upper).
	bounds []keyRange
	// seq generates auto-increment keys (shared by every copy of the state).
	seq *autoSeq
}

type keyRange struct{ lower, upper []byte }

func rangeOf(id uint32) keyRange {
	lower := binary.BigEndian.AppendUint32(nil, id)
	return keyRange{lower, table.PrefixEnd(nil, lower)}
}

var _ table.Engine = (*Engine)(nil)

// New returns the table model over store. info describes the engine for the manifest; its Family
// is set to "kv".
func New(store Store, info table.Info) *Engine {
	info.Family = "kv"
	info.Stores = true
	e := &Engine{store: store, info: info, ids: map[uint32]string{}}
	empty := map[string]*tableState{}
	e.tables.Store(&empty)
	return e
}

// Info implements table.Engine.
func (e *Engine) Info() table.Info { return e.info }

func (e *Engine) assignID(name string) (uint32, error) {
	h := fnv.New32a()
	h.Write([]byte(name))
	id := h.Sum32()
	if other, taken := e.ids[id]; taken {
		return 0, fmt.Errorf("kv: key id of %q collides with %q; rename one", name, other)
	}
	e.ids[id] = name
	return id, nil
}

func (e *Engine) publish(name string, ts *tableState) {
	old := *e.tables.Load()
	next := make(map[string]*tableState, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = ts
	e.tables.Store(&next)
}

func (e *Engine) state(t *table.Table) (*tableState, error) {
	ts := (*e.tables.Load())[t.Name]
	if ts == nil {
		return nil, fmt.Errorf("kv: table %s does not exist", t.Name)
	}
	return ts, nil
}

// CreateTable implements table.Engine.
func (e *Engine) CreateTable(ctx context.Context, t *table.Table, withIndexes bool) error {
	if err := t.Validate(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if (*e.tables.Load())[t.Name] != nil {
		return fmt.Errorf("kv: table %s exists", t.Name)
	}
	ts := &tableState{indexed: withIndexes, seq: &autoSeq{}}
	var err error
	if ts.id, err = e.assignID(t.Name); err != nil {
		return err
	}
	ts.bounds = append(ts.bounds, rangeOf(ts.id))
	for _, ix := range t.Indexes {
		id, err := e.assignID(t.Name + "/" + ix.Name)
		if err != nil {
			return err
		}
		ts.indexIDs = append(ts.indexIDs, id)
		ts.bounds = append(ts.bounds, rangeOf(id))
	}
	e.publish(t.Name, ts)
	return nil
}

// CreateIndexes implements table.Engine: it collects every index entry of t's rows, sorts them
// (spilling sorted runs to temporary files past sortRunBytes) and writes them in key order in
// batches (see buildIndexes). No iterator is open while a batch commits (bbolt would deadlock
// remapping its file under an open read transaction).
func (e *Engine) CreateIndexes(ctx context.Context, t *table.Table) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	ts, err := e.state(t)
	if err != nil {
		return err
	}
	if ts.indexed {
		return nil
	}
	if err := e.buildIndexes(ctx, t, ts); err != nil {
		return err
	}
	next := *ts
	next.indexed = true
	e.publish(t.Name, &next)
	return nil
}

var _ table.Keeper = (*Engine)(nil)

// AttachTable implements table.Keeper. The store has no catalog: a table's keys live under ids
// derived from its name, so t exists when its row range holds a key, and is indexed when its
// first index's range does (or its row range is empty).
func (e *Engine) AttachTable(ctx context.Context, t *table.Table) (bool, bool, error) {
	if err := t.Validate(); err != nil {
		return false, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ts := (*e.tables.Load())[t.Name]; ts != nil {
		return true, ts.indexed || len(t.Indexes) == 0, nil
	}
	ts := &tableState{seq: &autoSeq{}}
	ids := []string{t.Name}
	for _, ix := range t.Indexes {
		ids = append(ids, t.Name+"/"+ix.Name)
	}
	for i, name := range ids {
		h := fnv.New32a()
		h.Write([]byte(name))
		id := h.Sum32()
		if other, taken := e.ids[id]; taken && other != name {
			return false, false, fmt.Errorf("kv: key id of %q collides with %q; rename one", name, other)
		}
		if i == 0 {
			ts.id = id
		} else {
			ts.indexIDs = append(ts.indexIDs, id)
		}
		ts.bounds = append(ts.bounds, rangeOf(id))
	}
	exists, err := e.anyKey(ts.bounds[0])
	if err != nil || !exists {
		return false, false, err
	}
	ts.indexed = true
	if len(t.Indexes) > 0 {
		if ts.indexed, err = e.anyKey(ts.bounds[1]); err != nil {
			return false, false, err
		}
	}
	for _, name := range ids {
		h := fnv.New32a()
		h.Write([]byte(name))
		e.ids[h.Sum32()] = name
	}
	e.publish(t.Name, ts)
	return true, ts.indexed, nil
}

// anyKey says whether r holds a key.
func (e *Engine) anyKey(r keyRange) (bool, error) {
	it, err := e.store.NewIter(r.lower, r.upper)
	if err != nil {
		return false, err
	}
	found := it.SeekGE(r.lower)
	return found, it.Close()
}

// DropTable implements table.Keeper: it deletes every key of t's rows and indexes, in batches
// of createIndexBatch keys (no iterator open while a batch commits).
func (e *Engine) DropTable(ctx context.Context, t *table.Table) error {
	if _, _, err := e.AttachTable(ctx, t); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ts := (*e.tables.Load())[t.Name]
	if ts == nil {
		return nil
	}
	for _, r := range ts.bounds {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			keys, err := e.firstKeys(r, createIndexBatch)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				break
			}
			b := e.store.NewBatch()
			for _, k := range keys {
				if err := b.Delete(k); err != nil {
					b.Close()
					return err
				}
			}
			if err := b.Commit(); err != nil {
				b.Close()
				return err
			}
			if err := b.Close(); err != nil {
				return err
			}
		}
	}
	old := *e.tables.Load()
	next := make(map[string]*tableState, len(old))
	for k, v := range old {
		if k != t.Name {
			next[k] = v
		}
	}
	e.tables.Store(&next)
	delete(e.ids, ts.id)
	for _, id := range ts.indexIDs {
		delete(e.ids, id)
	}
	return nil
}

// firstKeys returns copies of the first n keys of r.
func (e *Engine) firstKeys(r keyRange, n int) ([][]byte, error) {
	it, err := e.store.NewIter(r.lower, r.upper)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	for ok := it.SeekGE(r.lower); ok && len(keys) < n; ok = it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	return keys, it.Close()
}

// NewSession implements table.Engine.
func (e *Engine) NewSession(ctx context.Context) (table.Session, error) {
	return &session{e: e, batch: e.store.NewBatch()}, nil
}

// Cleanup implements table.Engine.
func (e *Engine) Cleanup(ctx context.Context) (string, error) { return e.store.Maintain(ctx) }

// Settle implements table.Settler through the store's Settler; a store without one has
// nothing deferred (it writes in place at commit).
func (e *Engine) Settle(ctx context.Context) (table.Settled, error) {
	if s, ok := e.store.(Settler); ok {
		return s.Settle(ctx)
	}
	return table.Settled{DebtBytes: -1}, nil
}

// Size implements table.Engine.
func (e *Engine) Size(ctx context.Context) (int64, bool, error) {
	n, ok := e.store.Size()
	return n, ok, nil
}

// Close implements table.Engine.
func (e *Engine) Close() error { return e.store.Close() }

// session is a table.Session over the store. Its buffers are reused from call to call.
type session struct {
	e     *Engine
	batch Batch
	c     codec
	row   []table.Value
	key   []byte
	val   []byte
	txn   txnState
	sel   selectState
	// inArgs and inKeys hold the deduplicated arguments of an IN statement; keyVals the values of
	// one primary key; prefix a key prefix with a statement's Consts.
	inArgs, inKeys, keyVals, prefix, ordered, also []table.Value
	// valid holds the statements that passed Validate.
	valid map[*table.Stmt]bool
}

func (s *session) rowBuf(n int) []table.Value {
	if cap(s.row) < n {
		s.row = make([]table.Value, n)
	}
	return s.row[:n]
}

// Insert implements table.Session.
func (s *session) Insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	ts, err := s.e.state(t)
	if err != nil {
		return err
	}
	auto := t.Columns[0].AutoIncrement
	for r := 0; r < rows.N; r++ {
		row := rows.Row(r)
		if err := s.batch.Set(s.c.pkKey(t, ts.id, row[:t.Keys()]), s.c.encodeRow(t, row)); err != nil {
			return err
		}
		if auto {
			ts.seq.observe(row[0].I)
		}
		if !ts.indexed {
			continue
		}
		for i := range t.Indexes {
			if err := s.batch.Set(s.c.indexKey(t, ts.indexIDs[i], i, row), nil); err != nil {
				return err
			}
		}
	}
	return s.batch.Commit()
}

// DeleteOldest implements table.Session. It reads each row to find its index entries.
func (s *session) DeleteOldest(ctx context.Context, t *table.Table, fromPK int64, n int) (int, error) {
	ts, err := s.e.state(t)
	if err != nil {
		return 0, err
	}
	if err := singleIntKey(t); err != nil {
		return 0, err
	}
	it, err := s.e.store.NewIter(ts.bounds[0].lower, ts.bounds[0].upper)
	if err != nil {
		return 0, err
	}
	row := s.rowBuf(len(t.Columns))
	deleted := 0
	for ok := it.SeekGE(s.c.intKey(t, ts.id, fromPK)); ok && deleted < n; ok = it.Next() {
		if err := s.c.decodeRow(t, it.Key()[4:], it.Value(), row); err != nil {
			it.Close()
			return 0, err
		}
		if err := s.batch.Delete(it.Key()); err != nil {
			it.Close()
			return 0, err
		}
		if ts.indexed {
			for i := range t.Indexes {
				if err := s.batch.Delete(s.c.indexKey(t, ts.indexIDs[i], i, row)); err != nil {
					it.Close()
					return 0, err
				}
			}
		}
		deleted++
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	return deleted, s.batch.Commit()
}

// Get implements table.Session.
func (s *session) Get(ctx context.Context, t *table.Table, pks []int64, cols []int, out *table.Rows) error {
	ts, err := s.e.state(t)
	if err != nil {
		return err
	}
	if err := singleIntKey(t); err != nil {
		return err
	}
	row := s.rowBuf(len(t.Columns))
	for _, pk := range pks {
		var found bool
		s.val, found, err = s.e.store.Get(s.c.intKey(t, ts.id, pk), s.val[:0])
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		row[0].I = pk
		if err := s.c.decodeValue(t, s.val, row); err != nil {
			return err
		}
		dst := out.Append()
		for i, c := range cols {
			dst[i].I = row[c].I
			if row[c].B != nil {
				dst[i].B = out.CopyBytes(row[c].B)
			}
		}
	}
	return nil
}

// singleIntKey refuses a table whose primary key is not one integer column, for the calls that
// take int64 keys.
func singleIntKey(t *table.Table) error {
	if t.Keys() != 1 || t.Columns[0].Type == table.Bytes {
		return fmt.Errorf("kv: table %s: Get and DeleteOldest take a single integer key (use Exec)", t.Name)
	}
	return nil
}

// Scan implements table.Session.
func (s *session) Scan(ctx context.Context, t *table.Table, index int, start []table.Value, inclusive bool, limit int, out *table.Rows) error {
	ts, err := s.e.state(t)
	if err != nil {
		return err
	}
	if !ts.indexed {
		return fmt.Errorf("kv: table %s has no secondary indexes yet", t.Name)
	}
	ix := t.Indexes[index]
	rg := ts.bounds[index+1]
	it, err := s.e.store.NewIter(rg.lower, rg.upper)
	if err != nil {
		return err
	}
	s.key = append(s.key[:0], rg.lower...)
	for i, v := range start {
		s.key = table.AppendValue(s.key, t.Columns[ix.Columns[i]].Type, v)
	}
	if !inclusive {
		s.val = table.PrefixEnd(s.val[:0], s.key)
		s.key = append(s.key[:0], s.val...)
		if len(s.val) == 0 {
			s.key = nil
		}
	}
	n := 0
	for ok := s.key != nil && it.SeekGE(s.key); ok && n < limit; ok = it.Next() {
		dst := out.Append()
		rest := it.Key()[4:]
		for i, c := range ix.Columns {
			if t.Columns[c].Type == table.Bytes {
				it.Close()
				return errors.New("kv: bytes index columns are not supported")
			}
			if dst[i].I, rest, err = table.DecodeValue(t.Columns[c].Type, rest); err != nil {
				it.Close()
				return err
			}
		}
		n++
	}
	return it.Close()
}

// Count implements table.Session.
func (s *session) Count(ctx context.Context, t *table.Table, index int) (int64, error) {
	ts, err := s.e.state(t)
	if err != nil {
		return 0, err
	}
	rg := ts.bounds[0]
	if index >= 0 {
		if !ts.indexed {
			return 0, nil
		}
		rg = ts.bounds[index+1]
	}
	it, err := s.e.store.NewIter(rg.lower, rg.upper)
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.SeekGE(rg.lower); ok; ok = it.Next() {
		n++
	}
	return n, it.Close()
}

// Close implements table.Session. An open transaction is rolled back.
func (s *session) Close() error {
	s.endTxn()
	return s.batch.Close()
}

// Store returns the underlying store, for engine-specific tests and tools.
func (e *Engine) Store() Store { return e.store }
