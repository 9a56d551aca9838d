package workload

// PercentileList declares a setting that lists extra response-time percentiles, comma-separated
// ("99,99.99": each in (0, 100), none twice, at most MaxPercentiles), held as given in the
// field that field returns. The recorded configuration holds the list parsed (numbers; null for
// none), the banner the text as given; ParsePercentiles gives the workload the list.
func PercentileList[C any](field func(*C) *string, d Text) Param[C] {
	d.Check = func(v string) error { _, err := parsePercentiles(v); return err }
	s := String(field, d)
	s.value = func(c *C) any { p, _ := parsePercentiles(*field(c)); return p }
	s.text = func(c *C) string { return *field(c) }
	return s
}
