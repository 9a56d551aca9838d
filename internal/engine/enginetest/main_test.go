package enginetest

import (
	"fmt"
	"os"
	"testing"

	"github.com/rumbench/rumbench/internal/server/ferrettest"
)

// TestMain makes sure the mongo engine's managed server, the FerretDB helper, is there (built
// from tools/ferretdb when `make test` did not build it).
func TestMain(m *testing.M) {
	if _, err := ferrettest.Ensure(); err != nil {
		fmt.Fprintln(os.Stderr, "enginetest:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
