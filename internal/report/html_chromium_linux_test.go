package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

type chromiumLoad struct {
	DOM      string
	Console  []string // console messages: errors, CSP violations
	Requests []string // network requests made because of the page
}

// loadInChromium opens a local file in headless Chromium with every network
// request sent to a recording proxy, and returns the rendered DOM, the
// console messages and the requests; extra are more flags (a window size).
func loadInChromium(t *testing.T, chromium, page string, extra ...string) chromiumLoad {
	t.Helper()
	c := testutil.NewChromium(t, "<-loopback>")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(append(append(c.Args, "--dump-dom"), extra...), "file://"+page)
	cmd := exec.CommandContext(ctx, chromium, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	return chromiumLoad{DOM: out.String(), Console: testutil.ConsoleLines(errb.String()), Requests: c.Requests()}
}

func TestReportInChromium(t *testing.T) {
	// In parallel with the package's other parallel tests: it mostly
	// waits on a Chromium of its own, with a profile of its own.
	t.Parallel()
	chromium := testutil.NeedTool(t, "chromium")
	dir := testutil.TempDir(t)

	// Control: a page that loads an image and a style sheet from the network
	// and has a script error. The checks must see all three.
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.com/a.css"></head>`+
		`<body><img src="http://198.51.100.7/x.png"><script>noSuchFunction()</script></body></html>`), 0o644)
	c := loadInChromium(t, chromium, bad)
	if len(c.Console) == 0 || len(c.Requests) < 2 {
		t.Fatalf("the checks do not detect a bad page: console %q, requests %q", c.Console, c.Requests)
	}

	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := testReport(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(page, b.Bytes(), 0o644)
	r := loadInChromium(t, chromium, page)
	if len(r.Console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(r.Console, "\n"))
	}
	if len(r.Requests) > 0 {
		t.Errorf("network requests:\n%s", strings.Join(r.Requests, "\n"))
	}
	if strings.Count(r.DOM, "<svg") != 8 || !strings.Contains(r.DOM, "Comparison of 2 sleep results") {
		t.Errorf("the page did not render its plots and sections (%d svg)", strings.Count(r.DOM, "<svg"))
	}
}
