package inf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// hostileHead is the part of the INFs below that gets a device to its
// install section [I].
const hostileHead = "[Version]\nSignature=\"$Windows NT$\"\n[Manufacturer]\n%M%=A,NTamd64\n[A.NTamd64]\nd=I,PCI\\VEN_1\n[Strings]\nM=m\n"

func parseString(t testing.TB, s string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(s), "hostile.inf")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// lower sets one of the analysis's bounds to a smaller value for the
// rest of the test: a bound is proved on an input of kilobytes instead of
// one of its real size (seconds each under the race detector), and
// TestBoundsAsDocumented checks the value it has otherwise.
func lower[T int | int64](t *testing.T, bound *T, to T) {
	t.Helper()
	was := *bound
	*bound = to
	t.Cleanup(func() { *bound = was })
}

// The bounds the analysis starts with are the ones the docs state and
// the errors name; the tests that exceed them lower them first.
func TestBoundsAsDocumented(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"MaxInput", MaxInput, 32 << 20},
		{"maxApplied", int64(maxApplied), 2_097_152},
		{"MaxNeedsDepth", MaxNeedsDepth, 64},
		{"MaxNotes", MaxNotes, 1000},
		{"maxEntries", int64(maxEntries), 1 << 19},
		{"maxFields", int64(maxFields), 1 << 20},
		{"maxExpanded", maxExpanded, 64 << 20}, // "tokens expand to more than 64 MiB"
		{"maxListed", int64(maxListed), 262_144},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for doc, says := range map[string][]string{
		"../../docs/reliability.md": {
			"processes at most 2,097,152 section entries",
			"Needs chain deeper than 64 sections is an error",
			"keeps 1,000 notes",
		},
		"../../docs/commands/inf.md": {
			"(`MaxApplied` allows 2,097,152)",
			"(`MaxListed`, 262,144)",
		},
	} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, s := range says {
			if !strings.Contains(text, s) {
				t.Errorf("%s does not say %q", doc, s)
			}
		}
	}
}

// entries counts the entries of the named sections the way a reader who
// applies each of them once would: one per field, at least one per line.
func entries(f *File, names ...string) int {
	n := 0
	for _, name := range names {
		for _, l := range f.Section(name).Lines {
			n += max(1, len(l.Fields))
		}
	}
	return n
}

// addregBody is an AddReg section of n keywords with two values each.
func addregBody(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", name)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "HKR,Ndi\\Params\\K%d,ParamDesc,,\"k%d\"\nHKR,Ndi\\Params\\K%d,default,,\"%d\"\n", i, i, i, i)
	}
	return b.String()
}

// An AddReg naming one section over and over applied it every time: 57 KB
// took seconds, 458 KB minutes. It is applied once per install section,
// listed once per line, and the result is that of one reference.
func TestINFRepeatedAddRegAppliedOnce(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	once := parseString(t, hostileHead+"[I]\nAddReg=R\n; (a line for the second reference below)\n"+addregBody("R", 50))
	want, err := once.Resolve("I", tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 1000, 20000} {
		f := parseString(t, hostileHead+"[I]\nAddReg="+strings.Repeat("R,", n-1)+"R\nAddReg=R\n"+addregBody("R", 50))
		w := &work{}
		in, err := f.resolve("I", tg, "", nil, w)
		if err != nil {
			t.Fatal(err)
		}
		// Each section processed once: the fields of [I] and the lines of [R].
		if limit := entries(f, "I", "R"); w.entries > limit {
			t.Errorf("%d references: %d entries processed, want at most %d", n, w.entries, limit)
		}
		if len(in.AddReg) != 2 || in.AddReg[0].Line == in.AddReg[1].Line {
			t.Errorf("%d references: AddReg lists %d references, want one per line (2)", n, len(in.AddReg))
		}
		if !reflect.DeepEqual(in.Keywords, want.Keywords) || !reflect.DeepEqual(in.Values, want.Values) {
			t.Errorf("%d references: keywords differ from those of one reference", n)
		}
		if !strings.Contains(strings.Join(in.Notes, "\n"), "applied once") {
			t.Errorf("%d references: no note says the section was applied once: %q", n, in.Notes)
		}
	}
}

