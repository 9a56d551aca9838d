package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/rumbench/rumbench/internal/table"
)

var _ table.Keeper = (*eng)(nil)

// AttachTable implements table.Keeper: t exists when its collection does, and is indexed when
// the collection has an index of each of t's index names.
func (e *eng) AttachTable(ctx context.Context, t *table.Table) (bool, bool, error) {
	ts, err := e.state(t)
	if err != nil {
		return false, false, err
	}
	names, err := e.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: t.Name}})
	if err != nil {
		return false, false, fmt.Errorf("mongo: list collections: %w", err)
	}
	if len(names) == 0 {
		return false, false, nil
	}
	cur, err := ts.coll.Indexes().List(ctx)
	if err != nil {
		return false, false, fmt.Errorf("mongo: list the indexes of %s: %w", t.Name, err)
	}
	var ixs []struct {
		Name string `bson:"name"`
	}
	if err := cur.All(ctx, &ixs); err != nil {
		return false, false, fmt.Errorf("mongo: list the indexes of %s: %w", t.Name, err)
	}
	have := map[string]bool{}
	for _, ix := range ixs {
		have[ix.Name] = true
	}
	indexed := true
	for _, n := range ts.ixName {
		indexed = indexed && have[n]
	}
	return true, indexed, nil
}

// DropTable implements table.Keeper: it drops t's collection (its indexes go with it) and
// forgets what the engine knew of it (its largest auto-increment key).
func (e *eng) DropTable(ctx context.Context, t *table.Table) error {
	ts, err := e.state(t)
	if err != nil {
		return err
	}
	if err := ts.coll.Drop(ctx); err != nil {
		return fmt.Errorf("mongo: drop collection %s: %w", t.Name, err)
	}
	e.mu.Lock()
	delete(e.tables, t.Name)
	e.dropped.Add(1)
	e.mu.Unlock()
	return nil
}
