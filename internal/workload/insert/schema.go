package insert

import (
	"strconv"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
)

// Column positions of the insert benchmark's table.
const (
	colTransactionID = iota
	colDateAndTime
	colCashRegisterID
	colCustomerID
	colProductID
	colPrice
	colData
	numCols
)

// Value ranges of the generated columns (the reference client's defaults): each value is uniform
// in [0, n).
const (
	cashRegisters = 1000
	products      = 10000
	customers     = 100000
	maxPrice      = 500
	dataMinLen    = 10
	dataMaxLen    = 20
	dataRandomPct = 50
)

// Secondary index positions in the table's Indexes.
const (
	ixMarket = iota
	ixRegister
	ixPDC
)

// newTable returns the schema of client i's table (pi1, pi2, ...): the reference's columns and
// its three secondary indexes.
func newTable(i int) *table.Table {
	return &table.Table{
		Name: "pi" + strconv.Itoa(i+1),
		Columns: []table.Column{
			{Name: "transactionid", Type: table.Int64, NotNull: true},
			{Name: "dateandtime", Type: table.Timestamp},
			{Name: "cashregisterid", Type: table.Int64, NotNull: true},
			{Name: "customerid", Type: table.Int64, NotNull: true},
			{Name: "productid", Type: table.Int64, NotNull: true},
			{Name: "price", Type: table.Int64, NotNull: true},
			{Name: "data", Type: table.Bytes, MaxLen: 4000},
		},
		Indexes: []table.Index{
			{Name: "marketsegment", Columns: []int{colProductID, colCustomerID, colPrice}},
			{Name: "registersegment", Columns: []int{colCashRegisterID, colCustomerID, colPrice}},
			{Name: "pdc", Columns: []int{colPrice, colDateAndTime, colCustomerID}},
		},
	}
}

// Generator produces the rows of one table. Row id's columns are a pure function of the seed, the
// table and id (dateandtime excepted: it is the batch's wall-clock time, as in the reference), so
// the same seed gives the same rows however they are batched. A Generator is used by one
// goroutine.
type Generator struct {
	seed uint64
	buf  []byte
}

// NewGenerator returns the generator of table number tableNo (0-based) for seed.
func NewGenerator(seed uint64, tableNo int) *Generator {
	return &Generator{seed: gen.Mix(seed ^ gen.Mix(uint64(tableNo)+1))}
}

// Fill resets rows and fills it with the n rows whose transactionids start at first; every row
// gets dateandtime unixSecs.
func (g *Generator) Fill(rows *table.Rows, first int64, n int, unixSecs int64) {
	rows.Reset(numCols)
	for i := 0; i < n; i++ {
		id := first + int64(i)
		r := gen.NewRand(gen.Mix(g.seed + uint64(id)))
		row := rows.Append()
		row[colTransactionID].I = id
		row[colDateAndTime].I = unixSecs
		row[colCashRegisterID].I = r.Intn(cashRegisters)
		row[colCustomerID].I = r.Intn(customers)
		row[colProductID].I = r.Intn(products)
		row[colPrice].I = r.Intn(maxPrice)
		length := int(r.Range(dataMinLen, dataMaxLen))
		randLen := length * 75 * dataRandomPct / 10000 // int(L × 0.75 × pct/100)
		g.buf = gen.AppendText(g.buf[:0], &r, length, randLen)
		row[colData].B = rows.CopyBytes(g.buf)
	}
}
