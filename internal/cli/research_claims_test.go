package cli

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

// The research latlab implements, as users meet it in the help and the
// README: each claim here once contradicted its source.

// A figure of the research, as the texts users and maintainers read state
// it: every statement of the claim's shape (the patterns, over the README,
// docs/ with the command reference, and the Go sources with their help
// texts and comments) must give the research's figure. Each claim once
// contradicted its source in a text; the patterns catch any sentence of
// that shape, not only the sentence that was wrong.
type researchClaim struct {
	name   string
	source string // the research's words, and where they are
	// Each pattern captures the figure (fig) and, where the figure
	// depends on it, the key (key) that chooses it in want.
	patterns []*regexp.Regexp
	// Every match of every pattern contains one of these literals: a
	// text with none of them is not searched (Go's regexp scans a text
	// for a pattern that starts with \b\d without a literal to skip to,
	// seconds over the sources under the race detector).
	needles []string
	want    map[string]float64 // key ("" without one) -> the research's figure
}

// researchClaims builds the claims when a test asks: regexps compiled at
// package level would count in TestStartupAllocatesLittleInLatlabPackages.
func researchClaims() []researchClaim {
	return []researchClaim{
		{
			// MeasureSleep (valleyofdoom/TimerResolution, MeasureSleep.cpp)
			// as research 000:158 quotes it: "Sleep(1000); // pause for a
			// second between iterations" (its later --samples mode pauses
			// Sleep(100), which texts say in a clause of its own). The help
			// and the README once said "MeasureSleep uses 100 ms".
			name:   "MeasureSleep's pause between iterations",
			source: `000:158 "Sleep(1000); // pause for a second between iterations"`,
			patterns: []*regexp.Regexp{
				regexp.MustCompile(`MeasureSleep\b[^.;]{0,80}?\bpaus\w* (?:for )?(?:Sleep\()?(?P<fig>\d+(?:\.\d+)?)`),
				regexp.MustCompile(`MeasureSleep (?:uses|waits|sleeps) (?P<fig>\d+(?:\.\d+)?) ?ms`),
			},
			needles: []string{"MeasureSleep"},
			want:    map[string]float64{"": 1000},
		},
		{
			// Sleep(1) at a 1 ms interval before Windows 10 2004, as Bruce
			// Dawson measured it (research 002:36: "2.0 on Windows XP, then
			// 1.0 on Windows 7/8, and is apparently back to 2.0"): 2 ticks on
			// XP, 1 on 7 and 8, in ms or in ticks. The README once gave two
			// ticks for every build before 2004.
			name:   "Sleep(1) at 1 ms on Windows XP, 7 and 8",
			source: `002:36 "2.0 on Windows XP, then 1.0 on Windows 7/8"`,
			patterns: []*regexp.Regexp{
				regexp.MustCompile(`\b(?P<fig>\d+(?:\.\d+)?|one|two|three)(?: ?(?:ms|ticks?)(?:[^.;()\d]|Windows 1[01]){0,40}?\b| )on Windows (?P<key>XP|7 and 8|7/8)\b`),
				regexp.MustCompile(`\bWindows (?P<key>XP|7 and 8|7/8) (?:slept|took|lasts?|sleeps) (?P<fig>\d+(?:\.\d+)?|one|two|three)`),
				regexp.MustCompile(`\b(?P<fig>\d+(?:\.\d+)?|one|two|three) ?(?:ms|ticks?) \(Windows (?P<key>XP|7 and 8|7/8)\b`),
			},
			needles: []string{"Windows XP", "Windows 7"},
			want:    map[string]float64{"XP": 2, "7 and 8": 1, "7/8": 1},
		},
	}
}

