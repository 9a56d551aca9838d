package sysbench

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
)

// eventKind names what one event of a test does.
type eventKind uint8

const (
	evPointQuery eventKind = iota
	evRandomPoints
	evHotPoints
	evPointsCoveredPK
	evPointsNotCoveredPK
	evPointsCoveredSI
	evPointsNotCoveredSI
	evRangeCoveredPK
	evRangeNotCoveredPK
	evRangeCoveredSI
	evRangeNotCoveredSI
	evScan
	evReadOnly
	evReadOnlySimple
	evReadOnlySum
	evReadOnlyOrder
	evReadOnlyDistinct
	evReadOnlyCount
	evUpdateIndex
	evUpdateNonIndex
	evUpdateOne
	evUpdateZipf
	evUpdateInlist
	evDelete
	evInsert
	evWriteOnly
	evReadWrite
)

// pointSelects is the number of point selects in read-only and read-write events.
const pointSelects = 10

// thread is one client of a test: its session and reusable buffers. Not shared.
type thread struct {
	no   int
	r    *Run
	test Test
	sess table.Session
	rng  gen.Rand
	args []table.Value
	out  *table.Rows
	text []byte // c and pad values of the event
	seen map[int64]struct{}
	// rows counts the rows the test's selects returned (for cross-engine checks).
	rows int64
	// acked counts the test's write events the engine acknowledged, unknown those whose
	// connection broke in flight (they may have committed).
	acked, unknown int64
}

func (th *thread) cfg() *Config { return &th.r.w.Cfg }

// pick returns the table of the next event, chosen uniformly.
func (th *thread) pick() *stmts {
	if len(th.r.tables) == 1 {
		return th.r.tables[0]
	}
	return th.r.tables[th.rng.Intn(int64(len(th.r.tables)))]
}

// id draws an id (or a range start) in [1, table size] by --rand-type.
func (th *thread) id() int64 {
	if th.r.zipf != nil && th.cfg().RandType == "zipfian" {
		return th.r.zipf.Next(&th.rng)
	}
	return th.rng.Range(1, th.cfg().TableSize)
}

// kval draws a value for k: uniform in [1, table size], as the load does.
func (th *thread) kval() int64 { return th.rng.Range(1, th.cfg().TableSize) }

// appendDigits appends groups groups of 11 random digits joined by '-' (sysbench's c and pad).
func appendDigits(dst []byte, r *gen.Rand, groups int) []byte {
	for g := 0; g < groups; g++ {
		if g > 0 {
			dst = append(dst, '-')
		}
		x := r.Uint64()
		for i := 0; i < 11; i++ {
			dst = append(dst, byte('0'+x%10))
			x /= 10
		}
	}
	return dst
}

// exec runs st with th.args and returns how many rows it returned or changed.
func (th *thread) exec(ctx context.Context, st *table.Stmt) (int64, error) {
	th.out.Reset(max(len(st.Cols), 1))
	n, err := th.sess.Exec(ctx, st, th.args, th.out)
	if st.Kind == table.Select {
		th.rows += n
	}
	return n, err
}

// want fails when a verified result is not the size it must be.
func (th *thread) want(what string, got, want int64) error {
	if th.cfg().Verify && th.r.stores && got != want {
		return fmt.Errorf("%s: %s returned %d rows, want %d", th.test.Name, what, got, want)
	}
	return nil
}

// rangeRows is how many ids of [lo, hi] exist while every id 1..TableSize does.
func (th *thread) rangeRows(lo, hi int64) int64 {
	return max(0, min(hi, th.cfg().TableSize)-max(lo, 1)+1)
}

// Sources of the values of an IN list.
const (
	fromIDs  = iota // ids by --rand-type
	fromHot         // the 100 ids from table size/2 + 1 on
	fromKVal        // k values
)

// idArgs sets th.args to n values from source and, when verifying, returns how many distinct
// ones are existing ids.
func (th *thread) idArgs(n int, source int) int64 {
	th.args = th.args[:0]
	base := th.cfg().TableSize/2 + 1
	for i := 0; i < n; i++ {
		var v int64
		switch source {
		case fromIDs:
			v = th.id()
		case fromHot:
			v = base + int64(i)
		default:
			v = th.kval()
		}
		th.args = append(th.args, table.Value{I: v})
	}
	if !th.cfg().Verify {
		return 0
	}
	clear(th.seen)
	for _, a := range th.args {
		if a.I >= 1 && a.I <= th.cfg().TableSize {
			th.seen[a.I] = struct{}{}
		}
	}
	return int64(len(th.seen))
}

