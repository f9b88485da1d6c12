package textwrap

import (
	"strings"
	"testing"
)

func TestHanging(t *testing.T) {
	for _, c := range []struct {
		name, l       string
		indent, width int
		want          []string
	}{
		{"a column's padding kept, continued at its column",
			"  compare    say with statistics whether results differ (bootstrap CIs, Mann-Whitney, KS)", 13, 60,
			[]string{
				"  compare    say with statistics whether results differ",
				"             (bootstrap CIs, Mann-Whitney, KS)",
			}},
		{"a word wider than the line stays whole",
			"  " + strings.Repeat("x", 90), 4, 80,
			[]string{"  " + strings.Repeat("x", 90)}},
		{"a wide word on a line of its own, the rest continued",
			"a " + strings.Repeat("x", 12) + " b c", 2, 10,
			[]string{"a", "  " + strings.Repeat("x", 12), "  b c"}},
		{"a line exactly as wide as the width is not cut",
			"aaaa bbbb", 0, 9, []string{"aaaa bbbb"}},
		{"trailing spaces go",
			"aaaa bbbb   ", 0, 20, []string{"aaaa bbbb"}},
		{"wide characters take two columns",
			"東京 東京 東京", 0, 9, []string{"東京 東京", "東京"}},
		{"the indent is at most half the width",
			"aaaa bbbb cccc", 30, 10, []string{"aaaa bbbb", "     cccc"}},
	} {
		if got := Hanging(c.l, c.indent, c.width); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		name, head string
		items      []string
		width      int
		want       []string
	}{
		{"items continue under the head's width",
			"  rates: ", []string{"High 2000", "Medium 950", "Low 400", "Off 0"}, 31,
			[]string{"  rates: High 2000, Medium 950,", "         Low 400, Off 0"}},
		{"an item is never cut at its own space",
			"ITR 5: ", []string{"Medium 950 on e1r/e1d", "Low 5 on e2f/e2fn"}, 32,
			[]string{"ITR 5: Medium 950 on e1r/e1d,", "       Low 5 on e2f/e2fn"}},
		{"the first item stays on the head's line, however wide",
			"a long head: ", []string{"first item", "second"}, 16,
			[]string{"a long head: first item,", "        second"}},
		{"one item",
			"x: ", []string{"only"}, 80, []string{"x: only"}},
	} {
		if got := List(c.head, c.items, c.width); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
