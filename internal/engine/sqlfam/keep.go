package sqlfam

import (
	"context"
	"fmt"
	"slices"

	"github.com/rumbench/rumbench/internal/table"
)

var _ table.Keeper = (*Engine)(nil)

// catalogSQL returns the dialect's queries for the number of tables named $1 in the current
// database or schema, and for the number of secondary (non-primary) indexes of table $1.
func catalogSQL(dialect string) (tables, indexes string) {
	switch dialect {
	case "postgres":
		return "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1",
			"SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid " +
				"WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisprimary"
	case "mysql":
		return "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
			"SELECT count(DISTINCT index_name) FROM information_schema.statistics " +
				"WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY'"
	}
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
		"SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"
}

// AttachTable implements table.Keeper: t exists when the catalog lists it, and is indexed when
// it has as many secondary indexes as t declares.
func (e *Engine) AttachTable(ctx context.Context, t *table.Table) (bool, bool, error) {
	tq, iq := catalogSQL(e.d.Name())
	var n, ix int
	if err := e.db.QueryRowContext(ctx, tq, t.Name).Scan(&n); err != nil {
		return false, false, fmt.Errorf("%s: look up table %s: %w", e.d.Name(), t.Name, err)
	}
	if n == 0 {
		return false, false, nil
	}
	if err := e.db.QueryRowContext(ctx, iq, t.Name).Scan(&ix); err != nil {
		return false, false, fmt.Errorf("%s: look up the indexes of %s: %w", e.d.Name(), t.Name, err)
	}
	e.mu.Lock()
	if !slices.Contains(e.tables, t.Name) {
		e.tables = append(e.tables, t.Name)
	}
	e.mu.Unlock()
	return true, ix >= len(t.Indexes), nil
}

// DropTable implements table.Keeper with DROP TABLE IF EXISTS (its indexes go with it).
func (e *Engine) DropTable(ctx context.Context, t *table.Table) error {
	if _, err := e.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t.Name); err != nil {
		return fmt.Errorf("%s: drop table %s: %w", e.d.Name(), t.Name, err)
	}
	e.mu.Lock()
	e.tables = slices.DeleteFunc(e.tables, func(n string) bool { return n == t.Name })
	e.mu.Unlock()
	return nil
}
