package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/result/resultschema"
	"github.com/latlab/latlab/internal/testutil"
)

var schemaFile = filepath.Join("..", "..", filepath.FromSlash(resultschema.File))

// The schema in the repository is the one the Go types give: change a
// payload and this fails until `go run ./scripts/schemagen` writes it.
func TestSchemaFileIsCurrent(t *testing.T) {
	want, err := resultschema.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date: run go run ./scripts/schemagen", resultschema.File)
	}
}

func compileSchema(t *testing.T) *jsv.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsv.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(resultschema.ID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(resultschema.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate checks every document in out (one, or one per line when
// lines is set) against the schema and reads it back; it returns their
// kinds.
func validate(t *testing.T, s *jsv.Schema, out string, lines bool) []string {
	t.Helper()
	docs := []string{out}
	if lines {
		docs = nil
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			docs = append(docs, sc.Text())
		}
	}
	if len(docs) == 0 || strings.TrimSpace(out) == "" {
		t.Fatal("no output")
	}
	var kinds []string
	for _, d := range docs {
		v, err := jsv.UnmarshalJSON(strings.NewReader(d))
		if err != nil {
			t.Fatalf("not JSON: %v\n%s", err, d)
		}
		if err := s.Validate(v); err != nil {
			t.Fatalf("does not match %s: %v\n%.3000s", resultschema.File, err, d)
		}
		doc, err := result.Read(strings.NewReader(d))
		if err != nil {
			t.Fatalf("valid, but not read back: %v", err)
		}
		kinds = append(kinds, doc.Kind)
	}
	return kinds
}

// jsonCase is one command whose --json output is checked.
type jsonCase struct {
	name  string
	args  []string
	lines bool // a document per line
}

// Every command's --json that runs in a test writes documents that
// match the schema (no null where a list or object belongs, no field of
// the wrong type) and that result.Read reads back. Kinds no case covers
// are named with the reason.
func TestEveryJSONOutputMatchesTheSchema(t *testing.T) {
	// In parallel with the package's other parallel tests: its commands
	// mostly wait (probes, holds, servers), on temporary trees and
	// directories of their own.
	t.Parallel()
	s := compileSchema(t)
	dir := testutil.TempDir(t)
	a := synthSleep(t, dir, "a.json", 50, 1e6, 5e4, 1, 1e6)
	b := synthSleep(t, dir, "b.json", 50, 1.1e6, 5e4, 2, 1e6)
	cases := []jsonCase{
		{"version", []string{"version", "--json"}, false},
		{"timer status", []string{"timer", "status", "--json"}, false},
		{"timer who", []string{"timer", "who", "--json"}, false},
		{"timer set", []string{"timer", "set", "1ms", "--for", "10ms", "--json"}, true},
		{"sleep", []string{"sleep", "--samples", "20", "--gap", "0", "--sleep-length", "1ms", "--json"}, false},
		{"wake", []string{"wake", "--loops", "50", "--json"}, false},
		{"noise", []string{"noise", "--duration", "100ms", "--cpus", "0", "--json"}, false},
		{"sweep", append(append([]string{}, shortSweep...), "--json"), false},
		{"crossproc", []string{"crossproc", "--periods", "1", "--hold", "1s", "--settle", "20ms", "--json"}, false},
		{"compare", []string{"compare", a, b, "--json"}, false},
		{"compare a noise try", []string{"compare", "../compare/testdata/try-noise-cpus.json", "--json"}, false},
		{"compare a dpcisr try", []string{"compare", "../compare/testdata/try-dpcisr.json", "--json"}, false},
		{"doctor", []string{"doctor", "--quick", "--json"}, false},
		{"dpcisr", []string{"dpcisr", dpcisrData + "xperf-dpcisr-written-layout.txt", "--json"}, false},
		{"dpcisr compare", []string{"dpcisr", "compare", dpcisrData + "xperf-dpcisr-im-extreme.txt", dpcisrData + "xperf-dpcisr-im-off.txt", "--json"}, false},
		{"etl", []string{"etl", etlData + "written-dpcisr-64.etl", "--json"}, false},
		{"dpcisr of an .etl", []string{"dpcisr", etlData + "written-dpcisr-32.etl", "--json"}, false},
		{"inf", []string{"inf", infData + "i225-like.inf", "--json"}, false},
		{"inf --device", []string{"inf", infData + "i225-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`, "--json"}, false},
		{"knob list", []string{"knob", "list", "--all", "--json"}, false},
		{"knob explain", []string{"knob", "explain", "win32-priority-separation", "0x26", "--json"}, false},
		{"knob explain without a value", []string{"knob", "explain", "tcp-recovery", "--json"}, false},
		{"knob explain a .reg file", []string{"knob", "explain", "../regfile/testdata/tweaks.reg", "--json"}, false},
		{"knob history", []string{"knob", "history", "--state-dir", testutil.TempDir(t), "--json"}, false},
		{"knob export --undo", []string{"knob", "export", "--undo", "--state-dir", testutil.TempDir(t), "--json"}, false},
		{"knob revert --all", []string{"knob", "revert", "--all", "--state-dir", emptyJournal(t), "--json"}, false},
		{"net serve", []string{"net", "serve", "--echo-port", "-1", "--discard-port", "0", "--sink-port", "0", "--duration", "100ms", "--json"}, true},
		{"pcap dscp", []string{"pcap", "dscp", sshPcap, "--json"}, false},
		{"pcap tcp", []string{"pcap", "tcp", sshPcap, "--json"}, false},
	}
	cases = append(cases, osJSONCases(t)...)
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, k := range validate(t, s, out, c.lines) {
				seen[k] = true
			}
		})
	}
	// Documents made where a command cannot run here.
	srv := netServer(t, udpWorks(t))
	code, out, errs := runCLI(t, "net", "tcp-discard", "--to", srv.Sink, "--size", "64KiB", "--json")
	for try := 1; code != 0 && try < 3 && testutil.WineIOIncomplete(errs); try++ {
		t.Logf("tcp-discard, try %d, hit Wine's fault: %s", try, errs)
		code, out, errs = runCLI(t, "net", "tcp-discard", "--to", srv.Sink, "--size", "64KiB", "--json")
	}
	if code != 0 {
		t.Fatalf("tcp-discard: exit %d: %s", code, errs)
	}
	seen[validate(t, s, out, false)[0]] = true
	if udpWorks(t) {
		code, out, errs = runCLI(t, "net", "udp", "--to", srv.Echo, "--count", "10", "--json")
		if code != 0 {
			t.Fatalf("udp: exit %d: %s", code, errs)
		}
		seen[validate(t, s, out, false)[0]] = true
	}
	uncovered := map[string]string{
		"udp":            "UDP sockets do not open under Wine",
		"irq":            "Linux: reads a fixture tree",
		"rss-experiment": "Linux only",
		"knob-get":       "reads the knobs of this OS",
		"knob-set":       "changes the knobs of this OS",
	}
	for _, k := range result.KindNames() {
		if !seen[k] && uncovered[k] == "" {
			t.Errorf("no case writes a %s document", k)
		}
	}
}

// The schema is not a formality: what the strict reader refuses, and a
// null where latlab writes a list, fail it.
func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t)
	code, out, errs := runCLI(t, "sleep", "--samples", "5", "--gap", "0", "--sleep-length", "1ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	validate(t, s, out, false)
	for name, edit := range map[string][2]string{
		"unknown kind":       {`"kind": "sleep"`, `"kind": "sleeep"`},
		"newer schema":       {`"schema": "latlab.result/1"`, `"schema": "latlab.result/2"`},
		"null notes":         {`"notes": [`, `"notes": null, "x": [`},
		"null samples":       {`"samples_ns": [`, `"samples_ns": null, "x": [`},
		"count as a string":  {`"measured_count": 5`, `"measured_count": "5"`},
		"no summary":         {`"summary": {`, `"summery": {`},
		"created not a time": {`"created": "`, `"created": "yesterday", "x": "`},
	} {
		doc := strings.Replace(out, edit[0], edit[1], 1)
		if doc == out {
			t.Fatalf("%s: %q not in the document", name, edit[0])
		}
		v, err := jsv.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(v); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

// emptyJournal is a state directory whose journal records nothing: revert
// refuses a directory without a journal.
func emptyJournal(t *testing.T) string {
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	return dir
}
