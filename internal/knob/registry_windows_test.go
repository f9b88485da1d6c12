package knob

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// These tests use the real registry (Wine's in CI) under a key of their
// own in HKCU, removed afterwards.
func testKey(t *testing.T) string {
	t.Helper()
	key := fmt.Sprintf(`HKCU\Software\latlab-test-%d-%s`, os.Getpid(), t.Name())
	t.Cleanup(func() { removeKey(backend.Registry{}, key) })
	return key
}

func removeKey(r backend.Registry, key string) {
	keys, vals, err := r.List(key)
	if err != nil {
		return
	}
	for _, k := range keys {
		removeKey(r, key+`\`+k)
	}
	for _, v := range vals {
		r.Write(regLoc(key, v), backend.Absent)
	}
	r.Write(regLoc(key, ""), backend.Absent)
}

func TestRegistryTypesRoundTrip(t *testing.T) {
	r := backend.Registry{}
	key := testKey(t)
	if v, err := r.Read(regLoc(key, "")); err != nil || !v.IsAbsent() {
		t.Fatalf("fresh key: %v %v", v, err)
	}
	if err := r.CheckWrite(regLoc(key+`\a\b`, "x")); err != nil {
		t.Fatalf("CheckWrite below a missing key: %v", err)
	}
	if err := r.Write(regLoc(key, ""), backend.KeyValue); err != nil {
		t.Fatal(err)
	}
	multi := backend.SZ("a\x00b\x00")
	multi.Type = backend.TypeMultiSZ
	expand := backend.SZ(`%SystemRoot%\x`)
	expand.Type = backend.TypeExpandSZ
	odd := backend.Value{Type: backend.TypeSZ, Data: []byte{'1', 0, '2', 0}} // REG_SZ without its NUL: kept as is
	vals := map[string]backend.Value{
		"dword": backend.DWORD(0x26), "sz": backend.SZ("1"), "qword": backend.QWORD(1 << 40), "binary": {Type: backend.TypeBinary, Data: []byte{0, 1, 2, 0xff}},
		"multi": multi, "expand": expand, "empty-binary": {Type: backend.TypeBinary}, "odd-sz": odd, "big": backend.SZ(strings.Repeat("x", 1000)),
	}
	for n, v := range vals {
		if err := r.Write(regLoc(key, n), v); err != nil {
			t.Fatalf("write %s: %v", n, err)
		}
	}
	for n, v := range vals {
		got, err := r.Read(regLoc(key, n))
		if err != nil {
			t.Fatal(err)
		}
		if got.Type != v.Type || string(got.Data) != string(v.Data) {
			t.Errorf("%s: read %s %x, wrote %s %x", n, got.Type, got.Data, v.Type, v.Data)
		}
	}
	_, names, err := r.List(key)
	if err != nil || len(names) != len(vals) {
		t.Fatalf("list: %v %v", names, err)
	}
	if err := r.Write(regLoc(key, "dword"), backend.Absent); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Read(regLoc(key, "dword")); !v.IsAbsent() {
		t.Fatal("deleted value still there")
	}
	if err := r.Write(regLoc(key, "never-existed"), backend.Absent); err != nil {
		t.Fatalf("deleting an absent value: %v", err)
	}
	if err := r.Write(regLoc(key, ""), backend.Absent); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("deleting a key with values: %v", err)
	}
	if _, _, err := r.List(key + `\missing`); err == nil {
		t.Fatal("listing a missing key")
	}
}

// TestRegistryApplyRevert runs the journal over the real registry: a
// DWORD and a REG_SZ that exist, a value and keys that do not.
func TestRegistryApplyRevert(t *testing.T) {
	r := backend.Registry{}
	key := testKey(t)
	r.Write(regLoc(key, ""), backend.KeyValue)
	r.Write(regLoc(key, "dw"), backend.DWORD(2))
	r.Write(regLoc(key, "sz"), backend.SZ("4"))
	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: r}}
	registerForTest(t, keyKnob{key: key})
	p := &Plan{Knob: keyKnob{}.Name()}
	if err := ensureKey(env, p, key+`\new\deeper`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l backend.Loc
		v backend.Value
	}{{regLoc(key, "dw"), backend.DWORD(0x26)}, {regLoc(key, "sz"), backend.SZ("2")}, {regLoc(key, "added"), backend.SZ("x")}, {regLoc(key+`\new\deeper`, "v"), backend.DWORD(1)}} {
		if err := p.add(env, c.l, c.v); err != nil {
			t.Fatal(err)
		}
	}
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := Apply(env, j, p); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Read(regLoc(key+`\new\deeper`, "v")); v.String() != "1" {
		t.Fatalf("deeper value %v", v)
	}
	if _, err := Revert(env, j, MatchAll, false); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Read(regLoc(key, "dw")); v.Type != backend.TypeDWORD || v.String() != "2" {
		t.Errorf("dw %s %s", v.Type, v)
	}
	if v, _ := r.Read(regLoc(key, "sz")); v.Type != backend.TypeSZ || v.String() != "4" {
		t.Errorf("sz %s %s", v.Type, v)
	}
	for _, l := range []backend.Loc{regLoc(key, "added"), regLoc(key+`\new`, "")} {
		if v, _ := r.Read(l); !v.IsAbsent() {
			t.Errorf("%s left after revert", l)
		}
	}
}

func TestQueryDisplayPathsRuns(t *testing.T) {
	// Headless Wine may have no display: either answer is fine, a crash is not.
	paths, err := QueryDisplayPaths()
	for _, p := range paths {
		if p.ScalingName == "" {
			t.Errorf("path %+v without a scaling name", p)
		}
	}
	t.Logf("paths %+v err %v", paths, err)
}

// Ndi\Params read through the real registry: an enum keyword and a
// number keyword, as an INF writes them (REG_SZ throughout).
func TestRegistryNdiParams(t *testing.T) {
	r := backend.Registry{}
	key := testKey(t)
	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: r}}
	for _, k := range []string{key, key + `\Ndi`, key + `\Ndi\Params`, key + `\Ndi\Params\*NumRssQueues`, key + `\Ndi\Params\*NumRssQueues\Enum`, key + `\Ndi\Params\*MaxRssProcessors`} {
		if err := r.Write(regLoc(k, ""), backend.KeyValue); err != nil {
			t.Fatal(err)
		}
	}
	q := key + `\Ndi\Params\*NumRssQueues`
	for n, v := range map[string]string{"ParamDesc": "Maximum Number of RSS Queues", "type": "enum", "default": "2"} {
		r.Write(regLoc(q, n), backend.SZ(v))
	}
	for v, d := range map[string]string{"4": "4 Queues", "1": "1 Queue", "2": "2 Queues"} {
		r.Write(regLoc(q+`\Enum`, v), backend.SZ(d))
	}
	m := key + `\Ndi\Params\*MaxRssProcessors`
	for n, v := range map[string]string{"type": "int", "min": "1", "max": "8"} {
		r.Write(regLoc(m, n), backend.SZ(v))
	}
	p, err := readNdiParam(env, key, "*NumRssQueues")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Declared || p.Type != "enum" || p.Default != "2" || p.Accepted() != "1 (1 Queue), 2 (2 Queues), 4 (4 Queues)" || p.Allows(3) {
		t.Errorf("*NumRssQueues %+v", p)
	}
	p, err = readNdiParam(env, key, "*MaxRssProcessors")
	if err != nil || p.Accepted() != "1-8" || p.Allows(9) || !p.Allows(8) {
		t.Errorf("*MaxRssProcessors %+v %v", p, err)
	}
	if p, err := readNdiParam(env, key, "*RSSProfile"); err != nil || p.Declared || !p.Allows(4) {
		t.Errorf("undeclared keyword %+v %v", p, err)
	}
}

// A key latlab created is deleted through RegDeleteKeyExW in the 64-bit
// view, the view every open uses.
func TestRegistryDeleteKey64(t *testing.T) {
	r := backend.Registry{}
	key := testKey(t)
	if err := r.Write(regLoc(key+`\made`, ""), backend.KeyValue); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Read(regLoc(key+`\made`, "")); err != nil || v.IsAbsent() {
		t.Fatalf("created key: %v %v", v, err)
	}
	if err := r.Write(regLoc(key+`\made`, ""), backend.Absent); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Read(regLoc(key+`\made`, "")); err != nil || !v.IsAbsent() {
		t.Fatalf("deleted key still there: %v %v", v, err)
	}
	// Deleting it again: gone is as good as deleted.
	if err := r.Write(regLoc(key+`\made`, ""), backend.Absent); err != nil {
		t.Errorf("second delete: %v", err)
	}
}

// keyKnob is a knob of the tests that writes anything below one key.
type keyKnob struct {
	windowsKnob
	key string
}

func (keyKnob) Name() string    { return "test-key" }
func (keyKnob) Summary() string { return "any value below a test key" }
func (keyKnob) Explain(string, ExplainOptions) (*Explanation, error) {
	return &Explanation{Knob: "test-key"}, nil
}
func (keyKnob) Get(*Env, Selector) (*Reading, error) { return &Reading{Knob: "test-key"}, nil }
func (keyKnob) Plan(*Env, Selector, string) (*Plan, error) {
	return nil, badinput.Errorf("not settable")
}
func (keyKnob) Checkup() Checkup       { return Checkup{} }
func (keyKnob) Experiment() Experiment { return Experiment{} }
func (k keyKnob) Vet(target string, l backend.Loc, v backend.Value) error {
	if _, ok := cutKey(l.Path, k.key); !ok && !strings.EqualFold(l.Path, k.key) {
		return notMine(k.Name(), target, l)
	}
	return nil
}

// registerForTest adds k to the catalogue for the test.
func registerForTest(t *testing.T, k Knob) {
	catalogue()[k.Name()] = k
	t.Cleanup(func() { delete(catalogue(), k.Name()) })
}
