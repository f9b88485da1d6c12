package cli

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// The check-up's probes are tiny in these tests: they check the command,
// not the machine.
func init() {
	doctorSizes = func(o *doctor.Options) {
		o.SleepSamples, o.SleepGap = 3, 0
		o.WakeDuration, o.ExtraDuration = 20*time.Millisecond, 3*time.Millisecond
		o.CauseDuration = 30 * time.Millisecond
	}
}

// The check-up runs end to end: the summary first, then the timer,
// sleep, wake, the settings and the next steps, in that order, on an
// 80-column page; --all shows the overhead and every finding in full.
// The tiny probes have too few wake-ups for a p99: the summary gives the
// maximum.
func TestDoctor(t *testing.T) {
	folded := []string{"  wake-ups  max ", "\n  sleep     ", "\n  settings  ", " suspicious, ", " changed, ", "\n  cause     ",
		"\n\ntimer (", "\nsleep: ", "\nwake: every 1ms x", "\nsettings (", " read, none altered; --all", "\nnext", "\n  1. latlab "}
	full := []string{"  wake-ups  max ", "\n\ntimer (", "\nsleep: asking ", "\nwake: a 1ms periodic wake-up, ",
		"\ntool overhead: clock read ", "\nsettings: ", " read, none altered: ", "\nnext\n  1. latlab "}
	for _, c := range []struct {
		args []string
		want []string
	}{{[]string{"doctor"}, folded}, {nil, folded}, {[]string{"doctor", "--quick"}, folded}, {[]string{"doctor", "--thorough"}, folded},
		{[]string{"doctor", "--all"}, full}} {
		args := c.args
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		last := -1
		for _, want := range c.want {
			i := strings.Index(out, want)
			if i <= last {
				t.Fatalf("%v: output lacks %q after byte %d:\n%s", args, want, last, out)
			}
			last = i
		}
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 || strings.HasSuffix(l, " ") {
				t.Errorf("%v: line of %d columns (or a trailing space): %q", args, n, l)
			}
		}
		found := false
		// The tiny probes here (20 wake-ups) are too few for a band of
		// p99 unless a wake-up was over 4 ms late or missed its period.
		for _, verdict := range []string{"too few wake-ups to judge their tail;", "mediocre:", "poor:"} {
			found = found || strings.HasPrefix(out, verdict)
		}
		if !found {
			t.Errorf("%v: no wake verdict:\n%s", args, out)
		}
		if summary, _, _ := strings.Cut(out, "\n\n"); strings.Count(summary, "\n") >= 6 {
			t.Errorf("%v: a summary of more than 6 lines:\n%s", args, summary)
		}
	}
}

