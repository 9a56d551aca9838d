package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestConnectErrorOneLine: a refused connection (nothing listens on port 1) is reported in one
// line, each address's error once, and stays a *pgconn.ConnectError for errors.As.
func TestConnectErrorOneLine(t *testing.T) {
	db, err := sql.Open("pgx", "postgres://u@127.0.0.1:1/db?connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = db.PingContext(ctx)
	if err == nil {
		t.Skip("something listens on 127.0.0.1:1")
	}
	err = connectError(err)
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Count(msg, "127.0.0.1:1 (127.0.0.1)") != 1 || !strings.Contains(msg, "connection refused") {
		t.Errorf("message %q: want one line naming the address once", msg)
	}
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Errorf("%T is no *pgconn.ConnectError for errors.As", err)
	}
}
