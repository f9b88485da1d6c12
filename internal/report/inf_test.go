package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/inf"
	"github.com/latlab/latlab/internal/testutil"
)

// Wrapped INF text keeps to 80 columns, breaking only at spaces or after
// a list item's comma; a word longer than the line stays whole.
func TestINFWrap(t *testing.T) {
	long := strings.Repeat("x", 90)
	for _, c := range []struct {
		name, got, want string
	}{
		{"short", infWrapText("", "RSS keywords installed: *RSS"), "RSS keywords installed: *RSS\n"},
		{"continued", infWrapText("", strings.Repeat("word ", 20)),
			strings.TrimSpace(strings.Repeat("word ", 16)) + "\n  " + strings.TrimSpace(strings.Repeat("word ", 4)) + "\n"},
		{"indented", infWrapText("    ", "a "+long), "    a\n    " + long + "\n"},
		{"empty list", infWrapList("  ", nil), "  none\n"},
		{"list", infWrapList("    ", []string{strings.Repeat("a", 40), strings.Repeat("b", 36), "c"}),
			"    " + strings.Repeat("a", 40) + ",\n    " + strings.Repeat("b", 36) + ", c\n"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, c.got, c.want)
		}
	}
}

// The text of inf, for a device with the .reg line written to a pipe (no
// width: inf keeps to 80 columns all the same) and for a listing at 80
// columns (COLUMNS=80), against testdata/inf-*.golden:
// what the command printed for these fixtures (../inf/testdata/README.md)
// before the text moved into this package.
func TestINFTextGolden(t *testing.T) {
	const data = "../inf/testdata/"
	for _, c := range []struct {
		golden, file, device, reg string
		cols                      int
		product                   string // "": workstation
	}{
		{"inf-device-i225", "i225-like.inf", `PCI\VEN_8086&DEV_15F3`, "add-rss.reg", 0, ""},
		{"inf-list-rtl-80", "rtl-like-utf16.inf", "", "", 80, ""},
		// a plain NT decoration, with nothing to describe but the reason
		{"inf-list-el2000x-80", "el2000x-like.inf", "", "", 80, ""},
		// the I211 is in the client models sections only: the answer
		// (not installed) comes first, not in a note at the end
		{"inf-device-not-installed", "e1r68-like.inf", `PCI\VEN_8086&DEV_1539&SUBSYS_00008086&REV_03`, "", 0, "server"},
	} {
		product := c.product
		if product == "" {
			product = "workstation"
		}
		res, err := inf.Run(context.Background(), inf.Options{File: data + c.file, Device: c.device,
			OS: "10.0.22631", Product: product, Arch: "amd64", Reg: c.reg != ""})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w := WithWidth(&b, c.cols)
		INF(w, res)
		if c.reg != "" {
			INFRegWritten(w, c.reg, res.Device)
		}
		goldie.New(t).Assert(t, c.golden, b.Bytes())
	}
}