// --json writes a latlab.result/1 document of kind doctor with the
// sections timer, sleep, wake, settings and next; with -o it goes to the
// file only (not to the terminal as well), and stderr says so.
func TestDoctorJSON(t *testing.T) {
	file := filepath.Join(testutil.TempDir(t), "checkup.json")
	code, stdout, errs := runCLI(t, "doctor", "--json", "-o", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if stdout != "" || !strings.Contains(errs, "wrote "+file+"\n") {
		t.Errorf("--json -o: stdout %d bytes, stderr %q; want the document in the file only and \"wrote FILE\"", len(stdout), errs)
	}
	b, _ := os.ReadFile(file)
	out := string(b)
	doc, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if r := payload(t, doc, doctor.Kind); doc.Schema != result.Schema || r.Timer.Status == nil || r.Overhead == nil {
		t.Fatalf("document %+v", doc)
	}
	var raw struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	data := raw.Data
	for _, sec := range []string{"timer", "sleep", "wake", "settings", "next"} {
		if len(data[sec]) == 0 {
			t.Errorf("no section %s in %s", sec, doc.Data)
		}
	}
	var settings []map[string]any
	json.Unmarshal(data["settings"], &settings)
	if len(settings) == 0 {
		t.Fatal("no settings")
	}
	for _, s := range settings {
		for _, f := range []string{"knob", "value", "default", "verdict", "reason"} {
			if _, ok := s[f]; !ok {
				t.Errorf("setting without %s: %v", f, s)
			}
		}
	}
	r, err := doctor.FromDocument(doc)
	if err != nil || len(r.Settings) != len(settings) || r.Wake == nil || len(r.Wake.Samples) != 0 {
		t.Errorf("read back: %v %+v", err, r)
	}
}

func TestDoctorBadInput(t *testing.T) {
	code, out, errs := runCLI(t, "doctor", "--quick", "--thorough")
	testutil.CheckBadExit(t, "--quick --thorough", code, errs, "--quick and --thorough exclude each other")
	if out != "" {
		t.Errorf("--quick --thorough: stdout %q", out)
	}
	bad := testutil.TempDir(t) + "/no-such-dir/x.json"
	code, out, errs = runCLI(t, "doctor", "-o", bad)
	testutil.CheckBadExit(t, "-o "+bad, code, errs, "cannot write")
	if out != "" {
		t.Errorf("-o %s: stdout %q", bad, out)
	}
}

// --bundle on this machine, with the files written under the home
// directory: the zip holds the document, the page and the raw samples,
// and nowhere the user's name, the host's name or the home directory.
func TestDoctorBundle(t *testing.T) {
	home, _ := os.UserHomeDir()
	dir, err := os.MkdirTemp(home, "latlab-test-")
	if err != nil {
		dir = testutil.TempDir(t)
	} else {
		t.Cleanup(func() { testutil.RemoveTree(dir) })
	}
	zipPath, page := filepath.Join(dir, "checkup.zip"), filepath.Join(dir, "checkup.html")
	code, _, errs := runCLI(t, "doctor", "--bundle", zipPath, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	id := doctor.CurrentIdentity()
	var names []string
	wakeCount := -1
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(rc, 50<<20))
		rc.Close()
		if f.Name == "doctor.json" {
			var d struct {
				Data struct {
					Wake struct {
						Summary struct {
							Count int `json:"count"`
						} `json:"summary"`
					} `json:"wake"`
				} `json:"data"`
			}
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatalf("doctor.json: %v", err)
			}
			wakeCount = d.Data.Wake.Summary.Count
		}
		s := strings.ToLower(string(b))
		if h := strings.ToLower(strings.TrimRight(id.Home, `/\`)); len(h) > 1 &&
			(strings.Contains(s, h) || strings.Contains(s, strings.ReplaceAll(h, `\`, `\\`))) {
			t.Errorf("%s contains the home directory %s", f.Name, id.Home)
		}
		// The names as whole tokens of host-name characters (vm.swappiness
		// is not the host vm); a host name of letters alone in the case
		// the OS gives it, since it may be a word ("the VM counters").
		tokens := map[string]bool{}
		for _, tok := range regexp.MustCompile(`[\pL\pN_.-]+`).FindAllString(string(b), -1) {
			tokens[strings.TrimRight(tok, ".")] = true
		}
		for _, name := range []string{id.User, id.Host} {
			// A name that is also one of latlab's words ("needs root")
			// identifies no one and is not looked for.
			if len(name) < 2 || slices.Contains([]string{"root", "administrator"}, strings.ToLower(name)) {
				continue
			}
			letters := regexp.MustCompile(`^\pL+$`).MatchString(name)
			for tok := range tokens {
				if tok == name || (!letters || name == id.User) && strings.EqualFold(tok, name) {
					t.Errorf("%s contains the name %q", f.Name, name)
				}
			}
		}
	}
	// A probe's samples file is there when it measured something: how
	// many wake-ups 3 s give depends on how busy the machine is (other
	// packages' tests run beside this one), so doctor.json says.
	want := "README.txt doctor.json doctor.html sleep-overshoot-ns.txt"
	if wakeCount > 0 {
		want += " wake-lateness-ns.txt"
	}
	if strings.Join(names, " ") != want {
		t.Errorf("bundle files %v, want %s (%d wake-ups)", names, want, wakeCount)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<h1>latlab check-up</h1>") {
		t.Errorf("--html: %v", err)
	}
}