// needsChain is an install section [I] that needs N0, which needs N1 ...
// N<n-1>; each adds its own value.
func needsChain(n int) string {
	var b strings.Builder
	b.WriteString(hostileHead + "[I]\nNeeds=N0\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[N%d]\nAddReg=R%d\n", i, i)
		if i+1 < n {
			fmt.Fprintf(&b, "Needs=N%d\n", i+1)
		}
		fmt.Fprintf(&b, "[R%d]\nHKR,,V%d,,%d\n", i, i, i)
	}
	return b.String()
}

// A Needs chain was checked for loops by searching the chain at every
// step (quadratic) and followed by recursion as deep as the file made
// it. The check is a map, and a chain deeper than MaxNeedsDepth is an
// error naming the limit.
func TestINFNeedsChain(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	for _, n := range []int{1, 10, 60} {
		f := parseString(t, needsChain(n))
		w := &work{}
		in, err := f.resolve("I", tg, "", nil, w)
		if err != nil {
			t.Fatalf("chain of %d: %v", n, err)
		}
		if len(in.Values) != n || in.Values[n-1].Name != "V"+strconv.Itoa(n-1) {
			t.Errorf("chain of %d: %d values, want %d", n, len(in.Values), n)
		}
		names := []string{"I"}
		for i := 0; i < n; i++ {
			names = append(names, "N"+strconv.Itoa(i), "R"+strconv.Itoa(i))
		}
		if limit := entries(f, names...); w.entries != limit {
			t.Errorf("chain of %d: %d entries processed, want each section's once (%d)", n, w.entries, limit)
		}
	}
	for _, n := range []int{100, 20000} {
		f := parseString(t, needsChain(n))
		_, err := f.Resolve("I", tg, "", nil)
		if err == nil || !strings.Contains(err.Error(), "Needs chain") || !strings.Contains(err.Error(), "deeper than") {
			t.Errorf("chain of %d: err %v, want the chain named too deep", n, err)
		}
	}
	// A loop at the end of a long chain is still named as a loop.
	f := parseString(t, needsChain(30)+"[N29]\nNeeds=N3\n")
	if _, err := f.Resolve("I", tg, "", nil); err == nil || !strings.Contains(err.Error(), "Needs loop") || !strings.Contains(err.Error(), "[N3] -> [N4]") {
		t.Errorf("loop: err %v, want the loop from [N3]", err)
	}
}

// A wide fan-out: [I] needs n sections that each add the same large AddReg
// section and one of their own. The large one is applied once.
func TestINFNeedsFanOut(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	const n = 3000
	var b strings.Builder
	b.WriteString(hostileHead + "[I]\nNeeds=")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "N%d", i)
	}
	b.WriteString("\n")
	names := []string{"I", "Big"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[N%d]\nAddReg=Big,S%d\n[S%d]\nHKR,,V%d,,%d\n", i, i, i, i, i)
		names = append(names, fmt.Sprintf("N%d", i), fmt.Sprintf("S%d", i))
	}
	b.WriteString(addregBody("Big", 300))
	f := parseString(t, b.String())
	w := &work{}
	in, err := f.resolve("I", tg, "", nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if limit := entries(f, names...); w.entries > limit {
		t.Errorf("%d entries processed, want each section's once (%d)", w.entries, limit)
	}
	if len(in.Keywords) != 300 || len(in.Values) != n {
		t.Errorf("%d keywords and %d values, want 300 and %d", len(in.Keywords), len(in.Values), n)
	}
	if k := in.Keyword("K7"); k == nil || !reflect.DeepEqual(k.Sections, []string{"Big"}) || k.Default != "7" {
		t.Errorf("K7 = %+v, want defined once in [Big] with default 7", k)
	}
}