// event runs one event and returns the statements it ran.
func (th *thread) event(ctx context.Context) (int, error) {
	s := th.pick()
	R := int64(th.test.Range)
	switch th.test.event {
	case evPointQuery:
		return 1, th.point(ctx, s)
	case evRandomPoints:
		return 1, th.inlist(ctx, s.inlist[th.test.Range], th.test.Range, fromIDs)
	case evHotPoints:
		return 1, th.inlist(ctx, s.inlist[100], 100, fromHot)
	case evPointsCoveredPK, evPointsNotCoveredPK:
		return 1, th.inlist(ctx, s.pointsPK[boolInt(th.test.event == evPointsNotCoveredPK)], 100, fromIDs)
	case evPointsCoveredSI, evPointsNotCoveredSI:
		th.idArgs(100, fromKVal)
		_, err := th.exec(ctx, s.pointsSI[boolInt(th.test.event == evPointsNotCoveredSI)])
		return 1, err
	case evRangeCoveredPK, evRangeNotCoveredPK:
		lo := th.id()
		th.args = append(th.args[:0], table.Value{I: lo}, table.Value{I: lo + R})
		n, err := th.exec(ctx, s.rangePK[boolInt(th.test.event == evRangeNotCoveredPK)])
		if err == nil {
			err = th.want("range", n, th.rangeRows(lo, lo+R))
		}
		return 1, err
	case evRangeCoveredSI, evRangeNotCoveredSI:
		lo := th.kval()
		th.args = append(th.args[:0], table.Value{I: lo}, table.Value{I: lo + R})
		_, err := th.exec(ctx, s.rangeSI[boolInt(th.test.event == evRangeNotCoveredSI)])
		return 1, err
	case evScan:
		s = th.r.tables[th.no%len(th.r.tables)]
		th.args = th.args[:0]
		n, err := th.exec(ctx, s.scan)
		if err == nil {
			err = th.want("scan", n, 0)
		}
		return 1, err
	case evReadOnlyCount:
		lo := th.id()
		th.args = append(th.args[:0], table.Value{I: lo}, table.Value{I: lo + R - 1})
		n, err := th.exec(ctx, s.countRange)
		if err != nil || n == 0 {
			return 1, err // the null engine returns no row
		}
		return 1, th.want("count(c)", th.out.Vals[0].I, th.rangeRows(lo, lo+R-1))
	case evReadOnly, evReadOnlySimple, evReadOnlySum, evReadOnlyOrder, evReadOnlyDistinct, evWriteOnly, evReadWrite:
		return th.txn(ctx, s)
	case evUpdateIndex:
		return 1, th.updateIndex(ctx, s, th.id())
	case evUpdateNonIndex:
		return 1, th.updateNonIndex(ctx, s, th.id())
	case evUpdateOne:
		return 1, th.updateNonIndex(ctx, s, 1)
	case evUpdateZipf:
		return 1, th.updateNonIndex(ctx, s, th.r.zipf.Next(&th.rng))
	case evUpdateInlist:
		th.text = appendDigits(th.text[:0], &th.rng, 10)
		th.args = append(th.args[:0], table.Value{B: th.text})
		for i := 0; i < 100; i++ {
			th.args = append(th.args, table.Value{I: th.id()})
		}
		_, err := th.exec(ctx, s.updateInlist)
		return 1, err
	case evDelete:
		th.args = append(th.args[:0], table.Value{I: th.id()})
		n, err := th.exec(ctx, s.deleteRow)
		if err == nil && n > 0 {
			th.r.rows[th.tableNo(s)].Add(-n)
		}
		return 1, err
	case evInsert:
		th.rowArgs(false, 0)
		_, err := th.exec(ctx, s.insertAuto)
		if err == nil {
			th.r.rows[th.tableNo(s)].Add(1)
		}
		return 1, err
	}
	return 0, fmt.Errorf("sysbench: test %s has no event", th.test.Name)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (th *thread) tableNo(s *stmts) int {
	for i, x := range th.r.tables {
		if x == s {
			return i
		}
	}
	return 0
}

// point runs one point select.
func (th *thread) point(ctx context.Context, s *stmts) error {
	th.args = append(th.args[:0], table.Value{I: th.id()})
	n, err := th.exec(ctx, s.pointSelect)
	if err == nil {
		err = th.want("point select", n, 1)
	}
	return err
}

// inlist runs an IN-list select of n ids from source.
func (th *thread) inlist(ctx context.Context, st *table.Stmt, n int, source int) error {
	distinct := th.idArgs(n, source)
	got, err := th.exec(ctx, st)
	if err == nil {
		err = th.want("IN list", got, distinct)
	}
	return err
}

// txn runs a transaction event: BEGIN, the reads and/or writes of the test, COMMIT; BEGIN and
// COMMIT count as statements.
func (th *thread) txn(ctx context.Context, s *stmts) (int, error) {
	if err := th.sess.Begin(ctx); err != nil {
		return 1, err
	}
	var n int
	var err error
	if th.test.event != evWriteOnly {
		n, err = th.reads(ctx, s)
	}
	if err == nil && (th.test.event == evWriteOnly || th.test.event == evReadWrite) {
		var m int
		m, err = th.writes(ctx, s)
		n += m
	}
	if err != nil {
		th.sess.Rollback(ctx)
		return n + 1, err
	}
	return n + 2, th.sess.Commit(ctx)
}

// reads runs the read part of read-only and read-write: 10 point selects and the range
// queries the test asks for.
func (th *thread) reads(ctx context.Context, s *stmts) (int, error) {
	for i := 0; i < pointSelects; i++ {
		if err := th.point(ctx, s); err != nil {
			return i, err
		}
	}
	n := pointSelects
	R := int64(th.test.Range)
	all := th.test.event == evReadOnly || th.test.event == evReadWrite
	ranges := [4]struct {
		ev eventKind
		st *table.Stmt
	}{{evReadOnlySimple, s.simpleRange}, {evReadOnlySum, s.sumRange}, {evReadOnlyOrder, s.orderRange}, {evReadOnlyDistinct, s.distinctRange}}
	for _, q := range ranges {
		if !all && th.test.event != q.ev {
			continue
		}
		lo := th.id()
		th.args = append(th.args[:0], table.Value{I: lo}, table.Value{I: lo + R - 1})
		got, err := th.exec(ctx, q.st)
		n++
		if err == nil && th.cfg().Verify {
			want := th.rangeRows(lo, lo+R-1)
			switch q.st {
			case s.sumRange:
				want = 1
			case s.distinctRange:
				// Updates set one c value on many rows (update-inlist): at most one per row.
				want = min(max(got, min(want, 1)), want)
			}
			err = th.want(q.st.SQL[:strings.Index(q.st.SQL, " FROM")], got, want)
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writes runs the write part of write-only and read-write: an index update, a non-index
// update, and a delete and re-insert of one id.
func (th *thread) writes(ctx context.Context, s *stmts) (int, error) {
	if err := th.updateIndex(ctx, s, th.id()); err != nil {
		return 0, err
	}
	if err := th.updateNonIndex(ctx, s, th.id()); err != nil {
		return 1, err
	}
	id := th.id()
	th.args = append(th.args[:0], table.Value{I: id})
	n, err := th.exec(ctx, s.deleteRow)
	if err != nil {
		return 2, err
	}
	th.rowArgs(true, id)
	if _, err := th.exec(ctx, s.insertRow); err != nil {
		return 3, err
	}
	if n == 0 {
		th.r.rows[th.tableNo(s)].Add(1) // the id was missing: the insert added a row
	}
	return 4, nil
}

// rowArgs sets th.args to a new row's values: (id,) k, c, pad.
func (th *thread) rowArgs(withID bool, id int64) {
	th.text = appendDigits(th.text[:0], &th.rng, 10)
	cEnd := len(th.text)
	th.text = appendDigits(th.text, &th.rng, 5)
	th.args = th.args[:0]
	if withID {
		th.args = append(th.args, table.Value{I: id})
	}
	th.args = append(th.args, table.Value{I: th.kval()}, table.Value{B: th.text[:cEnd]}, table.Value{B: th.text[cEnd:]})
}

func (th *thread) updateIndex(ctx context.Context, s *stmts, id int64) error {
	th.args = append(th.args[:0], table.Value{I: id})
	_, err := th.exec(ctx, s.updateIndex)
	return err
}

func (th *thread) updateNonIndex(ctx context.Context, s *stmts, id int64) error {
	th.text = appendDigits(th.text[:0], &th.rng, 10)
	th.args = append(th.args[:0], table.Value{B: th.text}, table.Value{I: id})
	_, err := th.exec(ctx, s.updateNonIdx)
	return err
}

// retryable says whether err is a deadlock or lock conflict after which sysbench restarts the
// event: table.ErrConflict, which every engine returns for one (MySQL 1213 and 1205, PostgreSQL
// 40P01 and 40001, the KV adapter's lock wait, and SQLite's SQLITE_BUSY, which a deferred
// transaction gets when it cannot upgrade its read lock while another connection writes:
// SQLite's form of a deadlock, where waiting cannot help); on PostgreSQL also a duplicate key
// (23505), which sysbench's pgsql driver ignores as it does those (rolled back, the event
// restarted): under READ COMMITTED the delete and insert of the same id by two clients at once
// meet it (the second delete finds the first's new row invisible, its insert then collides).
func (r *Run) retryable(err error) bool {
	return errors.Is(err, table.ErrConflict) || r.dupRetry && errors.Is(err, table.ErrDuplicate)
}
