package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

func TestExporterInstallIsWindowsOnly(t *testing.T) {
	for _, cmd := range []string{"install", "uninstall"} {
		code, out, errs := runCLI(t, "exporter", cmd)
		testutil.CheckBadExit(t, "exporter "+cmd, code, errs, "on Linux install packaging/latlab-exporter.service with systemd")
		if out != "" {
			t.Errorf("exporter %s: stdout %q", cmd, out)
		}
	}
}

// freePort returns a loopback port that was free a moment ago, for a
// program that cannot report the port it bound.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// promServer is a Prometheus server started by a test.
type promServer struct {
	base string
	log  *bytes.Buffer
}

// startPrometheus runs Debian's prometheus on loopback, scraping target
// every second into a temporary storage directory; it is killed when the
// test ends.
func startPrometheus(t *testing.T, target string) *promServer {
	bin := testutil.NeedTool(t, "prometheus")
	dir := testutil.TempDir(t)
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: latlab
    static_configs:
      - targets: [%q]
`, target)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	log := &bytes.Buffer{}
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel() // kills it
		_ = cmd.Wait()
	})
	p := &promServer{base: "http://" + addr, log: log}
	p.await(t, "ready", 30*time.Second, func() bool {
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return p
}

// await polls cond until it holds; the limit only keeps a broken setup
// from hanging the test.
func (p *promServer) await(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("prometheus: %s did not happen within %v\n%s", what, limit, p.log.String())
		}
		time.Sleep(200 * time.Millisecond) // polling, not measuring
	}
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant PromQL query and returns the samples whose value
// is a number (not NaN).
func (p *promServer) query(t *testing.T, q string) []promSample {
	t.Helper()
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []promSample `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s %s", q, err, r.Error, b)
	}
	var out []promSample
	for _, s := range r.Data.Result {
		str, _ := s.Value[1].(string)
		if v, err := strconv.ParseFloat(str, 64); err == nil && !math.IsNaN(v) {
			out = append(out, s)
		}
	}
	return out
}

// A real Prometheus scrapes the exporter every second: PromQL over the
// wake-up histogram returns values, and a setting changed with knob set
// on the --root tree shows up as a new latlab_setting_info series.
func TestExporterEndToEndWithPrometheus(t *testing.T) {
	// In parallel with the package's other parallel tests: it mostly
	// waits (Prometheus applies a new target after 5 s, then scrapes every
	// second), on its own tree, exporter and Prometheus.
	t.Parallel()
	testutil.NeedTool(t, "prometheus")
	root := knobTree(t)
	state := testutil.TempDir(t)
	addr := startExporter(t, "--root", root, "exporter", "--listen", "127.0.0.1:0", "--settings-every", "1s")
	p := startPrometheus(t, addr)

	const limit = 45 * time.Second
	for _, q := range []string{
		`rate(latlab_wake_latency_seconds_count[5s])`,
		`histogram_quantile(0.99, sum by (le) (rate(latlab_wake_latency_seconds_bucket[5s])))`,
		`latlab_setting_info{knob="tcp-recovery",value="1"}`,
	} {
		p.await(t, q+" returning a value", limit, func() bool { return len(p.query(t, q)) > 0 })
	}
	before := p.query(t, `latlab_setting_info{knob="tcp-recovery"}`)
	if len(before) != 1 {
		t.Fatalf("tcp-recovery series before the change: %v", before)
	}

	if code, _, errs := runCLI(t, "--root", root, "knob", "set", "tcp-recovery", "5", "--state-dir", state); code != 0 {
		t.Fatalf("knob set: exit %d %s", code, errs)
	}
	q := `latlab_setting_info{knob="tcp-recovery",value="5"}`
	p.await(t, q+" appearing", limit, func() bool { return len(p.query(t, q)) > 0 })
	// Both values are in the last minute's history: the change is a new
	// series beside the old one, which went stale.
	if n := len(p.query(t, `last_over_time(latlab_setting_info{knob="tcp-recovery"}[1m])`)); n != 2 {
		t.Errorf("%d tcp-recovery series in the last minute, want the old and the new", n)
	}
	if n := len(p.query(t, `latlab_setting_info{knob="tcp-recovery",value="1"}`)); n != 0 {
		t.Errorf("the old value is still a current series")
	}
}
