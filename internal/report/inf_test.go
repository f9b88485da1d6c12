package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/inf"
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

// The text of inf, for a device with the .reg line at full width and for
// a listing at 80 columns (COLUMNS=80), against testdata/inf-*.golden:
// what the command printed for these fixtures (../inf/testdata/README.md)
// before the text moved into this package.
func TestINFTextGolden(t *testing.T) {
	const data = "../inf/testdata/"
	for _, c := range []struct {
		golden, file, device, reg string
		cols                      int
	}{
		{"inf-device-i225", "i225-like.inf", `PCI\VEN_8086&DEV_15F3`, "add-rss.reg", 0},
		{"inf-list-rtl-80", "rtl-like-utf16.inf", "", "", 80},
	} {
		res, err := inf.Run(context.Background(), inf.Options{File: data + c.file, Device: c.device,
			OS: "10.0.22631", Product: "workstation", Arch: "amd64", Reg: c.reg != ""})
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
