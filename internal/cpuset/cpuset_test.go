package cpuset

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestList(t *testing.T) {
	for in, want := range map[string]string{"0-3,8": "0-3,8", "3,1,2": "1-3", "0": "0", "5,5,4-6": "4-6", "": "", "0-3,8,10-11\n": "0-3,8,10-11"} {
		c, err := ParseList(in)
		if err != nil || FormatList(c) != want {
			t.Errorf("%q: %q %v", in, FormatList(c), err)
		}
	}
	for _, bad := range []string{"a", "3-1", "-1", "1-", "99999", "x,1"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestMask(t *testing.T) {
	m, err := ParseMask("00000001,0000000f\n")
	if err != nil || !reflect.DeepEqual(m, []int{0, 1, 2, 3, 32}) {
		t.Fatalf("mask %v %v", m, err)
	}
	if m, err := ParseMask("0x3"); err != nil || !reflect.DeepEqual(m, []int{0, 1}) {
		t.Fatalf("0x mask %v %v", m, err)
	}
	if m, err := ParseMask("0"); err != nil || len(m) != 0 {
		t.Fatalf("zero mask %v %v", m, err)
	}
	for _, bad := range []string{"g", "1,,2", "", "1,123456789", "0xg"} {
		if _, err := ParseMask(bad); err == nil {
			t.Errorf("mask %q accepted", bad)
		}
	}
	if s := FormatMask([]int{0, 1, 32}, "00000000,00000000"); s != "00000001,00000003" {
		t.Errorf("format mask %q", s)
	}
	if s := FormatMask([]int{0, 1}, "0"); s != "3" {
		t.Errorf("format mask %q", s)
	}
	if s := FormatMask([]int{0, 1}, "00"); s != "03" {
		t.Errorf("format mask %q", s)
	}
}

func FuzzList(f *testing.F) {
	for _, s := range []string{"0-3,8", "", "1-", "7,7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseList(s)
		if err != nil {
			return
		}
		c2, err := ParseList(FormatList(c))
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("%q does not round-trip: %v", s, err)
		}
	})
}

func FuzzMask(f *testing.F) {
	for _, s := range []string{"00000001,0000000f", "0", "ff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseMask(s)
		if err != nil {
			return
		}
		c2, err := ParseMask(FormatMask(c, s))
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("%q does not round-trip: %v", s, err)
		}
	})
}

// Masks wider than 32 bits must read back whichever way they are spelled:
// explain prints one (FormatMask with no layout) that the user types back.
func TestMaskWide(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"0x10000000001", []int{0, 40}},
		{"10000000001", []int{0, 40}},
		{"0X00000000", []int{}},
		{"0x00000100,00000001", []int{0, 40}},
		{"1" + strings.Repeat("0", 2047), []int{8188}},
	} {
		got, err := ParseMask(c.in)
		if err != nil || len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("ParseMask(%q) = %v, %v; want %v", textClip(c.in), got, err, c.want)
		}
	}
	if s := FormatMask([]int{0, 40}, ""); s != "00000100,00000001" {
		t.Errorf("FormatMask(0,40) = %q, want the kernel's 32-bit groups", s)
	}
	if s := FormatMask(nil, "0X00000000"); s != "00000000" {
		t.Errorf("FormatMask(none, 0X00000000) = %q", s)
	}
	for _, bad := range []string{"1" + strings.Repeat("0", 2048), "0x", "0x1,", "1,123456789"} {
		if _, err := ParseMask(bad); err == nil {
			t.Errorf("mask %q accepted", textClip(bad))
		}
	}
}

// Every set of CPUs survives FormatMask and ParseMask, whatever layout the
// kernel printed before.
func TestMaskRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cpus := rapid.SliceOfDistinct(rapid.IntRange(0, MaxCPU), rapid.ID[int]).Draw(t, "cpus")
		slices.Sort(cpus)
		like := rapid.SampledFrom([]string{"", "0", "3", "ff", "00000000", "0x0", "0X00000000",
			"00000000,00000000", "0,00000000,00000000", "0000000000000000"}).Draw(t, "like")
		s := FormatMask(cpus, like)
		got, err := ParseMask(s)
		if err != nil {
			t.Fatalf("FormatMask(%v, %q) = %q, which ParseMask refuses: %v", cpus, like, s, err)
		}
		if len(got) != len(cpus) || (len(cpus) > 0 && !reflect.DeepEqual(got, cpus)) {
			t.Fatalf("FormatMask(%v, %q) = %q reads back as %v", cpus, like, s, got)
		}
		// The 0x spelling a user types (knob explain rps 0x...) reads the same.
		if got2, err := ParseMask("0x" + s); err != nil || !reflect.DeepEqual(got2, got) {
			t.Fatalf("0x%s reads back as %v, %v", s, got2, err)
		}
	})
}

func textClip(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
