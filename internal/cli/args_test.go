package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// nearest keeps only the closest names: the ones the typed name begins,
// else those fewest edits away, never more than 2; ties come in name
// order, and the command's own suggestion distance is left as it was.
func TestNearest(t *testing.T) {
	c := &cobra.Command{Use: "top"}
	for _, n := range []string{"wake", "sleep", "timer", "time", "tcp", "try", "knob", "gone"} {
		c.AddCommand(&cobra.Command{Use: n, Run: func(*cobra.Command, []string) {}})
	}
	c.AddCommand(&cobra.Command{Use: "hidden", Hidden: true, Run: func(*cobra.Command, []string) {}})
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"tr", []string{"try"}},            // a prefix beats "tcp", 2 edits away
		{"tim", []string{"time", "timer"}}, // both begin with it
		{"TIM", []string{"time", "timer"}}, // case does not matter
		{"slep", []string{"sleep"}},        // 1 edit
		{"tcq", []string{"tcp"}},           // 1 edit beats "try", 2 edits away
		{"tqq", []string{"tcp", "try"}},    // 2 edits each: both, in name order
		{"kxxb", []string{"knob"}},         // 2 edits
		{"kxxx", nil},                      // 3 edits: nothing
		{"hidde", nil},                     // hidden commands are not offered
		{"wak", []string{"wake"}},          // prefix
		{"ngoe", []string{"gone"}},         // 2 edits; "knob" is 3
	} {
		if got := nearest(c, tc.typed); !slices.Equal(got, tc.want) {
			t.Errorf("nearest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if c.SuggestionsMinimumDistance != 0 {
		t.Errorf("SuggestionsMinimumDistance left at %d", c.SuggestionsMinimumDistance)
	}
}
