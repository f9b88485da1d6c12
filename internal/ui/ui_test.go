package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// testServer is a live view with short probe cycles, running until the
// test ends.
// testStep is the tests' period of the page's points, a fifth of the
// command's: each event comes five times sooner.
const testStep = 200 * time.Millisecond

func testServer(t *testing.T) (*Server, context.CancelFunc) {
	t.Helper()
	po := exporter.Defaults()
	po.Cycle = 250 * time.Millisecond
	po.Duty = 0.04 // a 10 ms burst of 1 ms wake-ups
	s, err := New(Options{Probe: po, Summary: `<section id="summary"><p id="verdict">test verdict</p></section>`,
		RecordDir: testutil.TempDir(t), Step: testStep})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return s, cancel
}

func TestRefusals(t *testing.T) {
	s, err := New(Options{RecordDir: testutil.TempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.l.Close()
	h := s.Handler()
	own := "127.0.0.1:" + s.port
	tok := "?t=" + s.token
	for _, c := range []struct {
		name, method, target, host, origin string
		want                               int
	}{
		{"page with token", "GET", "/" + tok, own, "", 200},
		{"page on localhost", "GET", "/" + tok, "localhost:" + s.port, "", 200},
		{"asset with token", "GET", "/uplot.js" + tok, own, "", 200},
		{"page without token", "GET", "/", own, "", 403},
		{"asset without token", "GET", "/uplot.js", own, "", 403},
		{"events without token", "GET", "/events", own, "", 403},
		{"record without token", "POST", "/record", own, "", 403},
		{"wrong token", "GET", "/?t=" + strings.Repeat("0", 64), own, "", 403},
		{"token prefix", "GET", "/?t=" + s.token[:32], own, "", 403},
		{"rebound host", "GET", "/" + tok, "attacker.example:" + s.port, "", 421},
		{"other port", "GET", "/" + tok, "127.0.0.1:1", "", 421},
		{"bare address", "GET", "/" + tok, "127.0.0.1", "", 421},
		{"foreign origin", "GET", "/events" + tok, own, "http://attacker.example", 403},
		{"foreign origin record", "POST", "/record" + tok, own, "http://attacker.example", 403},
		{"null origin", "POST", "/record" + tok, own, "null", 403},
		{"same origin", "GET", "/events" + tok, own, "http://" + own, 200},
		{"record by GET", "GET", "/record" + tok, own, "", 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			r := httptest.NewRequestWithContext(ctx, c.method, c.target, nil)
			r.Host = c.host
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Errorf("status %d, want %d (%s)", w.Code, c.want, strings.TrimSpace(w.Body.String()))
			}
			if got := w.Header().Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("policy %q", got)
			}
			if w.Header().Get("Set-Cookie") != "" {
				t.Error("a cookie was set")
			}
		})
	}
}

// readEvents reads server-sent events from the live view until n have
// come or the deadline passes.
func readEvents(t *testing.T, ctx context.Context, s *Server, n int) []Snapshot {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.addr+"/events?t="+s.token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var out []Snapshot
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() && len(out) < n {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var snap Snapshot
		if err := json.Unmarshal([]byte(line), &snap); err != nil {
			t.Fatal(err)
		}
		out = append(out, snap)
	}
	return out
}

