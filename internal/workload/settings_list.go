package workload

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
)

// MaxListItems bounds a list setting that declares no MaxItems.
const MaxListItems = 256

// List is the declaration of a repeatable text setting (the flag given once per item, each
// value whole, commas included): Param's fields, the most items (MaxItems; 0: MaxListItems),
// the most bytes an item holds (MaxLen; 0: MaxValueBytes) and a rule on each item (Check,
// whose error says what is valid). Its default is no item.
type List struct {
	Name, Short, Key, Help string
	Runtime                bool
	Steps                  []string
	MaxItems, MaxLen       int
	Check                  func(string) error
}

// Strings declares a list setting held in the field that field returns; it records the items
// as a list.
func Strings[C any](field func(*C) *[]string, d List) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Help: d.Help, Runtime: d.Runtime, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.StringArrayVarP(field(c), d.Name, d.Short, nil, help) }
	s.apply = func(c *C, _ string) { *field(c) = nil }
	maxItems, maxLen := cmp.Or(d.MaxItems, MaxListItems), cmp.Or(d.MaxLen, MaxValueBytes)
	s.check = func(c *C) error {
		items := *field(c)
		if len(items) > maxItems {
			return fmt.Errorf("--%s: given %d times, at most %d", d.Name, len(items), maxItems)
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
	s.byProf = func() (string, []string) { return "", nil }
	return s
}
