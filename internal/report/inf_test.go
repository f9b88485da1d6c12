package report

import (
	"strings"
	"testing"
)

// Wrapped INF text keeps to 80 columns, breaking only at spaces or after
// a list item's comma; a word longer than the line stays whole.
func TestINFWrap(t *testing.T) {
	long := strings.Repeat("x", 90)
	for _, c := range []struct {
		name, got, want string
	}{
		{"short", infWrapText("", "RSS keywords installed: *RSS"), "RSS keywords installed: *RSS\n"},
		{"continued", infWrapText("", strings.Repeat("word ", 20)),
			strings.TrimSpace(strings.Repeat("word ", 16)) + "\n  " + strings.TrimSpace(strings.Repeat("word ", 4)) + "\n"},
		{"indented", infWrapText("    ", "a "+long), "    a\n    " + long + "\n"},
		{"empty list", infWrapList("  ", nil), "  none\n"},
		{"list", infWrapList("    ", []string{strings.Repeat("a", 40), strings.Repeat("b", 36), "c"}),
			"    " + strings.Repeat("a", 40) + ",\n    " + strings.Repeat("b", 36) + ", c\n"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, c.got, c.want)
		}
	}
}
