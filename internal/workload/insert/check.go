package insert

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Check implements workload.Run. For every table it verifies against the engine:
//   - rows = inserted − deleted (the workload's count);
//   - every secondary index holds exactly one entry per row;
//   - a range query from the lowest key of each index returns 10 rows when 10 exist, in index
//     order;
//   - a point query for the 10 oldest live keys finds them all, with their generated data.
//
// Engines that store nothing (null) are not checked.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.eng.Info().Stores {
		return "not checked (engine stores nothing)", nil
	}
	s, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var rows, entries int64
	var lost int64
	for _, c := range r.clients {
		want := c.nextID.Load() - c.minID.Load() - c.lost
		got, err := s.Count(ctx, c.t, -1)
		if err != nil {
			return "", err
		}
		if got != want {
			return "", fmt.Errorf("table %s holds %d rows, want %d (inserted − deleted − lost after faults)", c.t.Name, got, want)
		}
		rows += got
		lost += max(c.lost, -c.lost)
		if !c.indexed {
			continue
		}
		intact := c.lost == 0 // the range and point queries expect no row missing
		for i, ix := range c.t.Indexes {
			n, err := s.Count(ctx, c.t, i)
			if err != nil {
				return "", err
			}
			if n != want {
				return "", fmt.Errorf("index %s_%s holds %d entries for %d rows", c.t.Name, ix.Name, n, want)
			}
			entries += n
			if !intact {
				continue
			}
			if err := checkRange(ctx, s, c, i, want); err != nil {
				return "", err
			}
		}
		if !intact {
			continue
		}
		if err := r.checkPoint(ctx, s, c, want); err != nil {
			return "", err
		}
	}
	if lost > 0 {
		return fmt.Sprintf("ok: %d rows (%d acknowledged writes of rows lost after faults), %d index entries; the queries of the tables that lost them not checked", rows, lost, entries), nil
	}
	return fmt.Sprintf("ok: %d rows, %d index entries, range and point queries return their rows", rows, entries), nil
}

// checkRange runs index i's range query from the lowest possible key and checks its size and
// order.
func checkRange(ctx context.Context, s table.Session, c *client, i int, rows int64) error {
	out := table.NewRows(3, rowsPerQuery)
	if err := s.Scan(ctx, c.t, i, []table.Value{{I: -1}}, true, rowsPerQuery, out); err != nil {
		return err
	}
	want := int(min(rows, rowsPerQuery))
	if out.N != want {
		return fmt.Errorf("range query on %s_%s returned %d rows, want %d", c.t.Name, c.t.Indexes[i].Name, out.N, want)
	}
	for r := 1; r < out.N; r++ {
		a, b := out.Row(r-1), out.Row(r)
		if a[0].I > b[0].I || (a[0].I == b[0].I && a[1].I > b[1].I) {
			return fmt.Errorf("range query on %s_%s returned rows out of index order", c.t.Name, c.t.Indexes[i].Name)
		}
	}
	return nil
}

// checkPoint looks up the 10 oldest live rows and compares them with the generator's.
func (r *Run) checkPoint(ctx context.Context, s table.Session, c *client, rows int64) error {
	n := int(min(rows, rowsPerQuery))
	if n == 0 {
		return nil
	}
	first := c.minID.Load()
	pks := make([]int64, n)
	for i := range pks {
		pks[i] = first + int64(i)
	}
	out := table.NewRows(3, n)
	if err := s.Get(ctx, c.t, pks, pointCols, out); err != nil {
		return err
	}
	if out.N != n {
		return fmt.Errorf("point query on %s found %d of %d live keys", c.t.Name, out.N, n)
	}
	want := table.NewRows(numCols, n)
	NewGenerator(r.w.Seed, c.no).Fill(want, first, n, 0)
	for i := 0; i < n; i++ {
		got, exp := out.Row(i), want.Row(i)
		if got[0].I != exp[colTransactionID].I || got[1].I != exp[colProductID].I || string(got[2].B) != string(exp[colData].B) {
			return fmt.Errorf("point query on %s: row %d differs from the generated row", c.t.Name, exp[colTransactionID].I)
		}
	}
	return nil
}
