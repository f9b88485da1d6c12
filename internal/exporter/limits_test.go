package exporter

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/latlab/latlab/internal/testutil"
)

func writeWebConfig(t *testing.T, dir, conf string) string {
	t.Helper()
	p := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(p, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each wrong password cost a bcrypt check (57 ms of CPU), unlimited. With
// users and no rate_limit of its own, the configuration gets
// exporter-toolkit's limiter: past the burst, requests get 429 before any
// password is checked.
func TestBasicAuthIsRateLimited(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	o := fastOptions()
	o.WebConfig = writeWebConfig(t, testutil.TempDir(t), "basic_auth_users:\n  prometheus: "+string(hash)+"\n")
	addr, _ := started(t, o)
	client := &http.Client{Timeout: 30 * time.Second}
	codes := map[int]int{}
	for i := range 3 * authRateBurst {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.SetBasicAuth("prometheus", "wrong"+strings.Repeat("x", i))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	if codes[http.StatusTooManyRequests] == 0 || codes[http.StatusOK] != 0 {
		t.Fatalf("%d wrong passwords: %v, want 429s past the burst", 3*authRateBurst, codes)
	}
}

// The copy with the limiter keeps the configuration's other settings, and
// its relative file names still name the files beside the original.
func TestEffectiveWebConfig(t *testing.T) {
	dir, out := testutil.TempDir(t), testutil.TempDir(t)
	// An absolute key path on this OS (C:\... on Windows, /... here).
	absKey := filepath.Join(out, "k.pem")
	for _, tc := range []struct {
		name, conf string
		copied     bool
	}{
		{"no users", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n", false},
		{"its own limit", "basic_auth_users:\n  a: x\nrate_limit:\n  interval: 1s\n  burst: 3\n", false},
		{"users", "tls_server_config:\n  cert_file: c.pem\n  key_file: " + absKey + "\nbasic_auth_users:\n  a: x\n", true},
	} {
		path := writeWebConfig(t, dir, tc.conf)
		got, err := effectiveWebConfig(path, out)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (got != path) != tc.copied {
			t.Fatalf("%s: %s", tc.name, got)
		}
		if !tc.copied {
			continue
		}
		b, _ := os.ReadFile(got)
		for _, want := range []string{"cert_file: " + filepath.Join(dir, "c.pem"), "key_file: " + absKey, "a: x", "interval: 200ms", "burst: 10"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: %q lacks %q", tc.name, b, want)
			}
		}
	}
}

// Keep-alive connections never timed out; now one idle for the idle
// timeout is closed.
func TestIdleConnectionsClosed(t *testing.T) {
	o := fastOptions()
	o.IdleTimeout = 100 * time.Millisecond
	addr, _ := started(t, o)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("an idle keep-alive connection: %v, want it closed by the server", err)
	}
}

// At most MaxConns connections are open at once. Connections that hold a
// slot without asking for anything used to make the next one wait (and
// starve a real scrape); now the one that has waited longest gives its
// slot to the newcomer.
func TestConnectionCap(t *testing.T) {
	o := fastOptions()
	o.MaxConns = 2
	addr, _ := started(t, o)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("with two silent connections holding both slots: %v", err)
	}
	resp.Body.Close()
	_ = held[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := held[0].Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection that waited longest kept its slot")
	}
}

// Issue 40: 64 keep-alive connections (each after one /healthz) and 400
// that never finish their header, all from the scraper's own address,
// made 3 of 3 scrapes time out at 15 s. Now a scrape answers within a few
// seconds. Every connection is closed when the test ends.
func TestScrapeAnswersDuringFlood(t *testing.T) {
	o := fastOptions()
	addr, e := started(t, o)
	waitHealthy(t, "http://"+addr, e, 1)
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		return c
	}
	for range 64 {
		c := dial()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			continue // no slot for it, or its slot went to a newer one
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 400 {
		c := dial()
		_, _ = io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	}
	// A new connection for each scrape, as a scraper whose connection was
	// closed would open.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 {
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatalf("scrape %d during the flood: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape %d: %s", i, resp.Status)
		}
	}
}

// Answers to anything but /metrics close their connection: only a
// scraper keeps one.
func TestOnlyScrapesKeepAlive(t *testing.T) {
	addr, _ := started(t, fastOptions())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, path := range []string{"/metrics", "/healthz"} {
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close != (path != "/metrics") {
			t.Errorf("%s: Connection: close is %v", path, resp.Close)
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after /healthz: %v, want the connection closed", err)
	}
}

// Beyond loopback, without TLS and basic auth, /metrics is anyone's.
func TestExposureWarning(t *testing.T) {
	dir := testutil.TempDir(t)
	both := writeWebConfig(t, dir, "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\nbasic_auth_users:\n  a: x\n")
	users := filepath.Join(dir, "users.yml")
	if err := os.WriteFile(users, []byte("basic_auth_users:\n  a: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		listen, config, want string
	}{
		{"127.0.0.1:9977", "", ""},
		{"[::1]:9977", "", ""},
		{"localhost:9977", "", ""},
		{":9977", "", "without TLS or basic auth"},
		{"0.0.0.0:9977", "", "without TLS or basic auth"},
		{"192.0.2.1:9977", users, "without TLS:"},
		{":9977", both, ""},
	} {
		o := Defaults()
		o.Listen, o.WebConfig = tc.listen, tc.config
		got := ExposureWarning(o)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.listen, tc.config, got, tc.want)
		}
	}
}
