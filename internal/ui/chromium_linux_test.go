package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/testutil"
)

// measureJS is appended to the page's script in the test: it watches the
// live cells for up to 5 s from the moment the page runs, then posts
// what it saw and where the verdict is.
const measureJS = `
(function () {
  var start = Date.now(), seen = {}, first = null;
  function text(id) { return document.getElementById(id).textContent; }
  var iv = setInterval(function () {
    var cells = ["wake-p50", "wake-total", "sleep-total", "ticks"].map(text).join("|");
    if (first === null) { first = cells; }
    seen[cells] = true;
    var n = Object.keys(seen).length, wake = parseInt(text("wake-total"), 10) || 0;
    var dpcRows = document.querySelectorAll("#dpc-rows tr").length, dpc = text("dpc-status");
    if ((n >= 3 && wake > 0 && text("wake-p50") !== "-" && (dpcRows > 0 || dpc.indexOf("not watched") === 0)) || Date.now() - start > 5000) {
      clearInterval(iv);
      var v = document.getElementById("verdict").getBoundingClientRect();
      fetch("/measured", { method: "POST", body: JSON.stringify({ elapsed: Date.now() - start, distinct: n, first: first,
        last: cells, wake: wake, p50: text("wake-p50"), top: v.top, bottom: v.bottom, w: window.innerWidth,
        h: window.innerHeight, canvases: document.querySelectorAll("canvas").length,
        dpcStatus: dpc, dpcRows: dpcRows, dpcVerdict: text("dpc-verdict") }) });
    }
  }, 100);
}());
`

type measured struct {
	Elapsed, Distinct, Wake, W, H, Canvases, DPCRows int
	First, Last, P50, DPCStatus, DPCVerdict          string
	Top, Bottom                                      float64
}

// The page in headless Chromium at 1280x800, loaded with its token: the
// live values change within 5 s, the charts are drawn, the verdict is in
// the first screen, the console stays empty and nothing is requested
// from elsewhere.
func TestPageInChromium(t *testing.T) {
	po := exporter.Defaults()
	po.Cycle = 250 * time.Millisecond
	po.Duty = 0.04
	s, err := New(Options{Probe: po, Summary: `<section id="summary"><p class="verdict" id="verdict">test verdict</p></section>`,
		Style: "body { margin: 0 auto; max-width: 64rem; }", RecordDir: testutil.TempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := testutil.NewChromium(t, s.addr)
	got := make(chan measured, 1)
	s.wrap = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/measured":
				var m measured
				b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
				if err := json.Unmarshal(b, &m); err != nil {
					t.Errorf("measured: %v: %s", err, b)
				}
				select {
				case got <- m:
				default:
				}
			case "/app.js":
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				for k, v := range rec.Header() {
					if k != "Content-Length" {
						w.Header()[k] = v
					}
				}
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				if rec.Code == http.StatusOK {
					io.WriteString(w, measureJS)
				}
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	cctx, ccancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer ccancel()
	cmd := exec.CommandContext(cctx, c.Path, append(c.Args, "--window-size=1280,800", s.URL())...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var m measured
	select {
	case m = <-got:
	case <-time.After(60 * time.Second):
	}
	time.Sleep(500 * time.Millisecond) // console messages after the report
	cmd.Process.Signal(os.Interrupt)
	waited := make(chan struct{})
	go func() { cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-waited
	}
	if m.W == 0 {
		t.Fatalf("the page did not report (chromium stderr:\n%s)", errb.String())
	}
	t.Logf("%+v", m)
	if m.Distinct < 3 || m.Wake == 0 || m.P50 == "-" || m.First == m.Last {
		t.Errorf("the live values did not change within 5 s: %d states, first %q, last %q", m.Distinct, m.First, m.Last)
	}
	// Root (CI) sees the handlers' panel fill; others see why not.
	if os.Geteuid() == 0 {
		if m.DPCStatus != "watching" || m.DPCRows == 0 || m.DPCVerdict == "-" {
			t.Errorf("the DPC panel did not fill within 5 s: %q, %d rows, verdict %q", m.DPCStatus, m.DPCRows, m.DPCVerdict)
		}
	} else if !strings.HasPrefix(m.DPCStatus, "not watched: ") || !strings.Contains(m.DPCStatus, "root") {
		t.Errorf("the DPC panel does not say what adds it: %q", m.DPCStatus)
	}
	if m.Canvases < 3 {
		t.Errorf("%d charts drawn, want 3", m.Canvases)
	}
	if m.W != 1280 || m.H < 500 || m.H > 800 {
		t.Errorf("the window is %dx%d, not 1280x800", m.W, m.H)
	}
	if m.Top < 0 || m.Bottom > float64(m.H) {
		t.Errorf("the verdict spans %.0f-%.0f px, outside the first screen of %d px", m.Top, m.Bottom, m.H)
	}
	if con := testutil.ConsoleLines(errb.String()); len(con) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(con, "\n"))
	}
	if req := c.Requests(); len(req) > 0 {
		t.Errorf("requests to elsewhere:\n%s", strings.Join(req, "\n"))
	}
}
