package corpus

// Mixed causes: two families in one pair. The truth's primary is the cause of the first
// divergence and of most differences; the secondary rides along and should be named too.

func mixedVariants() []variant {
	mix := func(name, primary, secondary string, needs func(*base) bool, apply func(*mutation) error) variant {
		return variant{family: "mixed", name: name, primary: primary, secondary: []string{secondary}, needs: needs, apply: apply}
	}
	return []variant{
		mix("id-drift+summary-noise", "id-drift", "float-noise", nil, func(m *mutation) error {
			if err := summaryNoise(m, 2+m.rng.IntN(5), 1, 8); err != nil {
				return err
			}
			return renameRequests(m, 1, v4Namer(m))
		}),
		mix("id-drift+record-noise", "id-drift", "float-noise", nil, func(m *mutation) error {
			if err := requestNoise(m, 3+m.rng.IntN(8), []string{"itl_ms", "e2e_latency_ms"}, 1, 8); err != nil {
				return err
			}
			return renameRequests(m, 1, v4Namer(m))
		}),
		mix("cascade+throughput-wall", "decision-cascade", "wall-clock", nil, func(m *mutation) error {
			if err := cascade(m, cascadeOpts{kind: atArrival, lo: 0.1, hi: 0.6}); err != nil {
				return err
			}
			throughputWall(m)
			return nil
		}),
		mix("cascade+epoch-boundaries", "decision-cascade", "wall-clock", hasBoundaries, func(m *mutation) error {
			if err := epochBoundaries(m); err != nil {
				return err
			}
			return cascade(m, cascadeOpts{kind: atArrival, lo: 0.1, hi: 0.6})
		}),
		mix("tie-order+summary-noise", "tie-order", "float-noise", func(b *base) bool { return b.Pressure >= 2 }, func(m *mutation) error {
			if err := permutePressure(m, 2); err != nil {
				return err
			}
			return summaryNoise(m, 2+m.rng.IntN(5), 1, 8)
		}),
	}
}

// variants is every family's variants, in the table's order.
func variants() []variant {
	var out []variant
	for _, f := range []func() []variant{
		tieVariants, parentVariants, idVariants, wallVariants, floatVariants, quantumVariants,
		cascadeVariants, configVariants, mixedVariants, equalVariants, releaseVariants,
	} {
		out = append(out, f()...)
	}
	return out
}
