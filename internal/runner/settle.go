package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// SettleMode says which write steps settle: bring the engine's deferred work for what they
// wrote to disk (table.Settler: a memtable flush, a checkpoint), then the file system's dirty
// pages (syncfs), inside the step's figures.
type SettleMode uint8

const (
	// SettleAuto settles write steps whose operations ran for less than SettleAutoMax: in a
	// step that long the engine's periodic work (a checkpoint a minute, memtable flushes) falls
	// inside the step as it does in a published report's hour.
	SettleAuto SettleMode = iota
	// SettleOn settles every write step.
	SettleOn
	// SettleOff settles none: a step's figures hold what its engine did while it ran.
	SettleOff
)

// SettleAutoMax is the length of a write step from which SettleAuto no longer settles it.
const SettleAutoMax = 10 * time.Minute

// settleTimeout bounds one step's settling (a checkpoint of a large cache takes minutes).
const settleTimeout = 15 * time.Minute

// ParseSettleMode reads auto, on or off.
func ParseSettleMode(s string) (SettleMode, error) {
	switch s {
	case "auto", "":
		return SettleAuto, nil
	case "on":
		return SettleOn, nil
	case "off":
		return SettleOff, nil
	}
	return 0, fmt.Errorf("--settle %q: valid are auto (write steps shorter than %v), on, off", s, SettleAutoMax)
}

// String returns the mode's flag value.
func (m SettleMode) String() string {
	switch m {
	case SettleOn:
		return "on"
	case SettleOff:
		return "off"
	}
	return "auto"
}

// wantsSettle says whether the step that ran for active settles: it wrote or deleted rows, and
// the mode asks for it at that length.
func (c *collector) wantsSettle(active time.Duration) bool {
	switch c.tgt.Settle {
	case SettleOff:
		return false
	case SettleAuto:
		if active >= SettleAutoMax {
			return false
		}
	}
	if _, ok := c.tgt.Engine.(table.Settler); !ok && c.tgt.SettleDir == "" {
		return false // nothing to settle
	}
	var n int64
	for k, kd := range c.st.Kinds {
		if kd.Role == results.RoleWrite || kd.Role == results.RoleDelete {
			for _, m := range c.meters {
				n += m.kinds[k].units.Load()
			}
		}
	}
	return n > 0
}

// settle brings the engine's deferred work and the data directory's file system to disk and
// says what it did: "memtable flush; syncfs". debt is the engine's remaining debt in bytes, -1
// when it has no figure.
func settle(ctx context.Context, tgt Setup) (did string, debt int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	var parts []string
	debt = -1
	if s, ok := tgt.Engine.(table.Settler); ok {
		r, err := s.Settle(ctx)
		if err != nil {
			return "", -1, fmt.Errorf("settle: %w", err)
		}
		if r.Did != "" {
			parts = append(parts, r.Did)
		}
		debt = r.DebtBytes
	}
	if tgt.SettleDir != "" {
		if err := syncFS(tgt.SettleDir); err != nil {
			return "", -1, fmt.Errorf("settle: syncfs %s: %w", tgt.SettleDir, err)
		}
		parts = append(parts, "syncfs")
	}
	return strings.Join(parts, "; "), debt, nil
}

// syncFS writes back the dirty pages of the file system holding dir (syncfs(2)): what the
// engine wrote without syncing (its data files, its unsynced logs) reaches the device.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
