package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"count", "count", 0},
		{"cout", "count", 1},     // deletion
		{"countt", "count", 1},   // insertion
		{"cuont", "count", 2},    // transposition is two edits
		{"kitten", "sitting", 3}, // the textbook pair
		{"timer-slack", "timerslack", 1},
		{"rss", "msi-mode", 7},
		{"zäh", "zah", 1}, // one rune, not two bytes
		{"日本", "日本語", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}
