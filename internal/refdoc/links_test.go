package refdoc

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every relative link of README.md and of the pages under docs/ names a
// file of the repository and, with a #fragment, a heading of that page:
// a guide moved or a heading renamed breaks a link here, not for a
// reader.

var (
	mdLink     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// mdPages are README.md and every .md under docs/, from the repository root.
func mdPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// slug is GitHub's anchor for a heading: lower case, the text of inline
// code kept, punctuation dropped, spaces made hyphens.
func slug(h string) string {
	h = strings.NewReplacer("`", "", "**", "", "*", "").Replace(h)
	// a link in a heading anchors on its text
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLines are a page's lines outside fenced code blocks, by line number
// (1-based), with "" for the lines inside them.
func mdLines(b []byte) []string {
	lines := strings.Split(string(b), "\n")
	out := make([]string, len(lines))
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out[i] = l
		}
	}
	return out
}

// anchors are the fragments a page's headings (and explicit anchors) give.
func anchors(b []byte) map[string]bool {
	m := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdLines(b) {
		for _, a := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			m[a[1]] = true
		}
		h := heading.FindStringSubmatch(l)
		if h == nil {
			continue
		}
		s := slug(h[1])
		if n := seen[s]; n > 0 {
			m[s+"-"+strconv.Itoa(n)] = true
		} else {
			m[s] = true
		}
		seen[s]++
	}
	return m
}

func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	cache := map[string]map[string]bool{}
	anchorsOf := func(p string) (map[string]bool, error) {
		if a, ok := cache[p]; ok {
			return a, nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		cache[p] = anchors(b)
		return cache[p], nil
	}
	links := 0
	for _, page := range mdPages(t, root) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for i, l := range mdLines(b) {
			l = inlineCode.ReplaceAllString(l, "")
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, frag, _ := strings.Cut(target, "#")
				p := page
				if file != "" {
					p = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s:%d: link %s: no such file", rel, i+1, target)
					continue
				}
				if frag == "" || !strings.HasSuffix(p, ".md") {
					continue
				}
				a, err := anchorsOf(p)
				if err != nil {
					t.Errorf("%s: link %s: %v", rel, target, err)
					continue
				}
				if !a[frag] {
					t.Errorf("%s:%d: link %s: no heading with that anchor", rel, i+1, target)
				}
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d relative links found: is the link pattern still right?", links)
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"`latlab sleep`: MeasureSleep done right":         "latlab-sleep-measuresleep-done-right",
		"`latlab timer status` and `latlab timer set`":    "latlab-timer-status-and-latlab-timer-set",
		"Windows under Wine":                              "windows-under-wine",
		"`latlab dpcisr compare A.txt B.txt [C.txt ...]`": "latlab-dpcisr-compare-atxt-btxt-ctxt-",
		"`--root` trees":                                  "--root-trees",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
