package insert

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the rows' counts start from zero.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	for _, c := range r.clients {
		c.acked.Store(0)
		c.unknown.Store(0)
	}
	return nil
}

// CheckAcknowledged implements workload.AckChecker: each table holds its rows (inserted −
// deleted, the batches of unknown outcome as their writer and deleter found them); the rows it
// lacks are acknowledged inserts lost, those it holds beyond them acknowledged deletes lost, and
// the checks that follow expect the table as it is.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	var res results.AckCheck
	for _, c := range r.clients {
		res.Acknowledged += c.acked.Load()
		res.Unknown += c.unknown.Load()
	}
	if !r.eng.Info().Stores {
		res.How = "not checked: the engine keeps no data"
		return res, nil
	}
	s, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return res, err
	}
	defer s.Close()
	for _, c := range r.clients {
		want := c.nextID.Load() - c.minID.Load() - c.lost
		got, err := s.Count(ctx, c.t, -1)
		if err != nil {
			return res, fmt.Errorf("rows after %s: %w", name, err)
		}
		// Fewer rows: acknowledged inserts lost; more: acknowledged deletes lost.
		c.lost += want - got
		res.Lost += max(want-got, got-want)
	}
	res.Checked = true
	res.How = fmt.Sprintf("each table's rows against those inserted and not deleted: %d rows acknowledged, %d of batches of unknown outcome that committed", res.Acknowledged, res.Unknown)
	return res, nil
}
