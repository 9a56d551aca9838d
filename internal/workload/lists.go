package workload

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
)

// Repeated is the declaration of a repeatable text setting, a flag given once per item
// (--script A --script B): Param's fields, the most items it may hold (MaxItems; 0:
// MaxListItems) and the most bytes of one (MaxLen; 0: MaxValueBytes). What an item means is
// the workload's to check (a file it reads, a NAME=VALUE pair).
type Repeated struct {
	Name, Short, Key, Help string
	Runtime                bool
	Steps                  []string
	MaxItems, MaxLen       int
	// Show is the name the banner shows (default: the recorded name; "-": not shown).
	Show string
}

// MaxListItems bounds a repeatable setting that declares no MaxItems.
const MaxListItems = 100

// Strings declares a repeatable text setting held in the field that field returns, in the order
// given (none by default, in every profile). It is recorded as the list and shown as its items
// joined by commas.
func Strings[C any](field func(*C) *[]string, d Repeated) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Show: d.Show, Help: d.Help, Runtime: d.Runtime, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.StringArrayVarP(field(c), d.Name, d.Short, nil, help) }
	s.apply = func(c *C, _ string) { *field(c) = nil }
	maxItems, maxLen := cmp.Or(d.MaxItems, MaxListItems), cmp.Or(d.MaxLen, MaxValueBytes)
	s.check = func(c *C) error {
		v := *field(c)
		if len(v) > maxItems {
			return fmt.Errorf("--%s given %d times: at most %d", d.Name, len(v), maxItems)
		}
		for _, item := range v {
			if len(item) > maxLen {
				return fmt.Errorf("--%s %q: at most %d bytes", d.Name, input.Short(item), maxLen)
			}
		}
		return nil
	}
	s.value = func(c *C) any { return *field(c) }
	s.text = func(c *C) string { return strings.Join(*field(c), ",") }
	s.byProf = func() (string, []string) { return "", nil }
	return s
}