// A listing followed the install section of every models line, even when
// thousands of lines name the same one.
func TestINFListFollowsEachInstallSectionOnce(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	var b strings.Builder
	b.WriteString("[Version]\n[Manufacturer]\n%M%=A,NTamd64\n[Strings]\nM=m\n[A.NTamd64]\n")
	const n = 5000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "d%d=I,PCI\\VEN_%d\n", i, i)
	}
	b.WriteString("[I]\nAddReg=R\n" + addregBody("R", 200))
	f := parseString(t, b.String())
	w := &work{}
	l, err := list(f, tg, "", nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(l.Manufacturers[0].Sections[0].Devices); got != n {
		t.Fatalf("%d devices listed, want %d", got, n)
	}
	if limit := entries(f, "I", "R"); w.entries > limit {
		t.Errorf("%d entries processed, want [I] and [R] once (%d)", w.entries, limit)
	}
}

// Distinct install sections that all need one large section are each
// followed, so one analysis shares a bound; past it the analysis stops
// with a bad-input error naming the limit.
func TestINFWorkBound(t *testing.T) {
	lower(t, &maxApplied, 20_000)
	tg := mustTarget(t, "10.0.22631", "workstation")
	big := addregBody("Big", 1000) // 2,000 lines
	sections := maxApplied/2000 + 10
	var b strings.Builder
	b.WriteString("[Version]\n[Manufacturer]\n%M%=A,NTamd64\n[Strings]\nM=m\n[A.NTamd64]\n")
	for i := 0; i < sections; i++ {
		fmt.Fprintf(&b, "d%d=I%d,PCI\\VEN_%d\n", i, i, i)
	}
	for i := 0; i < sections; i++ {
		fmt.Fprintf(&b, "[I%d]\nAddReg=Big\n", i)
	}
	b.WriteString(big)
	f := parseString(t, b.String())
	w := &work{}
	_, err := list(f, tg, "", nil, w)
	if err == nil || !strings.Contains(err.Error(), "more than "+strconv.Itoa(maxApplied)+" section entries") {
		t.Fatalf("err %v, want the limit of %d entries named", err, maxApplied)
	}
	if w.entries > maxApplied+entries(f, "Big")+1 {
		t.Errorf("%d entries processed past the limit of %d", w.entries, maxApplied)
	}
	// The same for one device: its donor search follows every install section.
	if _, err := Analyze(f, `PCI\VEN_1`, tg, "", nil); err == nil || !strings.Contains(err.Error(), "section entries") {
		t.Errorf("Analyze: err %v, want the limit named", err)
	}
	// Through Run: bad input (exit 2).
	dir := testutil.TempDir(t)
	p := filepath.Join(dir, "work.inf")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{File: p, OS: "10.0.22631", Product: "workstation", Arch: "amd64"}); !badinput.Is(err) {
		t.Errorf("Run: err %v, want bad input", err)
	}
}

