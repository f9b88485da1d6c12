// Package suggest measures how near a mistyped name is to an accepted one,
// so that flag and knob errors can offer the name the user probably meant.
package suggest

// Distance is the Levenshtein edit distance between a and b counted in
// runes (insertions, deletions and substitutions each cost one), so a
// mistyped non-ASCII letter costs one edit, not one per byte.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
