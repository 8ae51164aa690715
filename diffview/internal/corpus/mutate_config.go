package corpus

import (
	"sort"
	"strings"
)

// Configuration: the two runs were not of one frozen row. A /metadata value differs; with a
// setting that matters, the history differs from some decision on.

func configVariants() []variant {
	cfg := func(name string, secondary []string, apply func(*mutation) error) variant {
		return variant{family: "configuration", name: name, primary: "configuration", secondary: secondary, apply: apply}
	}
	cascadeToo := []string{"decision-cascade"}
	early := cascadeOpts{kind: atArrival, lo: 0.02, hi: 0.4}
	return []variant{
		cfg("gpu-blocks", nil, gpuBlocks),
		cfg("router-knob", nil, routerKnob),
		cfg("seed", nil, func(m *mutation) error {
			s, ok := intOf(lookup(m.b, "/metadata/determinism/seed"))
			if !ok {
				return errNotHere
			}
			nu := s + 1 + m.rng.IntN(1<<20)
			m.b.obj("/metadata/determinism")["seed"] = intNum(nu)
			m.note("determinism seed %d → %d", s, nu)
			return nil
		}),
		cfg("gpu-blocks+cascade", cascadeToo, func(m *mutation) error {
			if err := gpuBlocks(m); err != nil {
				return err
			}
			return cascade(m, early)
		}),
		cfg("router-knob+cascade", cascadeToo, func(m *mutation) error {
			if err := routerKnob(m); err != nil {
				return err
			}
			return cascade(m, early)
		}),
	}
}

// gpuBlocks gives every engine a smaller G1 capacity.
func gpuBlocks(m *mutation) error {
	frac := m.between(0.8, 0.95)
	n := 0
	for _, ec := range engineConfigs(m.b) {
		if b, ok := intOf(ec["num_gpu_blocks"]); ok && b > 0 {
			ec["num_gpu_blocks"] = intNum(int(float64(b) * frac))
			n++
		}
	}
	if n == 0 {
		return errNotHere
	}
	m.note("num_gpu_blocks ×%.2f in %d engine configs", frac, n)
	return nil
}

// routerKnob changes one numeric router setting.
func routerKnob(m *mutation) error {
	rc := m.b.obj("/metadata/router/config")
	var keys []string
	for _, k := range sortedKeys(rc) {
		if _, ok := numOf(rc[k]); ok && !strings.Contains(k, "threads") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errNotHere
	}
	k := keys[m.rng.IntN(len(keys))]
	x, _ := numOf(rc[k])
	nu := x*1.5 + 0.25
	if floatNumber(rc[k]) {
		rc[k] = num(nu)
	} else {
		rc[k] = intNum(int(nu) + 1)
	}
	m.note("router config %s %v → %v", k, x, rc[k])
	return nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// engineConfigs are the engine settings of each pool, in pool order: the pool's own object
// (the embedded engine, Dynamo 1.5) or its "engine" member (Dynamo 1.6).
func engineConfigs(r *reportTree) []map[string]any {
	var out []map[string]any
	ecs := r.obj("/metadata/engine_config")
	for _, pool := range sortedKeys(ecs) {
		ec, _ := ecs[pool].(map[string]any)
		if inner, ok := ec["engine"].(map[string]any); ok {
			ec = inner
		}
		if ec != nil {
			out = append(out, ec)
		}
	}
	return out
}
