package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

// The research latlab implements, as users meet it in the help and the
// README: each claim here once contradicted its source.

// MeasureSleep (valleyofdoom/TimerResolution,
// https://github.com/valleyofdoom/TimerResolution/blob/main/MeasureSleep/MeasureSleep.cpp)
// pauses Sleep(1000) between iterations, as in the version PC-Tuning's
// research quotes ("Sleep(1000); // pause for a second between
// iterations"); only its later --samples mode pauses Sleep(100). The help
// and the README said "MeasureSleep uses 100 ms".
func TestMeasureSleepPauseIsSourced(t *testing.T) {
	code, out, _ := runCLI(t, "sleep", "--help")
	if code != 0 {
		t.Fatalf("sleep --help: exit %d", code)
	}
	readme := readmeText(t)
	for name, text := range map[string]string{"sleep --help": out, "README": readme} {
		flat := strings.Join(strings.Fields(text), " ")
		if strings.Contains(flat, "MeasureSleep uses 100 ms") || strings.Contains(flat, "MeasureSleep pauses 100 ms") {
			t.Errorf("%s: MeasureSleep's pause is Sleep(1000), Sleep(100) only with --samples", name)
		}
		if !strings.Contains(flat, "Sleep(1000)") {
			t.Errorf("%s does not name MeasureSleep's Sleep(1000)", name)
		}
	}
}

// Bruce Dawson measured Sleep(1) at a 1 ms interval at 2.0 ms on Windows
// 10 and XP and 1.0 ms on Windows 7 and 8 ("Windows Timer Resolution: The
// Great Rule Change",
// https://randomascii.wordpress.com/2020/10/04/windows-timer-resolution-the-great-rule-change/).
// The README said "two ticks at 1 ms" for every build before 2004.
func TestREADMESleepBefore2004IsPerVersion(t *testing.T) {
	flat := strings.Join(strings.Fields(readmeText(t)), " ")
	if strings.Contains(flat, "(two ticks at 1 ms, since the call starts just after a tick") {
		t.Error("README claims two ticks at 1 ms for every build before 2004")
	}
	for _, want := range []string{"2.0 ms, as on Windows XP", "Windows 7 and 8 slept 1.0 ms"} {
		if !strings.Contains(flat, want) {
			t.Errorf("README lacks %q", want)
		}
	}
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
