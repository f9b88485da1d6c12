// Package ui serves latlab's live view: one page on the loopback
// interface with the check-up's answer at the top and the low-duty
// probes' wake-up lateness and sleep overshoot, updated every second over
// server-sent events. It is private and read-only: every request carries
// a random token, the Host must be the loopback address the server
// listens on (no DNS rebinding), a foreign Origin is refused, the page
// loads nothing from elsewhere, and nothing on it changes a setting.
package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// DefaultIdle is how long the server waits after the last page closes
// before it stops.
const DefaultIdle = time.Minute

// ContentSecurityPolicy is sent with every answer: the page loads its
// script, style and events from the server itself and nothing else.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options configure the live view.
type Options struct {
	// Probe are the probe thread's options (duty, interval, probes);
	// Observe is set by the server.
	Probe exporter.Options
	// Summary and Evidence are the check-up's answer and its cause and
	// settings table
	// (report.DoctorSections), Style their style sheet
	// (report.DoctorStyle); empty when there is no check-up.
	Summary, Evidence template.HTML
	Style             string
	// Subtitle says what was measured where.
	Subtitle string
	// Host are the facts the record's documents carry.
	Host host.Facts
	// RecordDir is where record writes its documents.
	RecordDir string
	// Idle is how long after the last page closes the server stops; 0
	// is DefaultIdle.
	Idle time.Duration
	// NoDPC leaves the DPC and ISR watch off (--no-dpc): the panel says
	// so.
	NoDPC bool
	// Logger receives failures of the probe thread; nil discards them.
	Logger *slog.Logger
	// Step is how often a point of the page's series is taken; 0 is a
	// second (the tests take one every fifth of a second: their events
	// come that much sooner).
	Step time.Duration
}

// Server is one live view: its token, its listener and the figures.
type Server struct {
	o     Options
	token string
	addr  string // 127.0.0.1:PORT
	port  string
	l     net.Listener
	live  *live
	page  []byte

	mu      sync.Mutex
	clients int
	idle    chan struct{} // a value when the last client leaves
	recMu   sync.Mutex
	// wrap, when set, wraps the handler Run serves: a test adds its own
	// routes and instruments the page's script.
	wrap func(http.Handler) http.Handler
}

// New opens the listener on a free loopback port and makes the token.
func New(o Options) (*Server, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	if o.Probe.Interval == 0 {
		d := exporter.Defaults()
		if o.Probe.Duty > 0 {
			d.Duty = o.Probe.Duty
		}
		d.Cycle = o.Probe.Cycle
		o.Probe = d
	}
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	s := &Server{o: o, token: hex.EncodeToString(b[:]), l: l, addr: l.Addr().String(),
		live: newLive(o.Probe.Interval), idle: make(chan struct{}, 1)}
	_, s.port, _ = net.SplitHostPort(s.addr)
	if s.page, err = s.renderPage(); err != nil {
		l.Close()
		return nil, err
	}
	return s, nil
}

// URL is the address to open: the page with the token.
func (s *Server) URL() string { return "http://" + s.addr + "/?t=" + s.token }

// Run measures and serves until ctx ends or the last page has been
// closed for the idle time. A probe thread that cannot start is shown on
// the page, not fatal: the check-up above it still stands.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	po := s.o.Probe
	po.Observe = s.live.observe
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		if err := exporter.Probe(ctx, po); err != nil {
			s.live.fail("the probes stopped: " + err.Error())
			if s.o.Logger != nil {
				s.o.Logger.Error("latlab ui: probes", "err", err.Error())
			}
		}
	}()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.watchDPC(ctx)
	}()
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		step := s.o.Step
		if step <= 0 {
			step = time.Second
		}
		t := time.NewTicker(step)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				s.live.step(now)
			}
		}
	}()
	h := s.Handler()
	if s.wrap != nil {
		h = s.wrap(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(s.l) }()
	var err error
	idle := time.NewTimer(time.Hour)
	idle.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err = <-served:
			break loop
		case <-s.idle:
			idle.Reset(s.o.Idle)
		case <-idle.C:
			s.mu.Lock()
			n := s.clients
			s.mu.Unlock()
			if n == 0 {
				break loop
			}
		}
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	<-probed
	<-watched
	<-ticked
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// watchDPC runs dpc watch's machinery for the panel until ctx ends: on
// Windows DPC and ISR time per driver, on Linux softirq and hard
// interrupt handler time, each with the longest single one and its
// verdict. Unelevated, the panel says what adds it.
func (s *Server) watchDPC(ctx context.Context) {
	if s.o.NoDPC {
		s.live.dpcStopped(DPCPanel{Status: "not watched (--no-dpc)", Rows: []DPCRow{}})
		return
	}
	_, err := dpcwatch.Run(ctx, dpcwatch.Options{Every: time.Second, OnSummary: s.live.dpcSummary})
	switch {
	case err != nil:
		s.live.dpcStopped(dpcUnavailable(err))
	case ctx.Err() == nil:
		s.live.dpcStopped(DPCPanel{Status: "the watch ended", Rows: []DPCRow{}})
	}
}

