package inf

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/textdec"
)

func runOpts(file, device string) Options {
	return Options{File: "testdata/" + file, Device: device, OS: "10.0.22631", Product: "workstation", Arch: "amd64"}
}

// Run lists without a device and analyses one with it; the .reg file
// comes only when asked for.
func TestRun(t *testing.T) {
	res, err := Run(context.Background(), runOpts("rtl-like-utf16.inf", ""))
	if err != nil {
		t.Fatal(err)
	}
	if res.Device != nil || res.Listing == nil || res.Reg != nil || res.File.Encoding != "utf-16le" {
		t.Fatalf("listing: %+v", res)
	}
	if doc := res.Document(host.Facts{}); doc.Kind != KindList.Name() {
		t.Errorf("listing document of kind %s", doc.Kind)
	}

	o := runOpts("i225-like.inf", `PCI\VEN_8086&DEV_15F3`)
	o.Reg = true
	res, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Listing != nil || res.Device == nil || res.Device.InstallSection != "I225V.10.0.1.NTamd64" {
		t.Fatalf("device: %+v", res)
	}
	if doc := res.Document(host.Facts{}); doc.Kind != KindDevice.Name() {
		t.Errorf("device document of kind %s", doc.Kind)
	}
	reg, _, err := textdec.Decode(res.Reg)
	if err != nil || !strings.HasPrefix(string(res.Reg), "\xff\xfe") || !strings.Contains(reg, `\NNNN\Ndi\Params\*MaxRssProcessors]`) {
		t.Errorf(".reg: %v\n%s", err, reg)
	}
}

// Include= files are read from the INF's folder; one that is missing is
// a note, not an error.
func TestRunIncludeNextToTheFile(t *testing.T) {
	dir := testutil.TempDir(t)
	b, err := os.ReadFile("testdata/rtl-like-utf16.inf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/rtl-like-utf16.inf", b, 0o644); err != nil {
		t.Fatal(err)
	}
	o := runOpts("", `PCI\VEN_10EC&DEV_8125`)
	o.File, o.OS = dir+"/rtl-like-utf16.inf", "10.0.19045"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Device.Notes, "\n")
	if !strings.Contains(notes, "Include=common-ndi.inf not analysed: not found next to rtl-like-utf16.inf") {
		t.Errorf("notes: %s", notes)
	}
}

// Include= names system-supplied INFs: not next to the INF, they are
// read from the include directories in order, and a miss names them all.
func TestRunIncludeFromIncludeDirs(t *testing.T) {
	pkg, sys, other := testutil.TempDir(t), testutil.TempDir(t), testutil.TempDir(t)
	for _, c := range []struct{ from, to string }{
		{"testdata/rtl-like-utf16.inf", pkg + "/rtl-like-utf16.inf"},
		{"testdata/common-ndi.inf", sys + "/common-ndi.inf"},
	} {
		b, err := os.ReadFile(c.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dirs ...string) string {
		t.Helper()
		o := runOpts("", `PCI\VEN_10EC&DEV_8125`)
		o.File, o.OS, o.IncludeDirs = pkg+"/rtl-like-utf16.inf", "10.0.19045", dirs
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(res.Device.Notes, "\n")
	}
	if notes := run(other, sys); strings.Contains(notes, "common-ndi.inf not analysed") {
		t.Errorf("common-ndi.inf in the second include directory was not read:\n%s", notes)
	}
	if notes := run(other); !strings.Contains(notes, "Include=common-ndi.inf not analysed: not found next to rtl-like-utf16.inf or in "+other) {
		t.Errorf("notes: %s", notes)
	}
}

// Every kind of bad input is a badinput.Error naming what was wrong.
func TestRunBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	if err := os.WriteFile(dir+"/empty.inf", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// An INF cut short after [Manufacturer]: its models sections are
	// gone, and a listing of no device was an answer with exit 0.
	full, err := os.ReadFile("testdata/e1r63-like.inf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/cut.inf", full[:1024], 0o644); err != nil {
		t.Fatal(err)
	}
	emptyModels := "[Version]\nSignature=\"$WINDOWS NT$\"\n[Manufacturer]\nIntel=Intel,NTamd64\n[Intel.NTamd64]\n; nothing\n"
	if err := os.WriteFile(dir+"/nodevice.inf", []byte(emptyModels), 0o644); err != nil {
		t.Fatal(err)
	}
	// DP_LAN's feand5.inf (Myson): an undecorated models section that a
	// "\" continuation on the line above makes part of that line, so the
	// INF has no [Myson]; the message named no section ("names: ;").
	swallowed := "[Version]\nSignature=\"$WINDOWS NT$\"\n[Manufacturer]\n%Myson% = Myson\n[ControlFlags]\n" +
		"ExcludeFromSelect = PCI\\VEN_1516&DEV_0800 , \\\n[Myson]\n%D% = MTD800.ndi, PCI\\VEN_1516&DEV_0800\n"
	if err := os.WriteFile(dir+"/swallowed.inf", []byte(swallowed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"os", func(o *Options) { o.OS = "ten" }, "invalid --os/--product/--arch"},
		{"product", func(o *Options) { o.Product = "home" }, `product "home": accepted workstation, server, dc`},
		{"reg without device", func(o *Options) { o.Device, o.Reg = "", true }, "--reg-out needs --device"},
		{"missing file", func(o *Options) { o.File = dir + "/absent.inf" }, "cannot read " + dir + "/absent.inf: "},
		{"empty file", func(o *Options) { o.File = dir + "/empty.inf" }, "empty.inf: line 1: empty file"},
		{"language", func(o *Options) { o.Lang = "040c" }, "has no [Strings.040c]; its languages: 0407"},
		{"device", func(o *Options) { o.Device = `PCI\VEN_1234&DEV_0001` }, `device "PCI\\VEN_1234&DEV_0001" is in no models section`},
		{"nothing missing", func(o *Options) { o.Product, o.Reg = "server", true }, "no RSS keyword that another install section of this INF installs is missing"},
		{"loop", func(o *Options) { o.File, o.Device = "testdata/loop.inf", "" }, "loop.inf: line 15: Needs loop"},
		{"cut short", func(o *Options) { o.File, o.Device = dir+"/cut.inf", "" }, "no device in the models sections [Manufacturer] names: the file has none of [Intel.NTamd64.6.2], [Intel.NTamd64.6.2.1] (cut short?)"},
		{"empty models section", func(o *Options) { o.File, o.Device = dir+"/nodevice.inf", "" }, "[Intel.NTamd64] lists no device"},
		{"no undecorated section", func(o *Options) { o.File, o.Device = dir+"/swallowed.inf", "" }, "names: the file has none of [Myson] (cut short?);"},
		{"no undecorated section, x86", func(o *Options) { o.File, o.Device, o.Arch, o.OS = dir+"/swallowed.inf", "", "x86", "5.1" }, "names: the file has none of [Myson] (cut short?);"},
	} {
		o := runOpts("i225-like.inf", `PCI\VEN_8086&DEV_15F3`)
		c.edit(&o)
		res, err := Run(context.Background(), o)
		if res != nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an input error with %q", c.name, err, c.want)
		}
	}
	// The ambiguous device keeps its type for callers that list the lines.
	_, err = Run(context.Background(), runOpts("e2f-like.inf", `PCI\VEN_8086&DEV_15F3`))
	var ae *AmbiguousError
	if !badinput.Is(err) || !errors.As(err, &ae) {
		t.Errorf("ambiguous device: %T %v", err, err)
	}
}
