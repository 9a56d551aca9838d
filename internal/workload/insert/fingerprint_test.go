package insert

import (
	"encoding/binary"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// The generated rows are part of every published result: the same seed must give the same rows,
// on every machine, however they are batched. These tests pin them with a fingerprint.

const (
	fpSeed     = 3221223452
	fpRows     = 5000
	fpUnixSecs = 1_700_000_000
)

// Golden fingerprints of rows 1..5000 of tables 0 and 1 for seed 3221223452. A change means the
// generated data changed, which changes every published result: do not update these constants
// unless the change is intended, and say so in the notes of the results it affects.
const (
	fpGoldenTable0 = 0x09a8e1c82808daa9
	fpGoldenTable1 = 0xf2cfde3965820da8
)

// fpGenerator is the generator the fingerprints are taken of.
func fpGenerator(seed uint64, tableNo int) *Generator { return NewGenerator(seed, tableNo) }

// fpAppendRows appends a canonical encoding of every row of rows to dst: per cell, an int as 8
// big-endian bytes, bytes as 0xFF for NULL or a uvarint length and the bytes.
func fpAppendRows(dst []byte, rows *table.Rows) []byte {
	t := NewTable(0)
	for r := 0; r < rows.N; r++ {
		for c, v := range rows.Row(r) {
			if t.Columns[c].Type != table.Bytes {
				dst = binary.BigEndian.AppendUint64(dst, uint64(v.I))
				continue
			}
			if v.B == nil {
				dst = append(dst, 0xFF)
				continue
			}
			dst = binary.AppendUvarint(dst, uint64(len(v.B)))
			dst = append(dst, v.B...)
		}
	}
	return dst
}

// fpHash returns the FNV-64a hash of rows 1..fpRows of table tableNo, filled batch rows at a time.
func fpHash(seed uint64, tableNo, batch int) uint64 {
	g := fpGenerator(seed, tableNo)
	rows := table.NewRows(numCols, batch)
	h := fnv.New64a()
	var buf []byte
	for first := int64(1); first <= fpRows; first += int64(batch) {
		n := int(min(int64(batch), fpRows-first+1))
		g.Fill(rows, first, n, fpUnixSecs)
		if rows.N != n || rows.Cols != numCols {
			panic("Fill did not produce the rows asked for")
		}
		buf = fpAppendRows(buf[:0], rows)
		h.Write(buf)
	}
	return h.Sum64()
}

func TestGeneratorFingerprint(t *testing.T) {
	for _, tc := range []struct {
		table int
		want  uint64
	}{{0, fpGoldenTable0}, {1, fpGoldenTable1}} {
		if got := fpHash(fpSeed, tc.table, 100); got != tc.want {
			t.Errorf("table %d: fingerprint of rows 1..%d for seed %d = %#x, want %#x: the generated data changed",
				tc.table, fpRows, fpSeed, got, tc.want)
		}
	}
}

func TestGeneratorBatchingIndependent(t *testing.T) {
	want := fpHash(fpSeed, 0, 100)
	for _, batch := range []int{1, 7, 1000, fpRows} {
		if got := fpHash(fpSeed, 0, batch); got != want {
			t.Errorf("rows filled in batches of %d hash to %#x, in batches of 100 to %#x", batch, got, want)
		}
	}
}

func TestGeneratorSeedsAndTablesDiffer(t *testing.T) {
	seen := map[uint64]string{}
	for _, tc := range []struct {
		name  string
		seed  uint64
		table int
	}{
		{"seed 3221223452 table 0", fpSeed, 0},
		{"seed 3221223452 table 1", fpSeed, 1},
		{"seed 3221223452 table 2", fpSeed, 2},
		{"seed 3221223453 table 0", fpSeed + 1, 0},
		{"seed 0 table 0", 0, 0},
		{"seed 1 table 0", 1, 0},
	} {
		h := fpHash(tc.seed, tc.table, 500)
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s give the same rows (hash %#x)", tc.name, other, h)
		}
		seen[h] = tc.name
	}
}

// TestGeneratorValueRanges checks the columns against the reference client's ranges: cashregisterid
// in [0,1000), productid in [0,10000), customerid in [0,100000), price in [0,500), and data of
// length L in 10..20 whose first L−int(L·0.375) bytes are 'a' and whose rest is base64 text.
func TestGeneratorValueRanges(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	ranges := []struct {
		col  int
		name string
		n    int64
	}{
		{colCashRegisterID, "cashregisterid", cashRegisters},
		{colProductID, "productid", products},
		{colCustomerID, "customerid", customers},
		{colPrice, "price", maxPrice},
	}
	if cashRegisters != 1000 || products != 10000 || customers != 100000 || maxPrice != 500 ||
		dataMinLen != 10 || dataMaxLen != 20 {
		t.Fatalf("the generator's ranges differ from the reference client's")
	}
	lo, hi := make([]int64, numCols), make([]int64, numCols)
	for i := range lo {
		lo[i], hi[i] = 1<<62, -1<<62
	}
	lengths := map[int]int{}
	for tableNo := 0; tableNo < 2; tableNo++ {
		g := fpGenerator(fpSeed, tableNo)
		rows := table.NewRows(numCols, 1000)
		for first := int64(1); first <= fpRows; first += 1000 {
			g.Fill(rows, first, 1000, fpUnixSecs)
			for r := 0; r < rows.N; r++ {
				row := rows.Row(r)
				if row[colTransactionID].I != first+int64(r) || row[colDateAndTime].I != fpUnixSecs {
					t.Fatalf("row %d: transactionid %d, dateandtime %d", first+int64(r), row[colTransactionID].I, row[colDateAndTime].I)
				}
				for _, rg := range ranges {
					v := row[rg.col].I
					if v < 0 || v >= rg.n {
						t.Fatalf("row %d: %s = %d outside [0, %d)", first+int64(r), rg.name, v, rg.n)
					}
					lo[rg.col], hi[rg.col] = min(lo[rg.col], v), max(hi[rg.col], v)
				}
				data := row[colData].B
				l := len(data)
				if data == nil || l < dataMinLen || l > dataMaxLen {
					t.Fatalf("row %d: data %q has length %d, want 10..20", first+int64(r), data, l)
				}
				lengths[l]++
				plain := l - int(float64(l)*0.375)
				if strings.Count(string(data[:plain]), "a") != plain {
					t.Fatalf("row %d: data %q: the first %d bytes are not all 'a'", first+int64(r), data, plain)
				}
				for _, c := range data[plain:] {
					if !strings.ContainsRune(alphabet, rune(c)) {
						t.Fatalf("row %d: data %q: random part has %q, not base64", first+int64(r), data, c)
					}
				}
			}
		}
	}
	// 10000 uniform draws reach close to both ends of each range.
	for _, rg := range ranges {
		if lo[rg.col] > rg.n/100 || hi[rg.col] < rg.n-rg.n/100-1 {
			t.Errorf("%s spans only [%d, %d] of [0, %d)", rg.name, lo[rg.col], hi[rg.col], rg.n)
		}
	}
	for l := dataMinLen; l <= dataMaxLen; l++ {
		if lengths[l] == 0 {
			t.Errorf("no data value has length %d", l)
		}
	}
}

// BenchmarkGeneratorFill measures row generation alone, in rows per second.
func BenchmarkGeneratorFill(b *testing.B) {
	const batch = 1000
	g := fpGenerator(fpSeed, 0)
	rows := table.NewRows(numCols, batch)
	b.ReportAllocs()
	first, n := int64(1), 0
	for b.Loop() {
		g.Fill(rows, first, batch, fpUnixSecs)
		first += batch
		n += batch
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
}
