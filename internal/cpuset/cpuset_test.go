package cpuset

import (
	"reflect"
	"testing"
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
	for _, bad := range []string{"g", "123456789", "1,,2", ""} {
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