// infTestdata are the INFs of ../inf/testdata (README.md there gives
// each one's provenance): the written ones and those as published.
// NetKVM's INF is its two source files joined, as its build joins them.
func infTestdata(t *testing.T) []string {
	t.Helper()
	const data = "../inf/testdata/"
	var files []string
	for _, pat := range []string{"*.inf", "*/*.inf", "*/*.inx"} {
		m, err := filepath.Glob(data + pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var netkvm []byte
	for _, n := range []string{"virtio-win/netkvm-base.txt", "virtio-win/netkvm-add-uso.txt"} {
		b, err := os.ReadFile(data + n)
		if err != nil {
			t.Fatal(err)
		}
		netkvm = append(netkvm, b...)
	}
	p := filepath.Join(testutil.TempDir(t), "netkvm.inx")
	if err := os.WriteFile(p, netkvm, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(files) < 9 {
		t.Fatalf("only %d INFs found in %s", len(files), data)
	}
	return append(files, p)
}

// checkINFWidth fails on a line of out wider than 80 columns.
func checkINFWidth(t *testing.T, what string, out []byte) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if n := text.StringWidthWithoutEscSequences(l); n > 80 {
			t.Errorf("%s: line %d is %d columns wide, want at most 80:\n%s", what, i+1, n, l)
		}
	}
}

// Every line of inf's text fits 80 columns, written to a pipe (no width)
// or to a terminal of 80 columns or more: the listing of every INF in
// ../inf/testdata, every device it lists on client and server Windows,
// and the golden outputs. (Real vendor INFs, whose keyword tables were
// 250 columns wide, are measured in docs/commands/inf.md.)
func TestINFTextFits80Columns(t *testing.T) {
	for _, file := range infTestdata(t) {
		name := filepath.Base(file)
		for _, product := range []string{"workstation", "server"} {
			o := inf.Options{File: file, OS: "10.0.22631", Product: product, Arch: "amd64"}
			res, err := inf.Run(context.Background(), o)
			if err != nil {
				// loop.inf: refused, an error line, not this text.
				t.Logf("%s: %v", name, err)
				continue
			}
			devices := []string{""}
			for _, m := range res.Listing.Manufacturers {
				for _, s := range m.Sections {
					for _, d := range s.Devices {
						devices = append(devices, d.HardwareIDs...)
					}
				}
			}
			for _, dev := range slices.Compact(slices.Sorted(slices.Values(devices))) {
				o.Device = dev
				res, err := inf.Run(context.Background(), o)
				if err != nil {
					continue // an ID of another decoration or an ambiguous one
				}
				for _, cols := range []int{0, 80, 120} {
					var b bytes.Buffer
					w := WrapLines(WithWidth(&b, cols))
					INF(w, res)
					if res.Device != nil && len(res.Device.MissingRSS) > 0 {
						INFRegWritten(w, "add-rss.reg", res.Device)
					}
					if err := w.Flush(); err != nil {
						t.Fatal(err)
					}
					checkINFWidth(t, fmt.Sprintf("%s %s %q at %d columns", name, product, dev, cols), b.Bytes())
				}
			}
		}
	}
	goldens, err := filepath.Glob("testdata/inf-*.golden")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden: %v", err)
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		checkINFWidth(t, g, b)
	}
}