// The events carry the probes' figures, and they change: new points,
// samples counted.
func TestEventsChange(t *testing.T) {
	s, _ := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Six events are a second, in which a busy machine may not have run
	// the probes (they take turns, a burst each every other cycle): six
	// more are read while they show no change, for 20 s at most, and the
	// checks below judge the last six.
	var first, last Snapshot
	for end := time.Now().Add(20 * time.Second); ; {
		evs := readEvents(t, ctx, s, 6)
		if len(evs) < 6 {
			t.Fatalf("%d events in 30 s", len(evs))
		}
		first, last = evs[0], evs[len(evs)-1]
		changed := len(last.Series) > len(first.Series) && last.Total[0] > first.Total[0] && last.Total[1] > 0
		if changed || time.Now().After(end) {
			break
		}
	}
	if len(last.Series) <= len(first.Series) {
		t.Errorf("the series did not grow: %d then %d points", len(first.Series), len(last.Series))
	}
	if last.Total[0] <= first.Total[0] || last.Total[1] == 0 {
		t.Errorf("samples: wake %d then %d, sleep %d", first.Total[0], last.Total[0], last.Total[1])
	}
	p := last.Series[len(last.Series)-1]
	if p.Wake.N == 0 || p.Wake.P50 <= 0 || p.Wake.Max < p.Wake.P99 || p.Wake.P99 < p.Wake.P50 {
		t.Errorf("wake figures %+v", p.Wake)
	}
	var n int64
	for _, c := range last.Hist {
		n += c
	}
	if n != last.Total[0] || len(last.Edges) != len(last.Hist)+1 {
		t.Errorf("histogram holds %d of %d wake-ups, %d edges for %d bins", n, last.Total[0], len(last.Edges), len(last.Hist))
	}
}

// A page that closes leaves no goroutine behind.
func TestNoLeakAfterDisconnect(t *testing.T) {
	s, _ := testServer(t)
	// Let the server's own goroutines settle: the probes, the ticker, the
	// listener.
	warm, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	readEvents(t, warm, s, 1)
	cancel()
	http.DefaultClient.CloseIdleConnections()
	// settle waits up to 5 s for the count to come down to limit, or,
	// with no limit (-1), to hold still for a quarter of a second.
	settle := func(limit int) int {
		n, still := runtime.NumGoroutine(), 0
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
			if limit >= 0 && n <= limit || limit < 0 && still == 12 {
				break
			}
			time.Sleep(20 * time.Millisecond)
			m := runtime.NumGoroutine()
			if m == n {
				still++
			} else {
				still = 0
			}
			n = m
		}
		return n
	}
	before := settle(-1)
	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		readEvents(t, ctx, s, 2)
		cancel()
	}
	http.DefaultClient.CloseIdleConnections()
	if after := settle(before); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after five clients left\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients != 0 {
		t.Errorf("%d clients counted after all left", s.clients)
	}
}

// The server stops by itself once the last page has been closed for the
// idle time.
func TestIdleStop(t *testing.T) {
	po := exporter.Defaults()
	po.Cycle = 250 * time.Millisecond
	s, err := New(Options{Probe: po, Idle: 300 * time.Millisecond, RecordDir: testutil.TempDir(t), Step: testStep})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	readEvents(t, ctx, s, 1)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop after the last page closed")
	}
}

// Record writes documents compare and report read.
func TestRecord(t *testing.T) {
	s, _ := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if evs := readEvents(t, ctx, s, 1); len(evs) == 1 && evs[0].Total[0] > 0 && evs[0].Total[1] > 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+s.addr+"/record?t="+s.token, nil)
	req.Header.Set("Origin", "http://"+s.addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Files []string
		Error string
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v, %+v", resp.StatusCode, err, ans)
	}
	if len(ans.Files) != 2 {
		t.Fatalf("files %q", ans.Files)
	}
	for i, kind := range []string{"wake", "sleep"} {
		doc, err := result.ReadFile(ans.Files[i])
		if err != nil {
			t.Fatal(err)
		}
		sm, ok := doc.Data.(result.Sampled)
		if doc.Kind != kind || !ok {
			t.Fatalf("%s: kind %s", ans.Files[i], doc.Kind)
		}
		if v, raw, err := sm.Values(nil); err != nil || !raw || len(v) == 0 {
			t.Errorf("%s: %d values, raw %v, %v", kind, len(v), raw, err)
		}
	}
	// A second record in the same second replaces nothing.
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := s.Record(at); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Record(at); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second record at the same time wrote %q, %v", p, err)
	}
}

// The first event, before the first point, has an empty series, not
// null: the page reads its length.
func TestFirstSnapshotEmptySeries(t *testing.T) {
	snap, _ := newLive(time.Millisecond).snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"series":[]`) {
		t.Errorf("first event %s", b)
	}
}
