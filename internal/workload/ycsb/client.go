package ycsb

import (
	"context"
	"errors"
	"fmt"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

// client is one YCSB client thread: its session, its random source and generators, and the
// buffers its operations reuse, so that an operation allocates nothing.
type client struct {
	r    *Run
	st   *stmts
	sess table.Session
	rng  gen.Rand

	ordered  bool
	fields   int
	fieldLen *ycsbgen.FieldLength
	// Run generators (runGenerators).
	mix     *ycsbgen.DiscreteChooser
	keys    ycsbgen.KeyGenerator
	exp     *ycsbgen.Exponential
	scanLen ycsbgen.KeyGenerator

	// pending says the insert of key number pendingKey failed and is to be sent again.
	pending    bool
	pendingKey int64

	key   []byte        // the current key name
	vals  []byte        // field values being written
	offs  []int         // value boundaries in vals
	args  []table.Value // statement arguments
	out   *table.Rows   // statement results
	tmp   []byte        // scratch for value checks
	batch *table.Rows   // one record, for inserts
}

// newClient returns a client working through sess, with a random source seeded from the run's
// seed, the client's number and salt (one per step), so every step draws its own stream.
func (r *Run) newClient(sess table.Session, no int, salt uint64) (*client, error) {
	core := &r.w.Cfg.Core
	c := &client{r: r, st: r.w.stmts, sess: sess, ordered: core.InsertOrder == "ordered", fields: int(core.FieldCount),
		rng: gen.NewRand(gen.Mix(r.w.Cfg.Seed ^ salt<<44 ^ uint64(no+1)))}
	var err error
	if c.fieldLen, err = ycsbgen.NewFieldLength(core.FieldLengthDistribution, int64(core.MinFieldLength), int64(core.FieldLength)); err != nil {
		return nil, err
	}
	c.out = table.NewRows(1+c.fields, 16)
	c.batch = table.NewRows(1+c.fields, 1)
	c.args = make([]table.Value, 0, 1+c.fields)
	return c, nil
}

// runGenerators sets up the run's key, scan-length and operation choosers as YCSB's
// CoreWorkload does.
func (c *client) runGenerators(choices []ycsbgen.Choice) error {
	core := &c.r.w.Cfg.Core
	var err error
	if c.mix, err = ycsbgen.NewDiscreteChooser(choices...); err != nil {
		return err
	}
	lo, hi := core.InsertStart, core.InsertStart+core.InsertCount-1
	switch core.RequestDistribution {
	case "uniform":
		c.keys, err = ycsbgen.NewUniform(lo, hi)
	case "sequential":
		c.keys = c.r.seq
	case "zipfian":
		// Keys inserted during the run are chosen too: YCSB widens the range by twice the
		// inserts operationcount is expected to make.
		expected := int64(float64(core.OperationCount) * core.InsertProportion * 2)
		c.keys, err = ycsbgen.NewScrambledZipfian(lo, hi+1+expected)
	case "latest":
		c.keys = ycsbgen.NewSkewedLatest(c.r.ack)
	case "hotspot":
		c.keys, err = ycsbgen.NewHotspot(lo, hi, core.HotspotDataFraction, core.HotspotOpnFraction)
	case "exponential":
		c.exp, err = ycsbgen.NewExponential(core.ExponentialPercentile, core.RecordCount, core.ExponentialFrac)
	default:
		err = fmt.Errorf("requestdistribution=%s: not known", core.RequestDistribution)
	}
	if err != nil {
		return err
	}
	if core.ScanLengthDistribution == "zipfian" {
		c.scanLen, err = ycsbgen.NewZipfian(int64(core.MinScanLength), int64(core.MaxScanLength), ycsbgen.ZipfianConstant)
	} else {
		c.scanLen, err = ycsbgen.NewUniform(int64(core.MinScanLength), int64(core.MaxScanLength))
	}
	return err
}

// nextKeynum chooses the key number of a read, update, scan or read-modify-write: never one
// beyond the acknowledged inserts (YCSB's CoreWorkload.nextKeynum).
func (c *client) nextKeynum() int64 {
	last := c.r.ack.Last()
	if c.exp != nil {
		return c.exp.NextKey(&c.rng, last)
	}
	for {
		if k := c.keys.Next(&c.rng); k <= last {
			return k
		}
	}
}

// setKey makes c.key the name of key number keynum (of this shard's sequence: see globalKey).
func (c *client) setKey(keynum int64) {
	keynum = c.r.w.globalKey(keynum) // a shard's inserts interleave with the others'
	c.key = ycsbgen.BuildKeyName(c.key[:0], keynum, c.ordered, c.r.w.Cfg.Core.ZeroPadding)
}

// buildValues fills c.vals with new values of fields (positions 0..fields-1), written with one
// fresh nonce, and c.offs with their boundaries.
func (c *client) buildValues(fields []int, one int) {
	kh := keyHash(c.key)
	nonce := c.rng.Uint64()
	c.vals, c.offs = c.vals[:0], append(c.offs[:0], 0)
	if fields == nil {
		c.vals = appendField(c.vals, kh, one, nonce, int(c.fieldLen.Next(&c.rng)))
		c.offs = append(c.offs, len(c.vals))
		return
	}
	for _, f := range fields {
		c.vals = appendField(c.vals, kh, f, nonce, int(c.fieldLen.Next(&c.rng)))
		c.offs = append(c.offs, len(c.vals))
	}
}

// value returns the i-th value buildValues built.
func (c *client) value(i int) table.Value {
	return table.Value{B: c.vals[c.offs[i]:c.offs[i+1]:c.offs[i+1]]}
}

// buildRecords fills rows with n new records from key number first on.
func (c *client) buildRecords(rows *table.Rows, first, n int64) {
	cols := 1 + c.fields
	rows.Reset(cols)
	// Keys and values go into one buffer first, then into the rows, so that the buffer's growth
	// cannot leave a row pointing at a stale copy.
	c.tmp = c.tmp[:0]
	c.offs = c.offs[:0]
	for k := first; k < first+n; k++ {
		c.setKey(k)
		kh := keyHash(c.key)
		nonce := c.rng.Uint64()
		c.offs = append(c.offs, len(c.tmp))
		c.tmp = append(c.tmp, c.key...)
		for f := 0; f < c.fields; f++ {
			c.offs = append(c.offs, len(c.tmp))
			c.tmp = appendField(c.tmp, kh, f, nonce, int(c.fieldLen.Next(&c.rng)))
		}
	}
	c.offs = append(c.offs, len(c.tmp))
	for i := 0; i < int(n); i++ {
		row := rows.AppendRaw()
		for j := range row {
			o := c.offs[i*cols+j : i*cols+j+2]
			row[j] = table.Value{B: c.tmp[o[0]:o[1]:o[1]]}
		}
	}
}

// do runs one operation and returns its units (records read, written or scanned).
func (c *client) do(ctx context.Context, op int) (int, error) {
	core := &c.r.w.Cfg.Core
	switch op {
	case opRead:
		n, err := c.readRecord(ctx, c.nextKeynum(), core.ReadAllFields, core.DataIntegrity)
		return int(n), err
	case opUpdate:
		return c.updateRecord(ctx, c.nextKeynum())
	case opInsert:
		return c.insertRecord(ctx)
	case opScan:
		n, err := c.scan(ctx)
		return int(n), err
	case opRMW:
		keynum := c.nextKeynum()
		if _, err := c.readRecord(ctx, keynum, core.ReadAllFields, core.DataIntegrity); err != nil {
			return 0, err
		}
		return c.updateRecord(ctx, keynum)
	}
	return 0, fmt.Errorf("ycsb: no operation %d", op)
}

// readRecord reads record keynum, every column (the JDBC binding reads SELECT * whether it
// wants every field or one chosen at random), and checks the values read when verify is set
// (dataintegrity). It returns the rows read.
func (c *client) readRecord(ctx context.Context, keynum int64, all, verify bool) (int64, error) {
	c.setKey(keynum)
	st := c.st.read
	if !all {
		c.rng.Intn(int64(c.fields)) // the field YCSB would keep of what it read
	}
	c.args = append(c.args[:0], table.Value{B: c.key})
	c.out.Reset(len(st.Cols))
	n, err := c.sess.Exec(ctx, st, c.args, c.out)
	if err != nil {
		return 0, err
	}
	if n == 0 && c.r.stores {
		c.r.missing.Add(1)
	}
	if n > 0 && verify {
		c.checkRow(c.out.Row(0), st.Cols)
	}
	return n, nil
}

// checkRow counts the fields of row (columns cols of the usertable) that are not values the
// load or an update wrote for c.key.
func (c *client) checkRow(row []table.Value, cols []int) {
	kh := keyHash(c.key)
	for i, col := range cols {
		if col == 0 {
			continue
		}
		var ok bool
		if ok, c.tmp = fieldOK(c.tmp, row[i].B, kh, col-1); !ok {
			c.r.badValues.Add(1)
		}
	}
}

// updateRecord writes new values into record keynum: every field (writeallfields) or one.
func (c *client) updateRecord(ctx context.Context, keynum int64) (int, error) {
	c.setKey(keynum)
	st := c.st.updateAll
	if c.r.w.Cfg.Core.WriteAllFields {
		c.buildValues(c.st.order, 0)
	} else {
		f := int(c.rng.Intn(int64(c.fields)))
		st = c.st.updateOne[f]
		c.buildValues(nil, f)
	}
	c.args = c.args[:0]
	for i := 0; i < len(c.offs)-1; i++ {
		c.args = append(c.args, c.value(i))
	}
	c.args = append(c.args, table.Value{B: c.key})
	_, err := c.sess.Exec(ctx, st, c.args, c.out)
	if err != nil {
		return 0, err
	}
	// No count of missing records here: MySQL reports 0 rows for an update that wrote what the
	// row held (a short field has no nonce), so the reads and the final scan do the checking.
	return 1, nil
}

// insertRecord inserts the next record of the run and acknowledges its key number, so reads
// may choose it from then on.
// A failed insert (a lost connection the run goes on through) is sent again at the client's
// next insert, with the same key and values: a duplicate key then says the first one committed.
func (c *client) insertRecord(ctx context.Context) (int, error) {
	keynum, again := c.pendingKey, c.pending
	if !again {
		keynum = c.r.ack.Next()
	}
	c.buildRecords(c.batch, keynum, 1)
	err := c.insertOne(ctx, c.batch.Row(0))
	if again && errors.Is(err, table.ErrDuplicate) {
		err = nil
	}
	if err != nil {
		if !again && table.UnknownOutcome(err) {
			c.r.unknownInserts.Add(1)
		}
		c.pending, c.pendingKey = ctx.Err() == nil, keynum
		return 0, err
	}
	c.pending = false
	if err := c.r.ack.Acknowledge(keynum); err != nil {
		return 0, err
	}
	return 1, nil
}

// insertOne inserts row (every column in table order) with the JDBC binding's INSERT: one
// statement in autocommit, its columns in the binding's order.
func (c *client) insertOne(ctx context.Context, row []table.Value) error {
	st := c.st.insert
	c.args = c.args[:0]
	for _, col := range st.InsertCols {
		c.args = append(c.args, row[col])
	}
	_, err := c.sess.Exec(ctx, st, c.args, c.out)
	return err
}

// scan reads up to a drawn number of records in key order from a chosen key: every field or one.
func (c *client) scan(ctx context.Context) (int64, error) {
	c.setKey(c.nextKeynum())
	st := c.st.scan // SELECT *, as for a read
	if !c.r.w.Cfg.Core.ReadAllFields {
		c.rng.Intn(int64(c.fields))
	}
	length := c.scanLen.Next(&c.rng)
	c.args = append(c.args[:0], table.Value{B: c.key}, table.Value{I: length})
	c.out.Reset(len(st.Cols))
	n, err := c.sess.Exec(ctx, st, c.args, c.out)
	if err != nil {
		return 0, err
	}
	if n > length {
		return n, fmt.Errorf("a scan of %d records returned %d", length, n)
	}
	if n == 0 && c.r.stores {
		c.r.missing.Add(1) // the start key itself exists
	}
	return n, nil
}

// checkChunk is the records one verification scan reads at a time.
const checkChunk = 1000

// scanAll reads the whole table in key order, checking every field of every record, and
// returns the fingerprint of its keys.
func (c *client) scanAll(ctx context.Context) (keySet, error) {
	var ks keySet
	st := c.st.scan
	var from []byte // the next start key; empty sorts first
	first := true
	for {
		c.args = append(c.args[:0], table.Value{B: from}, table.Value{I: checkChunk})
		if from == nil {
			c.args[0].B = []byte{}
		}
		c.out.Reset(len(st.Cols))
		n, err := c.sess.Exec(ctx, st, c.args, c.out)
		if err != nil {
			return ks, err
		}
		start := 0
		if !first && n > 0 {
			start = 1 // the chunk starts at the last key of the previous one
		}
		for i := start; i < c.out.N; i++ {
			row := c.out.Row(i)
			c.key = append(c.key[:0], row[0].B...)
			ks.add(c.key)
			c.checkRow(row, st.Cols)
		}
		if n < checkChunk {
			return ks, nil
		}
		from = append(from[:0], c.out.Row(c.out.N - 1)[0].B...)
		first = false
	}
}
