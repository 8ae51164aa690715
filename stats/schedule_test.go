package stats

import (
	"strings"
	"testing"
)

func TestSourceFirstDrawsSeedOne(t *testing.T) {
	src := newSource(1, scheduleStream)
	want := []uint64{0xf958befdd28cb441, 0xa2e43dd26f4ca6f3, 0xcd9918e1aa328884}
	for i, w := range want {
		if got := src.pcg.Uint64(); got != w {
			t.Fatalf("Uint64 #%d = %#x, want %#x", i+1, got, w)
		}
	}
}

func orders(s string) []Order {
	var out []Order
	for _, f := range strings.Fields(s) {
		out = append(out, Order(f))
	}
	return out
}

// Spec §1.4 test vector, seed 1.
func TestBalancedScheduleSeedOneVector(t *testing.T) {
	s, err := BalancedSchedule(1, 60)
	if err != nil {
		t.Fatal(err)
	}
	want := orders("CB CB BC BC CB BC BC CB CB BC BC CB CB BC CB BC BC CB BC CB")
	for i, w := range want {
		if s.Pairs[i] != w {
			t.Fatalf("pair %d = %s, want %s (first 20: %v)", i+1, s.Pairs[i], w, s.Pairs[:20])
		}
	}
	if err := s.validate(60); err != nil {
		t.Fatal(err)
	}
	if s.Seed != 1 || s.Algorithm != scheduleAlgorithm {
		t.Fatalf("schedule metadata %d %q", s.Seed, s.Algorithm)
	}
}

func TestGlobalShuffleSeedOneVector(t *testing.T) {
	got := globalShuffle(1, 60)
	want := orders("BC CB BC CB BC BC BC CB BC BC CB BC CB CB BC BC BC BC BC CB")
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("pair %d = %s, want %s", i+1, got[i], w)
		}
	}
}

// Every block of four holds two of each order, for any seed; the schedule is a pure function
// of the seed.
func TestBalancedScheduleBlocksBalanced(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		s, err := BalancedSchedule(seed, 60)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < 15; b++ {
			bc := 0
			for _, o := range s.Pairs[4*b : 4*b+4] {
				if o == BaselineFirst {
					bc++
				}
			}
			if bc != 2 {
				t.Fatalf("seed %d block %d: %d BC", seed, b+1, bc)
			}
		}
		again, _ := BalancedSchedule(seed, 60)
		for i := range s.Pairs {
			if s.Pairs[i] != again.Pairs[i] {
				t.Fatalf("seed %d: schedule not reproducible at pair %d", seed, i+1)
			}
		}
	}
	if s20261129, _ := BalancedSchedule(20261129, 60); s20261129.validate(60) != nil {
		t.Fatal("default-row seed gives an invalid schedule")
	}
}

func TestBalancedScheduleRejects(t *testing.T) {
	for _, n := range []int{0, -4, 1, 61} {
		if _, err := BalancedSchedule(1, n); err == nil {
			t.Errorf("%d pairs accepted", n)
		}
	}
}

func TestBalancedScheduleTwoModFour(t *testing.T) {
	for _, n := range []int{2, 6, 10, 58} {
		s, err := BalancedSchedule(5, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.validate(n); err != nil {
			t.Fatalf("%d pairs: %v", n, err)
		}
		if last := s.Pairs[n-2:]; last[0] == last[1] {
			t.Fatalf("%d pairs: last block %v is not one of each", n, last)
		}
	}
}

func TestScheduleValidate(t *testing.T) {
	s, _ := BalancedSchedule(3, 8)
	if err := s.validate(12); err == nil || !strings.Contains(err.Error(), "8 pairs") {
		t.Errorf("length mismatch: %v", err)
	}
	bad := s
	bad.Pairs = append([]Order(nil), s.Pairs...)
	bad.Pairs[2] = "XX"
	if err := bad.validate(8); err == nil || !strings.Contains(err.Error(), "pair 3") {
		t.Errorf("unknown order: %v", err)
	}
	bad.Pairs = orders("BC BC BC BC BC BC CB CB")
	if err := bad.validate(8); err == nil || !strings.Contains(err.Error(), "unbalanced") {
		t.Errorf("unbalanced: %v", err)
	}
}

func TestBelowIsUniformAndInRange(t *testing.T) {
	src := newSource(42, 9)
	counts := make([]int, 7)
	for i := 0; i < 70000; i++ {
		v := src.below(7)
		if v >= 7 {
			t.Fatalf("draw %d out of range", v)
		}
		counts[v]++
	}
	for v, c := range counts {
		if c < 9500 || c > 10500 {
			t.Fatalf("value %d drawn %d times of 70000", v, c)
		}
	}
}
