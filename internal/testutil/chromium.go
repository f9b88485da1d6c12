package testutil

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Chromium is a headless Chromium for a test: its flags (a fresh profile,
// no background networking, every request through a recording proxy
// that answers none, so nothing is ever fetched) and what it requested.
type Chromium struct {
	Path string
	// Args are the flags before the page's own (a window size) and URL.
	Args []string
	seen func() []string
}

// ChromiumOwnHosts are endpoints Debian's chromium contacts at start-up
// even with background networking, component updates and sync disabled
// (component updates, account sign-in): the browser's, never a page's.
var ChromiumOwnHosts = []string{"update.googleapis.com", "accounts.google.com"}

// NewChromium finds chromium (skipping, or failing under
// LATLAB_REQUIRE_ALL=1, when it is missing) and prepares its flags.
// bypass is Chromium's --proxy-bypass-list: "<-loopback>" sends loopback
// through the proxy too; "127.0.0.1:PORT" lets a test's own server answer.
func NewChromium(t testing.TB, bypass string) *Chromium {
	t.Helper()
	path := NeedTool(t, "chromium")
	proxy, seen := recordingProxy(t)
	return &Chromium{Path: path, seen: seen, Args: []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir=" + TempDir(t),
		"--disable-features=NetworkTimeServiceQuerying", // the browser's clock check, not the page's
		"--proxy-server=http://" + proxy, "--proxy-bypass-list=" + bypass,
		"--enable-logging=stderr", "--v=0"}}
}

// Requests are the requests the proxy saw, but the browser's own.
func (c *Chromium) Requests() []string {
	time.Sleep(200 * time.Millisecond) // let the proxy record the last connections
	var out []string
	for _, req := range c.seen() {
		own := false
		for _, h := range ChromiumOwnHosts {
			own = own || strings.Contains(req, " "+h+":") || strings.Contains(req, "//"+h+"/")
		}
		if !own {
			out = append(out, req)
		}
	}
	return out
}

// ConsoleLines are the console messages (errors, CSP violations) in
// Chromium's stderr log.
func ConsoleLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

// recordingProxy accepts connections on loopback and records the first line
// of each request (GET http://host/... or CONNECT host:443); it answers
// none.
func recordingProxy(t testing.TB) (addr string, seen func() []string) {
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
				if strings.TrimSpace(line) == "" {
					// A connection that sent nothing requested nothing:
					// Chromium opens spare connections to its proxy
					// ahead of need, and one closed unused made a
					// report test see a request of no text.
					return
				}
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
