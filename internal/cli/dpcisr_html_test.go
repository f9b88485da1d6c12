package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// dpcisr FILE --html writes the page for a watch document (with the
// watch's verdict and the traced host) and for an xperf report.
func TestDPCISRHTML(t *testing.T) {
	dir := testutil.TempDir(t)
	for _, c := range []struct {
		file string
		args []string
		want []string
		not  []string
	}{
		{"watch-synthetic.json", nil, []string{
			"verdict: likely drop-outs: ndis.sys ran a DPC for 2500 µs",
			"<tr><td>ndis.sys</td><td>401</td><td>3900 µs</td><td>2500 µs</td>",
			"Debian GNU/Linux 12 (bookworm)", // the document's host, not this one's
			"synthetic: the tests&#39; recorder",
		}, nil},
		// The verdict judges every module: not shown for one of them.
		{"watch-synthetic.json", []string{"--module", "usbport.sys"}, []string{
			"only module usbport.sys", "<tr><td>USBPORT.SYS</td><td>400</td><td>400 µs</td><td>1.0 µs</td>",
		}, []string{"verdict:", "<td>ndis.sys</td>"}},
		{"xperf-dpcisr-written-layout.txt", nil, []string{
			"an xperf DPC/ISR report", "<tr><td>ndis.sys</td><td>69835</td><td>224.5 ms</td><td>in 64-128 µs</td>",
		}, []string{"verdict:"}},
	} {
		page := filepath.Join(dir, "p.html")
		os.Remove(page)
		args := append([]string{"dpcisr", dpcisrData + c.file, "--html", page}, c.args...)
		code, out, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "latlab dpcisr: ") {
			t.Fatalf("%q: exit %d %s\n%s", args, code, errs, out)
		}
		html := readFile(t, page)
		if !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, "<svg") {
			t.Errorf("%q: not a page with a plot", args)
		}
		for _, w := range c.want {
			if !strings.Contains(html, w) {
				t.Errorf("%q: the page lacks %q", args, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(html, w) {
				t.Errorf("%q: the page has %q", args, w)
			}
		}
	}
}

// --html keeps an existing file without --force, like every output flag,
// and the JSON on stdout stays JSON.
func TestDPCISRHTMLForce(t *testing.T) {
	dir := testutil.TempDir(t)
	page := filepath.Join(dir, "p.html")
	if err := os.WriteFile(page, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := dpcisrData + "xperf-dpcisr-im-off.txt"
	code, _, errs := runCLI(t, "dpcisr", in, "--html", page)
	testutil.CheckBadExit(t, "existing --html", code, errs, page+" exists: add --force to overwrite it, or give --html another file")
	if readFile(t, page) != "keep" {
		t.Fatalf("the existing page was overwritten")
	}
	code, out, errs := runCLI(t, "dpcisr", in, "--html", page, "--force", "--json")
	if code != 0 || !strings.HasPrefix(out, "{") || !strings.HasPrefix(readFile(t, page), "<!DOCTYPE html>") {
		t.Fatalf("exit %d %s", code, errs)
	}
	// Bad input is refused before the page is created.
	bad := filepath.Join(dir, "bad.html")
	code, _, errs = runCLI(t, "dpcisr", in, "--html", bad, "--module", "nosuch.sys")
	testutil.CheckBadExit(t, "--module nosuch.sys", code, errs, `no module "nosuch.sys"`)
	if _, err := os.Stat(bad); err == nil {
		t.Error("a page was created for bad input")
	}
}

// dpc watch takes --html like -o: named, kept without --force, and
// checked before any tracing starts.
func TestDPCWatchHTMLFlag(t *testing.T) {
	dir := testutil.TempDir(t)
	code, _, errs := runCLI(t, "dpc", "watch", "--html")
	testutil.CheckBadExit(t, "--html without a file", code, errs, "--html")
	page := filepath.Join(dir, "p.html")
	if err := os.WriteFile(page, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "dpc", "watch", "--duration", "1s", "--html", page)
	testutil.CheckBadExit(t, "existing --html", code, errs, page+" exists: add --force")
	if readFile(t, page) != "keep" {
		t.Errorf("existing --html: the page was overwritten")
	}
	missing := filepath.Join(dir, "no-such-dir", "p.html")
	code, _, errs = runCLI(t, "dpc", "watch", "--duration", "1s", "--html", missing)
	testutil.CheckBadExit(t, "unwritable --html", code, errs, "cannot write "+missing)
}
