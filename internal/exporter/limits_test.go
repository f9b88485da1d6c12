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

// At most MaxConns connections are served; idle ones used to starve a
// real scrape. The one past the cap is served once a slot frees.
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
	client := &http.Client{Timeout: 300 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := client.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("a third connection was served while two held every slot")
	}
	held[0].Close()
	client.Timeout = 30 * time.Second
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("after a slot freed: %v", err)
	}
	resp.Body.Close()
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