// infListing writes src to a file named name and returns the text of
// latlab inf on it (for device when not empty), for a Windows 11 amd64
// workstation.
func infListing(t *testing.T, name, src, device string) string {
	t.Helper()
	p := filepath.Join(testutil.TempDir(t), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := inf.Run(context.Background(), inf.Options{File: p, Device: device, OS: "10.0.22631", Product: "workstation", Arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	INF(&b, res)
	return b.String()
}

// IDs and install sections too long to stand side by side within 80
// columns (Cirrus Logic's CL_Audio.inf: 59-character HDAUDIO IDs and
// 40-character install sections) are listed one under the other, each
// whole, and so is an install section in the decorations of a device.
func TestINFTextLongIDs(t *testing.T) {
	const id = `HDAUDIO\FUNC_01&VEN_1013&DEV_4213&SUBSYS_10280553&REV_1001`
	const inst = "HDAudio.Cirrus_CONF_MLK_5354_4213"
	src := "[Version]\nSignature=\"$WINDOWS NT$\"\n[Manufacturer]\nCirrus=Models,ntamd64.6.1\n" +
		"[Models.ntamd64.6.1]\nCodec=" + inst + ", " + id + "\n" +
		"[" + inst + ".ntamd64]\nAddReg=Codec.reg\n[Codec.reg]\nHKR,,Codec,,\"1\"\n"
	for _, dev := range []string{"", id} {
		out := infListing(t, "long.inf", src, dev)
		checkINFWidth(t, "long IDs "+dev, []byte(out))
		want := []string{inst + ".ntamd64"}
		if dev == "" {
			want = append(want, "    "+id+"  6\n", "      -> "+inst+".ntamd64\n")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%q lacks %q:\n%s", dev, w, out)
			}
		}
	}
}

// A models line whose hardware ID field is empty lists only compatible
// IDs: the listing shows no hardware ID for it, and marks each of its IDs
// a compatible ID, the first as well.
func TestINFListingLineWithoutHardwareID(t *testing.T) {
	src := "[Manufacturer]\nM = M, NTamd64\n[M.NTamd64]\n" +
		"c = Compat, , PCI\\VEN_1AF4&DEV_1000&SUBSYS_00015853, PCI\\VEN_1AF4&DEV_1000\n" +
		"h = Hw, PCI\\VEN_1AF4&DEV_1001, PCI\\VEN_1AF4&DEV_1002\n[Compat]\n[Hw]\n"
	out := infListing(t, "compat.inf", src, "")
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (strings.HasPrefix(f[0], "PCI") || f[0] == "(none)") {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	want := []string{
		"(none) Compat 4",
		`PCI\VEN_1AF4&DEV_1000&SUBSYS_00015853 (compatible ID) 4`,
		`PCI\VEN_1AF4&DEV_1000 (compatible ID) 4`,
		`PCI\VEN_1AF4&DEV_1001 Hw 5`,
		`PCI\VEN_1AF4&DEV_1002 (compatible ID) 5`,
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q:\n%s", rows, want, out)
	}
}

// An enum of many values (bcmwl63.inf's Country) shows the first ones and
// its default, and counts the rest; a short one shows every value.
func TestINFValues(t *testing.T) {
	k := inf.Keyword{Default: "15"}
	for i := range 20 {
		k.Values = append(k.Values, inf.EnumValue{Value: fmt.Sprint(i), Desc: "v"})
	}
	got := strings.Join(infValues(k), ", ")
	want := "0=v, 1=v, 2=v, 3=v, 4=v, 5=v, 6=v, 7=v, 8=v, 9=v, 10=v, 15=v, and 8 more (--json)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	k.Values = k.Values[:infMaxValues]
	if got := infValues(k); len(got) != infMaxValues || got[infMaxValues-1] != "11=v" {
		t.Errorf("%d values: %q", infMaxValues, got)
	}
}

// An enum keyword's value ("2=2 Queues", "1=Tx Enabled") stays whole on a
// line of the keyword table where it fits the values column: for every
// device of the INFs in ../inf/testdata at 80 and 60 columns, each value
// no wider than the column's narrowest (12) is found whole on a line.
func TestINFValuesStayWhole(t *testing.T) {
	for _, file := range infTestdata(t) {
		o := inf.Options{File: file, OS: "10.0.22631", Product: "workstation", Arch: "amd64"}
		res, err := inf.Run(context.Background(), o)
		if err != nil {
			continue // loop.inf
		}
		var devices []string
		for _, m := range res.Listing.Manufacturers {
			for _, s := range m.Sections {
				for _, d := range s.Devices {
					devices = append(devices, d.HardwareIDs...)
				}
			}
		}
		for _, dev := range slices.Compact(slices.Sorted(slices.Values(devices))) {
			o.Device = dev
			res, err := inf.Run(context.Background(), o)
			if err != nil || res.Device == nil {
				continue
			}
			for _, cols := range []int{80, 60} {
				var b bytes.Buffer
				INF(WithWidth(&b, cols), res)
				lines := strings.Split(b.String(), "\n")
				for _, k := range res.Device.Keywords {
					for _, v := range infValues(k) {
						v = strings.Join(strings.Fields(v), " ")
						if text.StringWidthWithoutEscSequences(v)+1 > 12 || !strings.Contains(v, " ") {
							continue // a comma follows all but the last
						}
						if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, v) }) {
							t.Errorf("%s %s at %d columns: %s's value %q cut:\n%s", filepath.Base(file), dev, cols, k.Name, v, b.String())
						}
					}
				}
			}
		}
	}
}