// mayState reports whether text holds one of the claim's needles, without
// which no pattern of the claim matches.
func (c researchClaim) mayState(text string) bool {
	for _, n := range c.needles {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
}

// figures returns the figure a match m of pattern re states and the one
// the research gives for its key (NaN for a key the research has none of).
func (c researchClaim) figures(re *regexp.Regexp, m []string) (got, want float64) {
	fig, key := m[re.SubexpIndex("fig")], ""
	if i := re.SubexpIndex("key"); i >= 0 {
		key = m[i]
	}
	got, ok := map[string]float64{"one": 1, "two": 2, "three": 3}[fig]
	if !ok {
		got, _ = strconv.ParseFloat(fig, 64)
	}
	want, ok = c.want[key]
	if !ok {
		want = math.NaN()
	}
	return got, want
}

func TestClaimsHoldResearchFigures(t *testing.T) {
	// In parallel with the package's other parallel tests: it searches
	// the texts, a computation alone.
	t.Parallel()
	texts := claimTexts(t)
	for _, c := range researchClaims() {
		found := 0
		for name, text := range texts {
			if !c.mayState(text) {
				continue
			}
			for _, re := range c.patterns {
				for _, m := range re.FindAllStringSubmatch(text, -1) {
					found++
					if !c.mayState(m[0]) {
						t.Errorf("%s: %q has none of the claim's needles %q: texts without them are not searched", c.name, m[0], c.needles)
					}
					if got, want := c.figures(re, m); got != want {
						t.Errorf("%s: %q: %s says %v (research %s)", name, m[0], c.name, want, c.source)
					}
				}
			}
		}
		if found == 0 {
			t.Errorf("%s: no text states it: a pattern that matches nothing checks nothing", c.name)
		}
		t.Logf("%s: %d statements", c.name, found)
	}
}

// The patterns hold a wrong figure, in each shape, against the research.
func TestClaimPatternsCatchWrongFigures(t *testing.T) {
	for _, s := range []string{
		"MeasureSleep uses 100 ms between iterations",
		"MeasureSleep pauses Sleep(100) between samples",
		"(MeasureSleep, valleyofdoom/TimerResolution, pauses 500 ms between samples",
		"Sleep(1) took 2.0 ms, as on Windows 7 and 8",
		"Windows XP slept 1.0 ms there",
		"1 tick = 1 ms (Windows XP, as Bruce Dawson measured)",
		"three ticks on Windows XP, 2 on Windows 7 and 8",
	} {
		wrong := false
		for _, c := range researchClaims() {
			for _, re := range c.patterns {
				for _, m := range re.FindAllStringSubmatch(s, -1) {
					if got, want := c.figures(re, m); got != want {
						wrong = true
					}
				}
			}
		}
		if !wrong {
			t.Errorf("%q passes", s)
		}
	}
}

// claimTexts are the README, every page of docs/ (the command reference
// too) and the Go sources (help texts and comments), by path, each
// flattened: comment markers, Markdown links' targets and backticks
// dropped, white space made single spaces.
func claimTexts(t *testing.T) map[string]string {
	t.Helper()
	link := regexp.MustCompile(`\]\([^)\s]*\)`)
	comment := regexp.MustCompile(`(?m)^\s*//`)
	out := map[string]string{}
	add := func(p string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := comment.ReplaceAllString(string(b), " ")
		s = link.ReplaceAllString(s, "]")
		s = strings.NewReplacer("`", "", "[", "", "]", "").Replace(s)
		out[p] = strings.Join(strings.Fields(s), " ")
	}
	add("../../README.md")
	for _, dir := range []string{"../../docs", "../../internal", "../../cmd"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go")) {
				add(p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Users cannot know what "the seed research" is: every mention names its
// source (PC-Tuning, GamingPCSetup, Bruce Dawson, Gary Nebbett).
func TestNoSeedResearchWording(t *testing.T) {
	re := regexp.MustCompile(`(?i)\bseed(?:'s)? (?:research|experiment|question|bench)|\bthe seed'?s\b`)
	if m := re.FindString(readmeText(t)); m != "" {
		t.Errorf("README says %q: name the source", m)
	}
	for _, args := range [][]string{{"net", "rss-experiment", "--help"}, {"net", "udp", "--help"}, {"knob", "explain", "network-throttling-index"}} {
		_, out, _ := runCLI(t, args...)
		if m := re.FindString(out); m != "" {
			t.Errorf("latlab %s says %q: name the source", strings.Join(args, " "), m)
		}
	}
}

// readmeText is the README and the guides in docs/ (docPages), one after
// the other: the claims are checked wherever the text lives.
func readmeText(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, page := range docPages(t) {
		b, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteString("\n")
	}
	return all.String()
}

// Bruce Dawson: since Windows 10 2004 "There is still an effect" of one
// process's request on another's sleeps (research 002:2, 12 ms at a 6 ms
// interval, 002:42), and timeBeginPeriod still sets the global timer
// interrupt interval (002:36). The help said other processes were "only
// affected when GlobalTimerResolutionRequests is set".
func TestTimerSetHelpSaysWhatARequestStillChanges(t *testing.T) {
	_, out, _ := runCLI(t, "timer", "set", "--help")
	flat := strings.Join(strings.Fields(out), " ")
	if strings.Contains(flat, "other processes are only affected") {
		t.Error("timer set --help: other processes are affected even per process")
	}
	for _, want := range []string{"still sets the system's timer interrupt", "about 12 ms at a 6 ms interval"} {
		if !strings.Contains(flat, want) {
			t.Errorf("timer set --help lacks %q", want)
		}
	}
}

// PC-Tuning measured Sleep(1) at 1.4968 ms with a 0.5 ms resolution and
// 1.0125 ms at 0.5068 ms (research 000:202, 000:262, 000:275): one tick
// more than rounding up to whole ticks gives (1.0 ms at 0.5 ms), which is
// the floor(1/P)+1 rule of timer.SleepTicks. The guide said Sleep "rounds
// up to whole ticks".
func TestDocsSleepFollowsTheOneMoreTickRule(t *testing.T) {
	flat := strings.Join(strings.Fields(readmeText(t)), " ")
	if strings.Contains(flat, "rounds up to whole ticks") {
		t.Error("the docs say Sleep rounds up to whole ticks")
	}
	for _, c := range []struct {
		p        time.Duration
		measured time.Duration // PC-Tuning's Sleep(1)
		words    string
	}{
		{500 * time.Microsecond, 1_496_800, "about 1.5 ms (3 ticks) at a 0.5 ms resolution"},
		{506_800, 1_012_480, "about 1.0 ms (2 ticks) at 0.5068 ms"},
	} {
		pred := timer.SleepDuration(time.Millisecond, c.p)
		if d := (pred - c.measured).Abs(); d > c.p/10 {
			t.Errorf("the rule gives %v at %v, PC-Tuning measured %v", pred, c.p, c.measured)
		}
		if !strings.Contains(flat, c.words) {
			t.Errorf("the docs lack %q", c.words)
		}
	}
}

// GamingPCSetup's I225-V procedure adds registry values and answers "why
// can't we just edit the .inf" with the signed catalog (research 004:242-244
// in the saved page); inf.md said the procedure edits the INF.
func TestDocsI225ProcedureAddsKeys(t *testing.T) {
	flat := strings.Join(strings.Fields(readmeText(t)), " ")
	if strings.Contains(flat, "procedure edits it") {
		t.Error("the docs say GamingPCSetup's procedure edits the INF")
	}
	if !strings.Contains(flat, "procedure also adds the keys to the adapter's registry key rather than editing the INF") {
		t.Error("inf.md does not say the procedure adds registry keys")
	}
}
