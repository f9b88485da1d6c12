package knob

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// selectorOfField is the selector flag behind each Selector field.
var selectorOfField = map[string]string{
	"Adapter": SelAdapter, "Iface": SelIface, "Queue": SelQueue, "IRQ": SelIRQ, "PID": SelPID,
	"CPU": SelCPUs, "Config": SelConfig, "Policy": SelPolicy, "App": SelPolicy, "Protocol": SelPolicy,
	"LocalPort": SelPolicy, "RemotePort": SelPolicy, "LocalIP": SelPolicy, "RemoteIP": SelPolicy, "NoNLA": SelPolicy,
}

// A knob declares every selector its own file reads (sel.Field): the
// flags' help, generated from the declarations, then names every knob a
// flag applies to. Read from the source, not from the declarations.
func TestKnobsDeclareTheSelectorsTheyRead(t *testing.T) {
	byType := map[string]Knob{}
	for _, k := range All() {
		byType[reflect.TypeOf(k).Name()] = k
	}
	nameRe := regexp.MustCompile(`(?m)^func \((?:\w+ )?(\w+)\) Name\(\) string`)
	useRe := regexp.MustCompile(`\bsel\.(\w+)\b`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := nameRe.FindSubmatch(src)
		if m == nil {
			continue
		}
		k := byType[string(m[1])]
		if k == nil {
			continue
		}
		checked++
		seen[k.Name()] = true
		declared := SelectorsOf(k)
		for _, u := range useRe.FindAllSubmatch(src, -1) {
			sel, ok := selectorOfField[string(u[1])]
			if ok && !slices.Contains(declared, sel) {
				t.Errorf("%s (%s) reads sel.%s but does not declare %q (Selectors)", k.Name(), f, u[1], sel)
			}
		}
	}
	// Knobs built on a shared base (the integer sysctls) have no Name of
	// their own in a file; every knob that reads a selector has.
	if checked < 25 {
		t.Errorf("found %d knob files", checked)
	}
	for _, k := range All() {
		if SelectorsOf(k) != nil && !seen[k.Name()] {
			t.Errorf("%s declares selectors, but no file holds its Name method", k.Name())
		}
	}
}

// Each flag's help names the knobs that declare it, in the catalogue's
// order; a knob without Selectors is in none.
func TestKnobsSelecting(t *testing.T) {
	if got := KnobsSelecting(SelIface); got != "coalescing, rps" {
		t.Errorf("iface: %q", got)
	}
	if got := KnobsSelecting("no-such-flag"); got != "" {
		t.Errorf("unknown flag: %q", got)
	}
	k, err := Lookup("swappiness")
	if err != nil {
		t.Fatal(err)
	}
	if s := SelectorsOf(k); s != nil {
		t.Errorf("swappiness declares %v", s)
	}
}
