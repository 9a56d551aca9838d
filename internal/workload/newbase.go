package workload

// NewBase returns the base of a workload of shape configured with c (every field set, as after
// the flags and the profile; Resolve is not called) running every step: the settings that
// matter and the shape's own rules are checked as Build checks them. It makes a workload from a
// configuration in code (tests, a configuration read back) instead of from flags.
func NewBase[C any](shape Shape[C], c C, seed uint64) (*Base[C], error) {
	b := &Base[C]{Cfg: c, Seed: seed, name: shape.Name, settings: shape.Settings, decls: shape.Steps,
		clients: shape.Clients, validate: shape.Validate, extra: shape.Record, data: shape.Data, shape: &shape}
	b.steps = StepNames(shape.Steps)
	if err := b.check(&b.Cfg); err != nil {
		return nil, err
	}
	return b, nil
}
