package workload

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
)

// MaxListItems bounds a list setting that declares no MaxItems.
const MaxListItems = 256

// List is the declaration of a repeatable text setting, a flag given once per item, each value
// whole, commas included (--script A --script B, -p k=v): Param's fields, the most items
// (MaxItems; 0: MaxListItems), the most bytes an item holds (MaxLen; 0: MaxValueBytes) and a
// rule on each item (Check, whose error says what is valid). Its default is no item, in every
// profile.
type List struct {
	Name, Short, Key, Help string
	Runtime                bool
	Steps                  []string
	MaxItems, MaxLen       int
	Check                  func(string) error
	// Show is the name the banner shows (default: the recorded name; "-": not shown).
	Show string
}

// Strings declares a list setting held in the field that field returns, in the order given: it
// records the items as a list and the banner shows them joined by commas.
func Strings[C any](field func(*C) *[]string, d List) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Show: d.Show, Help: d.Help, Runtime: d.Runtime, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.StringArrayVarP(field(c), d.Name, d.Short, nil, help) }
	s.apply = func(c *C, _ string) { *field(c) = nil }
	maxItems, maxLen := cmp.Or(d.MaxItems, MaxListItems), cmp.Or(d.MaxLen, MaxValueBytes)
	s.check = func(c *C) error {
		items := *field(c)
		if len(items) > maxItems {
			return fmt.Errorf("--%s given %d times: at most %d", d.Name, len(items), maxItems)
		}
		for _, v := range items {
			if len(v) > maxLen {
				return fmt.Errorf("--%s %q: at most %d bytes", d.Name, input.Short(v), maxLen)
			}
			if d.Check != nil {
				if err := d.Check(v); err != nil {
					return fmt.Errorf("--%s %q: %v", d.Name, input.Short(v), err)
				}
			}
		}
		return nil
	}
	s.value = func(c *C) any { return slices.Clone(*field(c)) }
	s.text = func(c *C) string { return strings.Join(*field(c), ",") }
	s.byProf = func() (string, []string) { return "", nil }
	return s
}
