package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/textdec"
)

func TestKnobExplainPrioSepJSON(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "explain", "win32-priority-separation", "0x26", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var ex struct {
		Knob, Input string
		Text        []string
		Decoded     map[string]any
	}
	if err := json.Unmarshal(jsonData(t, out), &ex); err != nil || ex.Knob != "win32-priority-separation" || ex.Input != "0x26" || len(ex.Text) == 0 {
		t.Fatalf("%v %+v", err, ex)
	}
	doc := ex.Decoded
	want := map[string]any{"value": 38.0, "effective": 38.0, "interval": "short", "length": "variable", "ps_priority_separation": 2.0,
		"foreground_quantum_units": 18.0, "background_quantum_units": 6.0, "foreground_quantum_ms": 93.75, "background_quantum_ms": 31.25,
		"foreground_boost": 2.0, "quantum_ratio": "3:1"}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "0x18", "--server")
	if code != 0 || !strings.Contains(out, "0x18 (24): long, fixed quanta, PsPrioritySeparation 0 (1:1)\n  quantum: 36 units (187.5 ms), foreground and background alike") ||
		!strings.Contains(out, "foreground wait boost: +0") {
		t.Errorf("0x18: %s", out)
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "--find", "short,variable,3:1")
	if code != 0 || !strings.Contains(out, "use 0x26") {
		t.Errorf("--find: %s", out)
	}
	// Fixed quanta are equal but PsPrioritySeparation still boosts: a
	// fixed 3:1 class exists.
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "--find", "long,fixed,3:1")
	for _, want := range []string{"use 0x1A", "all matches: 0x1A 0x1B\n", "foreground and background alike", "foreground wait boost: +2"} {
		if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "no value") {
			t.Errorf("--find long,fixed,3:1 lacks %q: %s", want, out)
		}
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "0x1A", "--json")
	if code != 0 || !strings.Contains(out, `"foreground_boost": 2,`) || !strings.Contains(out, `"quantum_ratio": "1:1"`) {
		t.Errorf("0x1A --json: %s", out)
	}
	for _, server := range []string{"--server=false", "--server"} {
		code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "--table", server)
		if code != 0 || strings.Count(out, "\n  0x") != 64 {
			t.Errorf("--table has %d rows", strings.Count(out, "\n  0x"))
		}
		for _, l := range strings.Split(out, "\n") {
			if len(l) > 80 {
				t.Errorf("line wider than 80 columns: %q", l)
			}
		}
		// Every row shows the boost: 0x1A and 0x18 differ in it.
		if !regexp.MustCompile(`\n  0x1A .* \+2 `).MatchString(out) || !regexp.MustCompile(`\n  0x18 .* \+0 `).MatchString(out) {
			t.Errorf("--table %s rows lack the boost: %s", server, out)
		}
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "0x26", "--tick", "1ms", "--json")
	if code != 0 || !strings.Contains(out, `"foreground_quantum_ms": 6`) {
		t.Errorf("--tick 1ms: %s", out)
	}
}

// explain works for every knob on every OS.
func TestKnobExplainAnyOS(t *testing.T) {
	for _, args := range [][]string{
		{"tcp-recovery", "5"}, {"rss", "*RSSProfile=4"}, {"network-throttling-index", "10"}, {"tsc-sync-policy", "enhanced"},
		{"display-scaling", "4"}, {"qos-dscp", "46"}, {"interrupt-moderation", "on,rate=minimal"}, {"coalescing", "rx-usecs=50"},
		{"clocksource", "tsc"}, {"irq-affinity", "0-3"}, {"rps", "0x3"}, {"timer-slack", "1us"}, {"tcp-dsack", "0"},
		{"global-timer-resolution-requests", "1"},
	} {
		code, out, errs := runCLI(t, append([]string{"knob", "explain"}, args...)...)
		if code != 0 || out == "" {
			t.Errorf("explain %v: exit %d %s", args, code, errs)
		}
	}
}

func TestKnobBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knob", "get", "win32-priority-seperation"}, "did you mean win32-priority-separation?"},
		{[]string{"knob", "explain", "network-throttling-index", "80"}, "accepted 1-70 or off"},
		{[]string{"knob", "explain", "win32-priority-separation", "--find", "medium"}, "unknown term"},
		{[]string{"knob", "explain", "qos-dscp", "64"}, "accepted 0-63"},
		{[]string{"knob", "revert"}, "needs a knob name or --all"},
		{[]string{"knob", "revert", "tcp-dsack", "--all"}, "not both"},
		{[]string{"knob"}, "needs a subcommand"},
		{[]string{"knob", "set", "tcp-dsack", "0", "--format", "sh"}, "--format goes with --dry-run"},
		{[]string{"knob", "set", "win32-priority-separation", "0x26", "--format", "reg"}, "--format goes with --dry-run"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
}

func TestKnobList(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "list", "--all", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc := payload(t, readDoc(t, out), knob.KindList)
	// Every knob of the catalogue, of both OSes.
	if len(doc.Knobs) != len(knob.All()) || len(doc.Knobs) < 18 {
		t.Errorf("%d knobs, want the catalogue's %d", len(doc.Knobs), len(knob.All()))
	}
}

// export -o writes a .reg file as regedit writes them: UTF-16LE with a
// BOM and CRLF line ends (characters outside ASCII survive); stdout gets
// the same text for reading.
func TestKnobExportRegFile(t *testing.T) {
	state := testutil.TempDir(t)
	key := `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\latlab spiel-ü.exe`
	journal := `{"version":1,"next_id":2,"next_set":2,"entries":[{"id":1,"set":1,"time":"2026-01-02T03:04:05Z","knob":"qos-dscp",
"target":"latlab spiel-ü.exe","request":"46","loc":{"backend":"reg","path":` + strconv.Quote(key) + `,"name":"DSCP Value"},
"original":{"type":"absent"},"new":{"type":"REG_SZ"},"state":"applied"}]}`
	if err := os.WriteFile(filepath.Join(state, "journal.json"), []byte(journal), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testutil.TempDir(t), "undo.reg")
	code, _, errs := runCLI(t, "knob", "export", "--undo", "--format", "reg", "--state-dir", state, "-o", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xFE {
		t.Fatal(".reg is not UTF-16LE with a BOM, as regedit writes version 5 files")
	}
	s, _, err := textdec.Decode(b)
	want := "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft\\Windows\\QoS\\latlab spiel-ü.exe]\r\n\"DSCP Value\"=-\r\n\r\n" // regedit ends a file with an empty line
	if err != nil || s != want {
		t.Errorf(".reg decodes to %q (%v), want %q", s, err, want)
	}
	code, out, _ := runCLI(t, "knob", "export", "--undo", "--format", "reg", "--state-dir", state)
	if code != 0 || out != strings.ReplaceAll(want, "\r\n", "\n") {
		t.Errorf("stdout %q, want the text of the file", out)
	}
}

// An empty journal's history is a document with "entries": [], not null.
func TestKnobHistoryEmptyJSON(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "history", "--state-dir", testutil.TempDir(t), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if h := payload(t, readDoc(t, out), knob.KindHistory); h.Entries == nil || len(h.Entries) != 0 || !strings.Contains(out, `"entries": []`) {
		t.Fatalf("history of an empty journal:\n%s", out)
	}
}

// knob explain FILE.reg decodes a file of tweaks: the values latlab
// knows, by their knobs, and the rest listed as unknown; the document
// carries the same; what is not a .reg file is bad input.
// A PowerShell script of tweaks (.ps1, .psm1) is explained as a .reg
// file is, in the same document kind: the text against
// testdata/knob-explain-ps1.golden (go test -run TestKnobExplainPowerShell
// -update rewrites it).
func TestKnobExplainPowerShell(t *testing.T) {
	const tweaks = "../regfile/testdata/tweaks.ps1"
	code, out, errs := runCLI(t, "knob", "explain", tweaks)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	goldie.New(t).Assert(t, "knob-explain-ps1", []byte(out))
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	code, out, errs = runCLI(t, "knob", "explain", tweaks, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	if doc := readDoc(t, out); doc.Kind != knob.KindExplainReg.Name() {
		t.Errorf("kind %q", doc.Kind)
	}
	var x knob.RegExplanation
	if err := json.Unmarshal(jsonData(t, out), &x); err != nil || !x.PowerShell || len(x.Known) != 3 || x.Known[1].Note == "" {
		t.Errorf("%v: %+v", err, x)
	}

	dir := testutil.TempDir(t)
	module := filepath.Join(dir, "Tweaks.PSM1")
	if err := os.WriteFile(module, []byte("function Set-Tweaks {\n  Write-Host 'tweaking'\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "knob", "explain", module); code != 0 || out != "Tweaks.PSM1: no registry change to decode: no registry command with a value or a\n  deletion\n1 other command of the script not read: no registry writes (services, bcdedit,\n  powercfg... change settings latlab does not decode here)\n" {
		t.Errorf("a module of no change: exit %d, %q", code, out)
	}
	empty := filepath.Join(dir, "empty.ps1")
	if err := os.WriteFile(empty, []byte("\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "knob", "explain", empty)
	testutil.CheckBadExit(t, "empty.ps1", code, errs, "empty file: expected a PowerShell script")
	// a script PowerShell cannot parse runs nothing, not even its
	// commands above the error
	broken := filepath.Join(dir, "broken.ps1")
	if err := os.WriteFile(broken, []byte("Set-ItemProperty HKCU:\\X a 1 -Type DWord\r\nif ($a) {\r\n  sp HKCU:\\X b 1\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "knob", "explain", broken)
	testutil.CheckBadExit(t, "broken.ps1", code, errs, "broken.ps1: line 2: a { that is never closed: a syntax error, so PowerShell would run none of the script")
}

func TestKnobExplainRegFile(t *testing.T) {
	const tweaks = "../regfile/testdata/tweaks.reg"
	code, out, errs := runCLI(t, "knob", "explain", tweaks)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "tweaks.reg: 12 values and 1 deleted key in 7 key lines: latlab knows 6 of") {
		t.Errorf("first line %q", first)
	}
	for _, want := range []string{"network-throttling-index (line 8)", "0x26 (38): short, variable quanta",
		"settings latlab has no evidence on (7)", "SystemResponsiveness = dword 0x00000000 (0)", "line 36: a value below a key skipped above"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// a key's values under it once; the control set's note once
	if n := strings.Count(out, `\{11111111-2222-3333-4444-555555555555}`); n != 1 {
		t.Errorf("the interface key shown %d times:\n%s", n, out)
	}
	if n := strings.Count(out, "ControlSet001 read as CurrentControlSet"); n != 1 {
		t.Errorf("the control set's note shown %d times", n)
	}
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	code, out, errs = runCLI(t, "knob", "explain", tweaks, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	if doc := readDoc(t, out); doc.Kind != knob.KindExplainReg.Name() {
		t.Errorf("kind %q", doc.Kind)
	}
	var x knob.RegExplanation
	if err := json.Unmarshal(jsonData(t, out), &x); err != nil || len(x.Known) != 6 || len(x.Unknown) != 7 || x.Known[1].Knob != "win32-priority-separation" {
		t.Errorf("%v: %+v", err, x)
	}

	code, out, errs = runCLI(t, "knob", "explain", "../regfile/testdata/tweaks.bat")
	if code != 0 || !strings.HasPrefix(out, "tweaks.bat: 12 values and 1 deleted key in 13 reg commands: latlab knows 4 of") ||
		!strings.Contains(out, "5 other lines of the script hold no reg add or reg delete") {
		t.Errorf("tweaks.bat: exit %d: %s%s", code, out, errs)
	}

	dir := testutil.TempDir(t)
	empty := filepath.Join(dir, "empty.reg")
	if err := os.WriteFile(empty, []byte("REGEDIT4\r\n[HKEY_CURRENT_USER\\X]\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "knob", "explain", empty); code != 0 || out != "empty.reg: no registry change to decode: no key with a value or a deletion\n" {
		t.Errorf("a file of no change: exit %d, %q", code, out)
	}
	notReg := filepath.Join(dir, "notes.reg")
	if err := os.WriteFile(notReg, []byte("reg add HKLM\\X /v y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{tweaks, "5"}, "a file of tweaks takes no VALUE"},
		{[]string{filepath.Join(dir, "absent.reg")}, "cannot read " + filepath.Join(dir, "absent.reg")},
		{[]string{notReg}, `line 1: "reg add HKLM\\X /v y" is not a .reg header`},
	} {
		code, _, errs := runCLI(t, append([]string{"knob", "explain"}, c.args...)...)
		testutil.CheckBadExit(t, strings.Join(c.args, " "), code, errs, c.want)
	}
}