// The lines that outrank a match: the parts they need once each, three
// lines and a count of the rest.
func TestINFOutranked(t *testing.T) {
	m := &inf.Match{}
	for i, id := range []string{`PCI\VEN_14E4&DEV_1677&SUBSYS_01AD1028&REV_02`, `PCI\VEN_14E4&DEV_1677&SUBSYS_01AD1028`, `PCI\VEN_14E4&DEV_1677&SUBSYS_01AE1028`, `PCI\VEN_14E4&DEV_1677&REV_02`} {
		needs := []string{"SUBSYS"}
		switch {
		case i == 0:
			needs = []string{"SUBSYS", "REV"}
		case i == 3:
			needs = []string{"REV"}
		}
		m.OutrankedBy = append(m.OutrankedBy, inf.Outranking{Line: 10 + i, INFID: id, Rank: min(i, 2), Needs: needs})
	}
	var b bytes.Buffer
	infOutranked(&b, m)
	want := `the ID given lacks SUBSYS and REV: on a device whose full ID has the SUBSYS and
  REV these lines name, Windows ranks them above the matched line, with the same
  install section:
  line 10 PCI\VEN_14E4&DEV_1677&SUBSYS_01AD1028&REV_02 (rank 0x0000)
  line 11 PCI\VEN_14E4&DEV_1677&SUBSYS_01AD1028 (rank 0x0001)
  line 12 PCI\VEN_14E4&DEV_1677&SUBSYS_01AE1028 (rank 0x0002)
  and 1 more (--json)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	infOutranked(&b, &inf.Match{})
	if b.Len() != 0 {
		t.Errorf("nothing outranks: %q", b.String())
	}
}

// Each models section's head says what its decoration means, then whether
// it is used, with one separator between them and none where a decoration
// says nothing beyond the reason (a plain NT: no architecture, no
// version), as el2000x.inf's [3COM.NT] printed "[3COM.NT] ; not used".
func TestINFListingSectionHeads(t *testing.T) {
	for _, c := range []struct {
		os, arch string
		want     []string
	}{
		{"10.0.22631", "amd64", []string{
			"[LAB] undecorated; not used: an undecorated models section is used only on x86; other architectures need an NT<arch> decoration",
			"[LAB.NT] not used: NT without an architecture is x86-only; amd64 needs NTamd64",
			"[LAB.NT.5.1] Windows 5.1+; not used: NT without an architecture is x86-only; amd64 needs NTamd64",
		}},
		{"5.0.2195", "x86", []string{
			"[LAB] undecorated; applies, but a closer match wins",
			"=> [LAB.NT] used on this Windows",
			"[LAB.NT.5.1] Windows 5.1+; not used: needs Windows 5.1 or later",
		}},
	} {
		res, err := inf.Run(context.Background(), inf.Options{File: "../inf/testdata/el2000x-like.inf", OS: c.os, Product: "workstation", Arch: c.arch})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		INF(&b, res)
		var heads []string
		inHead := false
		for _, l := range strings.Split(b.String(), "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) > 0 && (strings.HasPrefix(f[0], "[") || f[0] == "=>"):
				heads, inHead = append(heads, strings.Join(f, " ")), true
			case inHead && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
				heads[len(heads)-1] += " " + strings.Join(f, " ") // a wrapped head goes on
			default:
				inHead = false
			}
		}
		if !slices.Equal(heads, c.want) {
			t.Errorf("%s %s: heads\n%q\nwant\n%q", c.os, c.arch, heads, c.want)
		}
	}
}

// Control characters in section names are printed escaped, in the
// section heads, the install-section column and the notes: an INF cannot
// move the cursor or rewrite a line on the terminal. SetupAPI takes a CR
// or a tab inside a name into it (Wine's dlls/setupapi/tests/parser.c
// reads "[Test\r\b\tSection]" on Windows), and reads a NUL as a space.
func TestINFListingEscapesNames(t *testing.T) {
	src := "[Manufacturer]\nM = M\rN, NTamd64\n[M\rN.NTamd64]\n" +
		"d = I\t\x00J, PCI\\VEN_1AF4&DEV_1000\n[I\t\x00J]\n[\x1b[2J\b]\n"
	out := infListing(t, "ctl.inf", src, "")
	for _, want := range []string{`=> [M\x0dN.NTamd64]`, `I\x09 J`, "a NUL character (0x00) is read as a space"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\r\b\x00\t") {
		t.Errorf("control characters printed:\n%q", out)
	}
}
