package report

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// Debian's chromium contacts these two endpoints of its own (component
// updates, account sign-in) at start-up even with background networking,
// component updates and sync disabled. They are the browser's, never a
// page's; every other request seen by the proxy fails the test.
var browserOwnHosts = []string{"update.googleapis.com", "accounts.google.com"}

// recordingProxy accepts connections on loopback and records the first line
// of each request (GET http://host/... or CONNECT host:443); it answers
// none, so nothing is ever fetched.
func recordingProxy(t *testing.T) (addr string, seen func() []string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				mu.Lock()
				lines = append(lines, strings.TrimSpace(line))
				mu.Unlock()
			}(c)
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

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
	proxy, seen := recordingProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir=" + testutil.TempDir(t),
		"--disable-features=NetworkTimeServiceQuerying", // the browser's clock check, not the page's
		"--proxy-server=http://" + proxy, "--proxy-bypass-list=<-loopback>",
		"--enable-logging=stderr", "--v=0", "--dump-dom"}
	args = append(append(args, extra...), "file://"+page)
	cmd := exec.CommandContext(ctx, chromium, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	var r chromiumLoad
	r.DOM = out.String()
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			r.Console = append(r.Console, l)
		}
	}
	time.Sleep(200 * time.Millisecond) // let the proxy record the last connections
	for _, req := range seen() {
		own := false
		for _, h := range browserOwnHosts {
			own = own || strings.Contains(req, " "+h+":") || strings.Contains(req, "//"+h+"/")
		}
		if !own {
			r.Requests = append(r.Requests, req)
		}
	}
	return r
}

func TestReportInChromium(t *testing.T) {
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
