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

// NewTable returns the schema of client i's table (pi1, pi2, ...): the reference's columns and
// its three secondary indexes.
func NewTable(i int) *table.Table {
	return &table.Table{
		Name: "pi" + strconv.Itoa(i+1),
		Columns: []table.Column{
			{Name: "transactionid", Type: table.Int64, NotNull: true},
			{Name: "dateandtime", Type: table.Timestamp},
			{Name: "cashregisterid", Type: table.Int32, NotNull: true},
			{Name: "customerid", Type: table.Int32, NotNull: true},
			{Name: "productid", Type: table.Int32, NotNull: true},
			{Name: "price", Type: table.Int32, NotNull: true},
			{Name: "data", Type: table.Bytes, MaxLen: 4000, Text: true},
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
}

// NewGenerator returns the generator of table number tableNo (0-based) for seed.
func NewGenerator(seed uint64, tableNo int) *Generator {
	return &Generator{seed: gen.Mix(seed ^ gen.Mix(uint64(tableNo)+1))}
}

// Fill resets rows and fills it with the n rows whose transactionids start at first; every row
// gets dateandtime unixSecs. Each row costs four 64-bit hash outputs: two 32-bit draws per word for
// the four id columns and the data length, one word for up to 10 random characters.
func (g *Generator) Fill(rows *table.Rows, first int64, n int, unixSecs int64) {
	rows.Reset(numCols)
	for i := 0; i < n; i++ {
		id := first + int64(i)
		w1 := gen.Mix(g.seed + uint64(id))
		r := gen.NewRand(w1)
		w2, w3 := r.Uint64(), r.Uint64()
		row := rows.AppendRaw() // every column is set below
		row[colTransactionID] = table.Value{I: id}
		row[colDateAndTime] = table.Value{I: unixSecs}
		row[colCashRegisterID] = table.Value{I: gen.Scale32(uint32(w1), cashRegisters)}
		row[colCustomerID] = table.Value{I: gen.Scale32(uint32(w1>>32), customers)}
		row[colProductID] = table.Value{I: gen.Scale32(uint32(w2), products)}
		row[colPrice] = table.Value{I: gen.Scale32(uint32(w2>>32), maxPrice)}
		length := dataMinLen + int(gen.Scale32(uint32(w3), dataMaxLen-dataMinLen+1))
		randLen := length * 75 * dataRandomPct / 10000 // int(L × 0.75 × pct/100)
		data := rows.Alloc(length)
		gen.FillText(data, &r, randLen)
		row[colData] = table.Value{B: data}
	}
}