// Handler serves the page, its assets, the events and record, each
// behind the checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveBytes("text/html; charset=utf-8", s.page))
	mux.HandleFunc("GET /app.js", s.serveBytes("text/javascript; charset=utf-8", appJS))
	mux.HandleFunc("GET /uplot.js", s.serveBytes("text/javascript; charset=utf-8", uplotJS))
	mux.HandleFunc("GET /uplot.css", s.serveBytes("text/css; charset=utf-8", uplotCSS))
	mux.HandleFunc("GET /style.css", s.serveBytes("text/css; charset=utf-8", []byte(s.o.Style+"\n"+string(appCSS))))
	mux.HandleFunc("GET /events", s.serveEvents)
	mux.HandleFunc("POST /record", s.serveRecord)
	return s.guard(mux)
}

// guard refuses a request with a foreign Host or Origin or without the
// token, and sets the policy headers on every answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !s.ownHost(r.Host) {
			http.Error(w, "latlab ui: foreign Host refused", http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.ownOrigin(o) {
			http.Error(w, "latlab ui: foreign Origin refused", http.StatusForbidden)
			return
		}
		t := r.URL.Query().Get("t")
		if subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) != 1 {
			http.Error(w, "latlab ui: the token is missing or wrong: open the URL latlab ui printed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) ownHost(h string) bool {
	return h == "127.0.0.1:"+s.port || h == "localhost:"+s.port
}

func (s *Server) ownOrigin(o string) bool {
	return o == "http://127.0.0.1:"+s.port || o == "http://localhost:"+s.port
}

func (s *Server) serveBytes(ctype string, b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}
}

// serveEvents sends the figures once a second until the client leaves or
// the server stops.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.clients++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.clients--
		n := s.clients
		s.mu.Unlock()
		if n == 0 {
			select {
			case s.idle <- struct{}{}:
			default:
			}
		}
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for {
		snap, next := s.live.snapshot()
		b, err := json.Marshal(snap)
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-next:
		}
	}
}

// serveRecord writes the session's samples as wake and sleep documents,
// which compare and report read, and answers with their paths.
func (s *Server) serveRecord(w http.ResponseWriter, r *http.Request) {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	paths, err := s.Record(time.Now())
	w.Header().Set("Content-Type", "application/json")
	ans := struct {
		Files []string `json:"files"`
		Error string   `json:"error,omitempty"`
	}{Files: paths}
	if err != nil {
		ans.Error = err.Error()
		w.WriteHeader(http.StatusInternalServerError)
	}
	_ = json.NewEncoder(w).Encode(ans)
}

// Record writes the session so far into RecordDir: one wake and one
// sleep document (a probe without samples is left out).
func (s *Server) Record(now time.Time) ([]string, error) {
	stamp := now.UTC().Format("20060102-150405")
	var paths []string
	elapsed := now.Sub(s.live.started).Nanoseconds()
	ms := probe.Measurement{ElapsedNs: elapsed, ClockSource: s.o.Host.ClockSource, PercentileNote: result.PercentileDefinition}
	cycle := s.o.Probe.Cycle
	if cycle == 0 {
		cycle = exporter.DefaultCycle
	}
	note := fmt.Sprintf("latlab ui: the exporter's low-duty probes, a burst of %s every %s (duty %g%%), the two probes in turn",
		time.Duration(float64(cycle)*s.o.Probe.Duty), cycle, s.o.Probe.Duty*100)
	if wake, missed := s.live.samples(exporter.ProbeWake); len(wake) > 0 {
		m := ms
		m.Method, m.IntervalNs = probe.WakeMethod, s.o.Probe.Interval.Nanoseconds()
		sum := stats.Summarize(wake)
		d := &probe.WakeData{Measurement: m, Summary: sum, Overruns: missed, Samples: wake}
		ch := stats.CorrectedHistogramOf(wake, m.IntervalNs)
		d.CorrectedSummary = stats.SummarizeHistogram(ch)
		h, err := result.EncodeHistogram(stats.HistogramOf(wake))
		if err != nil {
			return paths, err
		}
		d.Histogram = *h
		if h, err = result.EncodeHistogram(ch); err != nil {
			return paths, err
		}
		d.CorrectedHistogram = *h
		d.SetCounts(0, int64(len(wake)), false)
		doc := probe.KindWake.New(s.o.Host, d)
		doc.Notes = append(doc.Notes, note)
		p := filepath.Join(s.o.RecordDir, "latlab-ui-"+stamp+"-wake.json")
		if err := writeNew(p, doc); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	if over, _ := s.live.samples(exporter.ProbeSleep); len(over) > 0 {
		m := ms
		m.Method, m.RequestedNs = probe.SleepMethods()[0], s.o.Probe.Interval.Nanoseconds()
		slept := make([]int64, len(over))
		for i, v := range over {
			slept[i] = v + m.RequestedNs
		}
		d := &probe.SleepData{Measurement: m, Summary: stats.Summarize(slept), Overshoot: stats.Summarize(over), Samples: slept}
		h, err := result.EncodeHistogram(stats.HistogramOf(slept))
		if err != nil {
			return paths, err
		}
		d.Histogram = *h
		d.SetCounts(0, int64(len(slept)), false)
		doc := probe.KindSleep.New(s.o.Host, d)
		doc.Notes = append(doc.Notes, note)
		p := filepath.Join(s.o.RecordDir, "latlab-ui-"+stamp+"-sleep.json")
		if err := writeNew(p, doc); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, errors.New("nothing measured yet: record again in a few seconds")
	}
	return paths, nil
}

// writeNew writes a record's document; an existing file (a second record
// in the same second) is refused, never replaced.
func writeNew(path string, doc *result.Document) error {
	if err := outfile.Check(path, false); err != nil {
		return err
	}
	return result.WriteFile(path, doc)
}
