package mocker

import (
	"math"
	"testing"
)

func TestAppendRustFloatMatchesSerdeJSON(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {4, "4.0"}, {1, "1.0"}, {-2.5, "-2.5"},
		{0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"}, {100, "100.0"}, {123456.789, "123456.789"},
		{1e15, "1000000000000000.0"}, {1e16, "1e16"}, {1.5e16, "1.5e16"}, {1.2345e20, "1.2345e20"},
		{1e-4, "0.0001"}, {1.5e-5, "0.000015"}, {1e-5, "0.00001"}, {1e-6, "1e-6"}, {1.5e-7, "1.5e-7"},
		{3516948205, "3516948205.0"}, {44274.5, "44274.5"}, {6.758e-05, "0.00006758"},
	}
	for _, c := range cases {
		if got := string(appendRustFloat(nil, c.f)); got != c.want {
			t.Errorf("%v: got %s, want %s", c.f, got, c.want)
		}
	}
}

func TestCompactSortsKeysBytewiseAndKeepsArrayOrder(t *testing.T) {
	o := jobj()
	o.set("b", jint(1)).set("B", jfloat(2)).set("a_b", jarr(jint(3), jint(1))).set("a", jstr("x\"\\\n\u0001é"))
	got := string(appendCompact(nil, o.val()))
	want := `{"B":2.0,"a":"x\"\\\n\u0001é","a_b":[3,1],"b":1}`
	if got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestPrettyLikeSerdeToWriterPretty(t *testing.T) {
	o := jobj()
	o.set("z", jint(1)).set("a", jarr()).set("m", jobj().set("k", jnull()).val())
	got := string(appendPretty(nil, o.val(), 0))
	want := "{\n  \"z\": 1,\n  \"a\": [],\n  \"m\": {\n    \"k\": null\n  }\n}"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestPrettyNestsArraysAndObjects(t *testing.T) {
	o := jobj()
	o.set("xs", jarr(jint(1), jobj().set("k\"", jstr("v")).val(), jarr())).set("e", jobj().val())
	got := string(appendPretty(nil, o.val(), 0))
	want := "{\n  \"xs\": [\n    1,\n    {\n      \"k\\\"\": \"v\"\n    },\n    []\n  ],\n  \"e\": {}\n}"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestOrdinalUUID(t *testing.T) {
	if got := ordinalUUID(0); got != "00000000-0000-0000-0000-000000000001" {
		t.Fatal(got)
	}
	if got := ordinalUUID(4999); got != "00000000-0000-0000-0000-000000001388" {
		t.Fatal(got)
	}
}
