package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func TestExporterBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exporter", "--duty", "90%"}, "invalid --duty \"90%\": accepted 0.1% to 50%"},
		{[]string{"exporter", "--duty", "lots"}, "want a percentage like 2%"},
		{[]string{"exporter", "--probes", "wake,nap"}, "invalid --probes \"wake,nap\": accepted wake, sleep or wake,sleep"},
		{[]string{"exporter", "--listen", "9977"}, "invalid --listen \"9977\": want host:port"},
		{[]string{"exporter", "--interval", "1us"}, "invalid --interval 1µs: accepted 10µs to 100ms"},
		{[]string{"exporter", "--interval", "1"}, "needs a unit"},
		{[]string{"exporter", "--cpus", "4096"}, "invalid --cpus: cpu 4096 does not exist"},
		{[]string{"exporter", "--rtprio", "100"}, "invalid --rtprio 100"},
		{[]string{"exporter", "--settings-every", "10ms"}, "invalid --settings-every 10ms"},
		{[]string{"exporter", "--tls-config", "no-such-web-config.yml"}, "invalid --tls-config no-such-web-config.yml"},
		{[]string{"exporter", "extra"}, "extra"},
		{[]string{"exporter", "install", "--duty", "0"}, "invalid --duty \"0\""},
	} {
		code, out, errs := runCLI(t, tc.args...)
		testutil.CheckBadExit(t, fmt.Sprint(tc.args), code, errs, tc.want)
		if out != "" {
			t.Errorf("%v: stdout %q", tc.args, out)
		}
	}
}

func TestChangedFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var listen, duty string
	var cpu int
	fs.StringVar(&listen, "listen", "127.0.0.1:9977", "")
	fs.StringVar(&duty, "duty", "2%", "")
	fs.IntVar(&cpu, "cpu", -1, "")
	if err := fs.Parse([]string{"--cpu", "2", "--listen=:9977"}); err != nil {
		t.Fatal(err)
	}
	got := changedFlags(fs, []string{"listen", "duty", "cpu", "missing"})
	if strings.Join(got, " ") != "--listen=:9977 --cpu=2" {
		t.Fatalf("%q", got)
	}
}

// The service runs with the flags given to install: rendered and parsed
// again, they give the same options.
func TestInstallFlagsRoundTrip(t *testing.T) {
	args := []string{"--listen", ":9977", "--interval", "1.234567ms", "--duty", "2.5%", "--probes", "wake",
		"--cpus", "0", "--settings-every", "90s", "--tls-config", "web.yml"}
	parse := func(args []string) *cobra.Command {
		cmd := newExporterCmd(&IO{Root: "/"}, nil)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd := parse(args)
	rendered := changedFlags(cmd.Flags(), exporterFlags)
	cmd2 := parse(rendered)
	for _, n := range exporterFlags {
		a, b := cmd.Flags().Lookup(n), cmd2.Flags().Lookup(n)
		if a.Value.String() != b.Value.String() || a.Changed != b.Changed {
			t.Errorf("--%s: %q (changed %v) became %q (changed %v) through %q", n, a.Value, a.Changed, b.Value, b.Changed, rendered)
		}
	}
	if d := cmd2.Flags().Lookup("interval").Value.(*durationValue).d; *d != 1234567*time.Nanosecond {
		t.Errorf("--interval came back as %v", *d)
	}
}

// The systemd unit in the repository starts a command line this latlab
// accepts.
func TestSystemdUnitExecStart(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "packaging", "latlab-exporter.service"))
	if err != nil {
		t.Fatal(err)
	}
	var exec string
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			exec = v
		}
	}
	// The unit's command line has no quoting: plain fields.
	args := strings.Fields(exec)
	if len(args) < 2 || args[0] != "/usr/bin/latlab" || args[1] != "exporter" {
		t.Fatalf("ExecStart=%s", exec)
	}
	// Through the run hook, so the flags' values are validated too.
	called := false
	cmd := newExporterCmd(&IO{Root: "/"}, func(*ExporterOptions) error { called = true; return nil })
	runSeam(t, cmd, args[2:], &called)
}

// lineWriter hands the first line written to it to a channel and keeps
// everything, safe for the exporter's goroutines.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	first chan string
	once  sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if s := w.buf.String(); strings.Contains(s, "\n") {
		w.once.Do(func() { w.first <- s[:strings.Index(s, "\n")] })
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startExporter runs `latlab ARGS` (an exporter command line listening on
// 127.0.0.1:0) in this process and returns the address it serves; it is
// stopped when the test ends and must then exit 0.
func startExporter(t *testing.T, args ...string) string {
	t.Helper()
	out := &lineWriter{first: make(chan string, 1)}
	errs := &lineWriter{first: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, &IO{In: strings.NewReader(""), Out: out, Err: errs}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("exporter exit %d: %s", code, errs.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("the exporter did not stop within 30 s")
		}
	})
	select {
	case line := <-out.first:
		addr, ok := strings.CutPrefix(line, "latlab exporter: listening on ")
		if !ok {
			t.Fatalf("first line %q", line)
		}
		return strings.Fields(addr)[0]
	case code := <-done:
		t.Fatalf("exporter exit %d: %s", code, errs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the exporter did not start within 30 s")
	}
	return ""
}

// The command serves the probes' histograms and the audited settings,
// on Windows (under Wine) as on Linux.
func TestExporterServes(t *testing.T) {
	addr := startExporter(t, "exporter", "--listen", "127.0.0.1:0", "--settings-every", "1s")
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<22))
		resp.Body.Close()
		body := string(b)
		if strings.Contains(body, "latlab_setting_info{") && strings.Contains(body, "latlab_wake_latency_seconds_count{") {
			if !strings.Contains(body, `verdict="`) || strings.Contains(body, "latlab_settings_read_errors_total 1") {
				t.Errorf("settings:\n%s", body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no settings or wake-ups served after 60 s:\n%s", body)
		}
		time.Sleep(100 * time.Millisecond) // polling, not measuring
	}
}