// The work a large real INF takes is within the bound: Broadcom's bxnd.inf
// (549 KB) has 577 install sections each naming a dozen AddReg sections,
// 349,495 entries for a listing, a third of the former bound. This INF of
// the same shape, twice as many install sections naming about 1,200 entries
// each (1.4 million, past the former 1<<20), lists and reports a device.
func TestINFWorkOfALargeRealShape(t *testing.T) {
	// In parallel with the package's other parallel tests: a computation
	// alone, at the real bounds (the tests that lower them do not run in
	// parallel).
	t.Parallel()
	tg := mustTarget(t, "10.0.22631", "workstation")
	const sections, regs = 1200, 12
	var b strings.Builder
	b.WriteString("[Version]\n[Manufacturer]\n%M%=A,NTamd64\n[Strings]\nM=m\n[A.NTamd64]\n")
	for i := 0; i < sections; i++ {
		fmt.Fprintf(&b, "d%d=I%d,PCI\\VEN_14E4&DEV_%04X\n", i, i, i)
	}
	names := make([]string, regs)
	for r := range names {
		names[r] = fmt.Sprintf("R%d", r)
	}
	for i := 0; i < sections; i++ {
		fmt.Fprintf(&b, "[I%d]\nAddReg=%s\n", i, strings.Join(names, ","))
	}
	for _, n := range names {
		b.WriteString(addregBody(n, 10)) // 20 lines of 5 fields
	}
	f := parseString(t, b.String())
	w := &work{}
	l, err := list(f, tg, "", nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if w.entries <= 1<<20 || w.entries > MaxApplied {
		t.Errorf("%d entries processed, want more than the former bound of %d and at most %d", w.entries, 1<<20, MaxApplied)
	}
	if got := len(l.Manufacturers[0].Sections[0].Devices); got != sections {
		t.Errorf("%d devices listed, want %d", got, sections)
	}
	if _, err := Analyze(f, `PCI\VEN_14E4&DEV_0001`, tg, "", nil); err != nil {
		t.Errorf("Analyze: %v", err)
	}
}

// A note per bad line was kept however many lines there were (and each
// searched the notes before it): notes stop at MaxNotes, and a last note
// counts the rest.
func TestINFNotesBounded(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	const n = 5000
	var b strings.Builder
	b.WriteString("[Pre]\n")
	for i := 0; i < n; i++ {
		b.WriteString("k=\"open\n") // an unterminated quote: a parse note each
	}
	b.WriteString(hostileHead + "[I]\nAddReg=R\n[R]\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "HKR,,Bad%d,zz,1\n", i)
	}
	f := parseString(t, b.String())
	check := func(what string, notes []string) {
		t.Helper()
		if len(notes) != MaxNotes+1 || !strings.Contains(notes[MaxNotes], "more notes not kept") {
			t.Errorf("%s: %d notes, want %d and one counting the rest", what, len(notes), MaxNotes+1)
		}
	}
	check("parse", f.Notes)
	in, err := f.Resolve("I", tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("install", in.Notes)
	rep, err := Analyze(f, `PCI\VEN_1`, tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("device", rep.Notes)
	l, err := List(f, tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("listing", l.Notes)
}

// Values and enum choices are found through maps and deletions leave
// blanks; what a line sets, deletes and sets again is what it was before.
func TestINFValuesAndEnums(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	var b strings.Builder
	b.WriteString(hostileHead + "[I]\nAddReg=R\n[R]\n")
	b.WriteString("HKR,,A,,1\nHKR,,B,,2\nHKR,,a,4\nHKR,,C,,3\nHKR,,A,,5\n") // delete A, set it again: after C
	b.WriteString("HKR,,Foo,,7\nHKR,Ndi\\Params\\Foo,ParamDesc,,\"foo\"\n") // a value that becomes a keyword's
	const n = 3000
	for i := n - 1; i >= 0; i-- { // choices written from the highest down
		fmt.Fprintf(&b, "HKR,Ndi\\Params\\E\\Enum,%d,,\"c%d\"\n", i, i)
	}
	for i := 0; i < n; i += 2 { // delete the even ones
		fmt.Fprintf(&b, "HKR,Ndi\\Params\\E\\Enum,%d,4\n", i)
	}
	b.WriteString("HKR,Ndi\\Params\\E\\Enum,0,,\"zero again\"\n")
	f := parseString(t, b.String())
	in, err := f.Resolve("I", tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, v := range in.Values {
		vals = append(vals, v.Name+"="+v.Data)
	}
	if got := strings.Join(vals, " "); got != "B=2 C=3 A=5" {
		t.Errorf("values %q, want %q", got, "B=2 C=3 A=5")
	}
	if k := in.Keyword("Foo"); k == nil || k.Value == nil || k.Value.Data != "7" {
		t.Errorf("Foo = %+v, want its value 7 moved to the keyword", k)
	}
	e := in.Keyword("E")
	if e == nil || len(e.Values) != n/2+1 {
		t.Fatalf("E = %+v, want %d choices", e, n/2+1)
	}
	if e.Values[0] != (EnumValue{"0", "zero again"}) || e.Values[1] != (EnumValue{"1", "c1"}) || e.Values[n/2] != (EnumValue{strconv.Itoa(n - 1), "c" + strconv.Itoa(n-1)}) {
		t.Errorf("E's choices %v ... %v, want 0, 1, 3 ... %d in numeric order", e.Values[:3], e.Values[n/2], n-1)
	}
}

// Every section is found by its own name, whatever white space of
// Unicode's its name ends in: an ANSI file's 0xA0 is a no-break space,
// which the parser keeps in a name and strings.TrimSpace would cut.
func TestSectionFoundByItsOwnName(t *testing.T) {
	for _, in := range []string{
		"[String\xa0]\nM=m\n[I]\nNeeds=N0\n[N0]\n",
		"[A\u00a0]\nx=1\n[\u00a0B]\ny=2\n",
		"[C\u2003]\nz=3\n",
	} {
		f := parseString(t, in)
		if len(f.Sections) == 0 {
			t.Fatalf("%q: no sections", in)
		}
		for _, s := range f.Sections {
			if f.Section(s.Name) != s {
				t.Errorf("%q: section %q is not found by its own name", in, s.Name)
			}
		}
	}
}

// Files within MaxInput that cost far more than their size: many short
// entries (30 MiB of "a=b,c" took 5.4 GB to list), one line of millions
// of fields (12 GB), a long string named many times (a 1 MiB file asked
// for 5 GB), and many models lines. Each is refused naming its limit,
// with the work in proportion to the limit, not to what the file asks.
// The bounds are lowered (fewer entries than fields, unlike the real
// ones, so that each of the two is reached alone).
func TestINFSizeBounds(t *testing.T) {
	lower(t, &maxEntries, 1000)
	lower(t, &maxFields, 4096)
	lower(t, &maxListed, 300)
	lower(t, &maxExpanded, 1<<20)
	tg := mustTarget(t, "10.0.22631", "workstation")
	head := "[Version]\n[Manufacturer]\nX=M\n[M]\n"
	for _, c := range []struct {
		name, inf, want string
	}{
		{"entries", head + strings.Repeat("a=b,c\n", maxEntries+1), fmt.Sprintf("line %d: more than %d entries", maxEntries+4, maxEntries)},
		// one field past the bound (X=M in head is one): the bound is
		// exact here, as the line numbers make it for the entries
		{"fields of one line", head + "d=I" + strings.Repeat(",a", maxFields-1) + "\n", "line 5: more than"},
		{"fields of many lines", head + strings.Repeat("d=I"+strings.Repeat(",a", 99)+"\n", maxFields/100+1), fmt.Sprintf("%d fields in its sections", maxFields)},
	} {
		_, err := Parse(strings.NewReader(c.inf), "hostile.inf")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one with %q", c.name, err, c.want)
		}
	}
	parseString(t, head+"d=I"+strings.Repeat(",a", maxFields-2)+"\n") // at the bound
	parseString(t, head+strings.Repeat("a=b\n", maxEntries-1))
	// Models lines within the parse bounds, beyond what a listing shows
	// (a device and its two IDs, three a line); at the bound, listed.
	models := func(n int) *File { return parseString(t, head+strings.Repeat("d=I,PCI\\VEN_1,PCI\\CC_02\n", n)) }
	if _, err := List(models(maxListed/3+1), tg, "", nil); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("list more than %d devices and IDs (the limit was reached in [M])", maxListed)) {
		t.Errorf("models: err %v", err)
	}
	if _, err := List(models(maxListed/3), tg, "", nil); err != nil {
		t.Errorf("models at the bound: %v", err)
	}
	// A 64 KiB string named maxExpanded/64Ki+1 times in one line: the
	// substitution stops at the bound instead of producing every copy,
	// and the listing is refused.
	long := head + "d=I" + strings.Repeat(",%X%", int(maxExpanded/(64<<10))+1) + "\n[Strings]\nX=\"" + strings.Repeat("a", 64<<10) + "\"\n"
	f := parseString(t, long)
	if _, err := List(f, tg, "", nil); err != nil {
		t.Fatal(err)
	}
	if !f.Overexpanded() || f.expanded > maxExpanded+1 {
		t.Errorf("expanded %d bytes (overexpanded %v), want the bound %d", f.expanded, f.Overexpanded(), maxExpanded)
	}
	dir := testutil.TempDir(t)
	if err := os.WriteFile(filepath.Join(dir, "x.inf"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{File: filepath.Join(dir, "x.inf"), OS: "10.0.22631", Product: "workstation", Arch: "amd64"})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "tokens expand to more than 1 MiB") {
		t.Errorf("Run: err %v", err)
	}
}

// Each %strkey% was looked up by scanning its [Strings] section: 20,000
// strings named by 20,000 models lines took 5 s (quadratic). The section
// is indexed once; the first entry of a key is the one used, as before.
func TestINFStringsIndexed(t *testing.T) {
	const n = 20000
	var b strings.Builder
	b.WriteString("[Version]\n[Manufacturer]\nX=M\n[M]\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%%K%d%%=I,PCI\\VEN_%d\n", n-1, i)
	}
	b.WriteString("[Strings]\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d=\"device %d\"\n", i, i)
	}
	b.WriteString("K19999=\"a second entry of the key\"\n")
	f := parseString(t, b.String())
	l, err := List(f, mustTarget(t, "10.0.22631", "workstation"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := l.Manufacturers[0].Sections[0].Devices
	if len(ds) != n || ds[0].Description != "device 19999" || ds[n-1].Description != "device 19999" {
		t.Fatalf("%d devices, first %+v", len(ds), ds[0])
	}
	// the index is built once per section, not once per lookup
	if len(f.strs) != 1 || len(f.strs["strings"]) != n {
		t.Errorf("index %d sections, %d strings", len(f.strs), len(f.strs["strings"]))
	}
}

// An AddReg line's data is its fifth field alone unless its type is a
// list: Intel's NETwLv64.inf ends `Type, 0, "enum",` with a comma, which
// made the keyword's type "enum,". REG_MULTI_SZ and binary data keep every
// field; a REG_DWORD given as bytes is their number, low byte first.
func TestINFValueFields(t *testing.T) {
	tg := mustTarget(t, "10.0.22631", "workstation")
	f := parseString(t, hostileHead+`[I]
AddReg=R
[R]
HKR, Ndi\Params\WirelessMode, Type,    0, "enum",
HKR, Ndi\Params\WirelessMode, Default, 0x00000002, "34", "x" ; NOCLOBBER, a string
HKR, Ndi\Params\WirelessMode\Enum, "34", 0, "6. 802.11a/b/g",
HKR,, Expand, 0x00020000, "%%SystemRoot%%\a", b
HKR,, Multi,  0x00010000, "a", "b", ""
HKR,, Bin,    0x00000001, 01, 02
HKR,, Dword,  0x00010001, 7,
HKR,, Bytes,  0x00010001, 01, 02, 00, 00
HKR,, NotBytes, 0x00010001, 1, zz
HKR,, Empty,  0
`)
	in, err := f.Resolve("I", tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	k := in.Keyword("WirelessMode")
	if k == nil || k.Type != "enum" || k.Default != "34" || len(k.Values) != 1 || k.Values[0].Desc != "6. 802.11a/b/g" {
		t.Errorf("WirelessMode = %+v, want type enum, default 34, one choice", k)
	}
	want := map[string]string{"Expand": `%SystemRoot%\a`, "Multi": "a,b,", "Bin": "01,02", "Dword": "7", "Bytes": "513", "NotBytes": "1,zz", "Empty": ""}
	got := map[string]string{}
	for _, v := range in.Values {
		got[v.Name] = v.Data
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
}
