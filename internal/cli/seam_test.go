package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/try"
)

// The flag-to-Options mapping of a command, tested without running it: the
// constructor's run function receives the options in place of the run.

// runSeam executes cmd with args and reports whether its run function was
// reached.
// noArgs makes nil args an empty list: cobra reads a nil list as "take
// os.Args", which are the test binary's own flags (-test.run ...), so a
// case of no arguments failed or passed by how go test was called.
func noArgs(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}

func runSeam(t *testing.T, cmd *cobra.Command, args []string, called *bool) {
	t.Helper()
	cmd.SetArgs(noArgs(args))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if !*called {
		t.Fatalf("%v: the run function was not called", args)
	}
}

// runSeamRefused executes cmd with bad args and checks that validation
// refused them as a usage error before the run function was reached.
func runSeamRefused(t *testing.T, cmd *cobra.Command, args []string, called *bool) {
	t.Helper()
	cmd.SetArgs(noArgs(args))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	if err == nil {
		t.Fatalf("%v: accepted", args)
	}
	if code := ExitCode(err); code != 2 {
		t.Errorf("%v: exit code %d, want 2 (%v)", args, code, err)
	}
	if *called {
		t.Errorf("%v: the run function was called with flags validation refuses (%v)", args, err)
	}
}

func seamIO() *IO { return &IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}} }

// seamTree puts cmd, built with its run function, in a tree finished as
// latlab's is (argument checks, the --force guard), for the validation
// done there rather than in the command's own RunE.
func seamTree(io *IO, cmd *cobra.Command) *cobra.Command {
	root := &cobra.Command{Use: "latlab", Args: cobra.NoArgs, SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(cmd)
	finish(root, io)
	return root
}

func TestSleepFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := SleepOptions{IO: io, Duration: time.Millisecond, Samples: defaultSleepSamples, Gap: defaultSleepGap,
		Method: probe.SleepMethods()[0], Priority: "normal", RTPrio: 80}
	subMs := probe.SleepMethods()[len(probe.SleepMethods())-1]
	for _, c := range []struct {
		args []string
		want func(o *SleepOptions)
	}{
		{nil, func(*SleepOptions) {}},
		// Sub-millisecond sleeps need a method that takes them (Windows'
		// default, kernel32 Sleep, takes whole milliseconds): the last one.
		{[]string{"--sleep-length", "0.5ms", "--samples", "1000", "--gap", "0", "--method", subMs}, func(o *SleepOptions) {
			o.Duration, o.Samples, o.Gap, o.Method = 500*time.Microsecond, 1000, 0, subMs
		}},
		// The old spellings set the same options.
		{[]string{"--duration", "0.5ms", "--cpu", "1", "--method", subMs}, func(o *SleepOptions) {
			o.Duration, o.CPUs, o.Method = 500*time.Microsecond, "1", subMs
		}},
		{[]string{"--priority", "realtime", "--rtprio", "90", "--cpus", "1", "--json", "-o", "s.json", "--raw", "r.csv", "--live"}, func(o *SleepOptions) {
			o.Priority, o.RTPrio, o.CPUs, o.JSON, o.Out, o.Raw, o.Live = "realtime", 90, "1", true, "s.json", "r.csv", true
			o.Samples = 0 // --live alone runs until Ctrl-C
		}},
		{[]string{"--live", "--samples", "50"}, func(o *SleepOptions) { o.Live, o.Samples = true, 50 }},
		{[]string{"--resolution", "1ms"}, func(o *SleepOptions) { o.Resolution = time.Millisecond }},
	} {
		want := base
		c.want(&want)
		var got *SleepOptions
		called := false
		runSeam(t, newSleepCmd(io, func(o *SleepOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.changed, got.probe = nil, nil, probe.SleepOptions{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--samples", "-1"},
		{"--method", "no-such-method"},
		{"--rtprio", "100"},
		{"--priority", "sometimes"},
		{"--cpus", "0-1"},
		{"--resolution", "1h"},
	} {
		called := false
		runSeamRefused(t, newSleepCmd(seamIO(), func(*SleepOptions) error { called = true; return nil }), args, &called)
	}
}

func TestWakeFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := WakeOptions{IO: io, Interval: time.Millisecond, Duration: 10 * time.Second, Threads: 1, DMALatency: -1, HistMaxUs: 1000, Priority: "normal", RTPrio: 80}
	for _, c := range []struct {
		args       []string
		want       func(o *WakeOptions)
		threadsSet bool
	}{
		{nil, func(*WakeOptions) {}, false},
		{[]string{"--interval", "2ms", "--loops", "2000", "--threads", "2"}, func(o *WakeOptions) {
			o.Interval, o.Loops, o.Threads = 2*time.Millisecond, 2000, 2
		}, true},
		{[]string{"--cpus", "0-1", "--rtprio", "80", "--mlock", "--dma-latency", "0", "--histfile", "h.txt", "--hist-max", "500"}, func(o *WakeOptions) {
			o.CPUs, o.RTPrio, o.Mlock, o.DMALatency, o.HistFile, o.HistMaxUs = "0-1", 80, true, 0, "h.txt", 500
		}, false},
	} {
		want := base
		c.want(&want)
		want.threadsSet = c.threadsSet
		var got *WakeOptions
		called := false
		runSeam(t, newWakeCmd(io, func(o *WakeOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.changed, got.probe = nil, nil, probe.WakeOptions{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--dma-latency", "-2"},
		{"--threads", "0"},
		{"--threads", "2", "--cpus", "0"},
		{"--hist-max", "0"},
		{"--loops", "-1"},
		{"--duration", "1ms", "--interval", "2ms"},
		{"--explain-above", "-1ms"},
		{"--rtprio", "100"},
	} {
		called := false
		runSeamRefused(t, newWakeCmd(seamIO(), func(*WakeOptions) error { called = true; return nil }), args, &called)
	}
}

func TestKnobSetFlagsToOptions(t *testing.T) {
	io := seamIO()
	for _, c := range []struct {
		args []string
		want KnobSetOptions
	}{
		{[]string{"win32-priority-separation", "0x26", "--dry-run"},
			KnobSetOptions{Name: "win32-priority-separation", Value: "0x26", DryRun: true}},
		{[]string{"rss", "*NumRssQueues=4", "--adapter", "7", "--json", "--state-dir", "/tmp/s"},
			KnobSetOptions{KnobOptions: KnobOptions{JSON: true, StateDir: "/tmp/s", Sel: knob.Selector{Adapter: "7"}}, Name: "rss", Value: "*NumRssQueues=4"}},
		{[]string{"qos-dscp", "46", "--app", "game.exe", "--protocol", "udp", "--no-nla", "--dry-run", "--format", "ps1"},
			KnobSetOptions{KnobOptions: KnobOptions{Sel: knob.Selector{App: "game.exe", Protocol: "udp", NoNLA: true}}, Name: "qos-dscp", Value: "46", DryRun: true, Format: "ps1"}},
		{[]string{"irq-affinity", "1", "--irq", "24"},
			KnobSetOptions{KnobOptions: KnobOptions{Sel: knob.Selector{IRQ: "24"}}, Name: "irq-affinity", Value: "1"}},
	} {
		want := c.want
		want.IO = io
		var got *KnobSetOptions
		called := false
		runSeam(t, newKnobSetCmd(io, func(o *KnobSetOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
}

func TestPcapTCPFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := PcapTCPOptions{IO: io, File: "c.pcap", Stream: -1, Top: 10}
	base.Dedup, base.DedupWindow = "auto", capture.DefaultDedupWindow
	for _, c := range []struct {
		args []string
		want func(o *PcapTCPOptions)
	}{
		{[]string{"c.pcap"}, func(*PcapTCPOptions) {}},
		{[]string{"c.pcap", "--stream", "0", "--events", "e.csv", "--plot", "t.svg", "--window-plot", "r.svg"}, func(o *PcapTCPOptions) {
			o.Stream, o.Events, o.Plot, o.WindowPlot = 0, "e.csv", "t.svg", "r.svg"
		}},
		{[]string{"--filter", "port 443", "--json", "--top", "0", "--dedup", "off", "c.pcap"}, func(o *PcapTCPOptions) {
			o.Filter, o.JSON, o.Top, o.Dedup = "port 443", true, 0, "off"
		}},
	} {
		want := base
		c.want(&want)
		var got *PcapTCPOptions
		called := false
		runSeam(t, newPcapTCPCmd(io, func(o *PcapTCPOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.filter, got.dedup = nil, nil, ""
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"c.pcap", "--top", "-1"},
		{"c.pcap", "--plot", "t.bmp"},
		{"c.pcap", "--window-plot", "r.txt"},
		{"c.pcap", "--filter", "port"},
		{"c.pcap", "--dedup", "sometimes"},
	} {
		called := false
		runSeamRefused(t, newPcapTCPCmd(seamIO(), func(*PcapTCPOptions) error { called = true; return nil }), args, &called)
	}
}

func TestPcapDSCPFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := PcapDSCPOptions{IO: io, File: "c.pcap"}
	base.Dedup, base.DedupWindow = "auto", capture.DefaultDedupWindow
	for _, c := range []struct {
		args []string
		want func(o *PcapDSCPOptions)
	}{
		{[]string{"c.pcap"}, func(*PcapDSCPOptions) {}},
		{[]string{"c.pcap", "--filter", "udp port 3074", "--expect", "EF", "--json", "--dedup", "on", "--dedup-window", "2ms"}, func(o *PcapDSCPOptions) {
			o.Filter, o.Expect, o.JSON, o.Dedup, o.DedupWindow = "udp port 3074", "EF", true, "on", 2*time.Millisecond
		}},
	} {
		want := base
		c.want(&want)
		var got *PcapDSCPOptions
		called := false
		runSeam(t, newPcapDSCPCmd(io, func(o *PcapDSCPOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.filter, got.dedup = nil, nil, ""
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"c.pcap", "--expect", "64"},
		{"c.pcap", "--expect", "NOPE"},
		{"c.pcap", "--filter", "host"},
		{"c.pcap", "--dedup", "maybe"},
	} {
		called := false
		runSeamRefused(t, newPcapDSCPCmd(seamIO(), func(*PcapDSCPOptions) error { called = true; return nil }), args, &called)
	}
}

func TestNetUDPFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := NetUDPOptions{IO: io, To: "127.0.0.1:7", Profile: "game", Duration: 10 * time.Second, DSCP: -1, Drain: time.Second, Priority: "normal", RTPrio: 80}
	for _, c := range []struct {
		args []string
		want func(o *NetUDPOptions)
	}{
		{[]string{"--to", "127.0.0.1:7"}, func(*NetUDPOptions) {}},
		{[]string{"--to", "127.0.0.1:7", "--profile", "voice", "--rate", "1000", "--size", "200", "--count", "50", "--dscp", "46", "--drain", "2s", "--json", "-o", "u.json"}, func(o *NetUDPOptions) {
			o.Profile, o.Rate, o.Size, o.Count, o.DSCP, o.Drain, o.JSON, o.Out = "voice", 1000, 200, 50, 46, 2*time.Second, true, "u.json"
			o.rateSet, o.sizeSet = true, true
		}},
		{[]string{"--to", "127.0.0.1:7", "--priority", "realtime", "--rtprio", "70", "--cpu", "0"}, func(o *NetUDPOptions) {
			o.Priority, o.RTPrio, o.CPUs = "realtime", 70, "0"
		}},
	} {
		want := base
		c.want(&want)
		var got *NetUDPOptions
		called := false
		runSeam(t, newNetUDPCmd(io, func(o *NetUDPOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.changed, got.probe, got.profile = nil, nil, netload.UDPOptions{}, netload.Profile{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		nil, // --to is required
		{"--to", "127.0.0.1:7", "--profile", "opera"},
		{"--to", "127.0.0.1:7", "--rate", "0"},
		{"--to", "127.0.0.1:7", "--size", "1"},
		{"--to", "127.0.0.1:7", "--count", "-1"},
		{"--to", "127.0.0.1:7", "--dscp", "64"},
		{"--to", "127.0.0.1:7", "--rtprio", "100"},
	} {
		called := false
		runSeamRefused(t, newNetUDPCmd(seamIO(), func(*NetUDPOptions) error { called = true; return nil }), args, &called)
	}
}

func TestNetTCPFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := NetTCPOptions{IO: io, To: "127.0.0.1:9", Size: "10MB", SampleEvery: time.Millisecond, Timeout: 2 * time.Minute}
	for _, c := range []struct {
		args []string
		want func(o *NetTCPOptions)
	}{
		{[]string{"--to", "127.0.0.1:9"}, func(*NetTCPOptions) {}},
		{[]string{"--to", "127.0.0.1:9", "--size", "1GB", "--sample-every", "0", "--timeout", "5s", "--csv", "t.csv", "--plot", "t.svg", "--json", "-o", "t.json", "--etw"}, func(o *NetTCPOptions) {
			o.Size, o.SampleEvery, o.Timeout, o.CSV, o.Plot, o.JSON, o.Out, o.ETW = "1GB", 0, 5*time.Second, "t.csv", "t.svg", true, "t.json", true
		}},
	} {
		want := base
		c.want(&want)
		var got *NetTCPOptions
		called := false
		runSeam(t, newNetTCPCmd(io, func(o *NetTCPOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.probe = nil, netload.TCPOptions{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		nil, // --to is required
		{"--to", "127.0.0.1:9", "--size", "lots"},
		{"--to", "127.0.0.1:9", "--size", "0"},
		{"--to", "127.0.0.1:9", "--sample-every", "10us"},
		{"--to", "127.0.0.1:9", "--plot", "t.gif"},
	} {
		called := false
		runSeamRefused(t, newNetTCPCmd(seamIO(), func(*NetTCPOptions) error { called = true; return nil }), args, &called)
	}
}

func TestNetServeFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := NetServeOptions{IO: io, Listen: "127.0.0.1", EchoPort: 7, DiscardPort: 9, SinkPort: 9009, Duration: time.Hour,
		EchoRate: netload.DefaultEchoRate, MaxConns: netload.DefaultMaxConns, MaxPerPeer: netload.DefaultMaxPerPeer,
		MaxPerNet: netload.DefaultMaxPerNet, IdleTimeout: time.Duration(netload.DefaultIdleTimeout)}
	for _, c := range []struct {
		args []string
		want func(o *NetServeOptions)
	}{
		{nil, func(*NetServeOptions) {}},
		{[]string{"--listen", "0.0.0.0", "--echo-port", "7007", "--discard-port", "-1", "--sink-port", "0", "--duration", "0", "--json", "--quiet",
			"--echo-rate", "50", "--max-conns", "8", "--max-per-peer", "2", "--max-per-net", "4", "--idle-timeout", "5s"}, func(o *NetServeOptions) {
			o.Listen, o.EchoPort, o.DiscardPort, o.SinkPort, o.Duration, o.JSON, o.Quiet = "0.0.0.0", 7007, -1, 0, 0, true, true
			o.EchoRate, o.MaxConns, o.MaxPerPeer, o.MaxPerNet, o.IdleTimeout = 50, 8, 2, 4, 5*time.Second
		}},
	} {
		want := base
		c.want(&want)
		var got *NetServeOptions
		called := false
		runSeam(t, newNetServeCmd(io, func(o *NetServeOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--echo-rate", "0"},
		{"--max-conns", "0"},
		{"--max-per-peer", "-1"},
		{"--max-per-net", "0"},
	} {
		called := false
		runSeamRefused(t, newNetServeCmd(seamIO(), func(*NetServeOptions) error { called = true; return nil }), args, &called)
	}
}

func TestNetRSSFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := NetRSSOptions{IO: io, EchoPort: 7, Duration: 5 * time.Second, Share: 0.05}
	for _, c := range []struct {
		args []string
		want func(o *NetRSSOptions)
	}{
		{nil, func(*NetRSSOptions) {}},
		{[]string{"--peer", "192.0.2.10", "--echo-port", "7007", "--duration", "10s", "--share", "0.1", "--plot", "rss.svg", "--json", "-o", "r.json"}, func(o *NetRSSOptions) {
			o.Peer, o.EchoPort, o.Duration, o.Share, o.Plot, o.JSON, o.Out = "192.0.2.10", 7007, 10*time.Second, 0.1, "rss.svg", true, "r.json"
		}},
	} {
		want := base
		c.want(&want)
		var got *NetRSSOptions
		called := false
		runSeam(t, newNetRSSCmd(io, func(o *NetRSSOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings, got.probe = nil, netload.RSSOptions{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--echo-port", "0"},
		{"--echo-port", "70000"},
		{"--share", "2"},
		{"--plot", "rss.jpg"},
	} {
		called := false
		runSeamRefused(t, newNetRSSCmd(seamIO(), func(*NetRSSOptions) error { called = true; return nil }), args, &called)
	}
}

func TestTimerFlagsToOptions(t *testing.T) {
	io := seamIO()
	var st *TimerStatusOptions
	called := false
	runSeam(t, newTimerStatusCmd(io, func(o *TimerStatusOptions) error { st, called = o, true; return nil }), []string{"--json"}, &called)
	if st.settings = nil; !reflect.DeepEqual(*st, TimerStatusOptions{IO: io, JSON: true}) {
		t.Errorf("timer status --json: got %+v", *st)
	}

	for _, c := range []struct {
		args []string
		want TimerSetOptions
	}{
		{[]string{"0.5ms"}, TimerSetOptions{Value: 500 * time.Microsecond}},
		{[]string{"1ms", "--for", "60s", "--json"}, TimerSetOptions{Value: time.Millisecond, For: time.Minute, JSON: true}},
		{[]string{"1ms", "--", "sleep", "1"}, TimerSetOptions{Value: time.Millisecond, Command: []string{"sleep", "1"}}},
	} {
		want := c.want
		want.IO = io
		var got *TimerSetOptions
		called := false
		runSeam(t, newTimerSetCmd(io, func(o *TimerSetOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"soon"},
		{"1h"}, // outside the range any OS grants
		{"1ms", "sleep"},
		{"1ms", "--"},
	} {
		called := false
		runSeamRefused(t, newTimerSetCmd(seamIO(), func(*TimerSetOptions) error { called = true; return nil }), args, &called)
	}

	for _, c := range []struct {
		args []string
		want TimerWhoOptions
	}{
		{nil, TimerWhoOptions{Seconds: timer.WhoDefaultSeconds}},
		{[]string{"--duration", "30s", "--json", "-o", "w.json"}, TimerWhoOptions{Seconds: 30, JSON: true, Out: "w.json"}},
		{[]string{"--report", "energy.html"}, TimerWhoOptions{Seconds: timer.WhoDefaultSeconds, Report: "energy.html"}},
	} {
		want := c.want
		want.IO = io
		var got *TimerWhoOptions
		called := false
		runSeam(t, newTimerWhoCmd(io, func(o *TimerWhoOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	called = false
	runSeamRefused(t, newTimerWhoCmd(seamIO(), func(*TimerWhoOptions) error { called = true; return nil }), []string{"--duration", "100h"}, &called)
}

func TestSweepFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := SweepOptions{IO: io, From: sweep.DefaultFrom, To: sweep.DefaultTo, Step: sweep.DefaultStep, PerDecade: sweep.DefaultPerDecade,
		Reference: sweep.DefaultReference, Samples: 50, Duration: time.Millisecond, Method: probe.SleepMethods()[0], Gap: 2 * time.Millisecond,
		Settle: sweep.DefaultSettle, Order: "random", Repeat: 1, Mode: "inprocess", RankBy: "mean", Priority: "normal", RTPrio: 80}
	for _, c := range []struct {
		args []string
		want func(o *SweepOptions)
	}{
		{nil, func(*SweepOptions) {}},
		{[]string{"--from", "0.5ms", "--to", "0.52ms", "--step", "0.01ms", "--samples", "200", "--load", "2", "--csv", "s.csv", "--plot", "s.svg", "--dry-run"}, func(o *SweepOptions) {
			o.From, o.To, o.Step, o.Samples, o.Load, o.CSV, o.Plot, o.DryRun = 500*time.Microsecond, 520*time.Microsecond, 10*time.Microsecond, 200, 2, "s.csv", "s.svg", true
			o.stepSet = true
		}},
		{[]string{"--from", "1us", "--to", "100us", "--steps-per-decade", "4", "--order", "ascending", "--repeat", "2", "--seed", "7", "--rank-by", "p99", "--json"}, func(o *SweepOptions) {
			o.From, o.To, o.PerDecade, o.Order, o.Repeat, o.Seed, o.RankBy, o.JSON = time.Microsecond, 100*time.Microsecond, 4, "ascending", 2, 7, "p99", true
			o.perDecadeSet = true
		}},
	} {
		want := base
		c.want(&want)
		var got *SweepOptions
		called := false
		runSeam(t, newSweepCmd(io, func(o *SweepOptions) error { got, called = o, true; return nil }), c.args, &called)
		if got.plan == nil {
			t.Errorf("%v: no plan", c.args)
		}
		got.settings, got.changed, got.plan = nil, nil, nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	// A seed given is used as given, 0 included, as try's and compare's
	// are; without --seed the plan draws one.
	for _, c := range []struct {
		args  []string
		fixed bool
	}{{[]string{"--seed", "0"}, true}, {[]string{"--seed", "7"}, true}, {nil, false}} {
		var got *SweepOptions
		called := false
		runSeam(t, newSweepCmd(seamIO(), func(o *SweepOptions) error { got, called = o, true; return nil }), c.args, &called)
		if c.fixed && got.plan.opts.Seed != got.Seed || !c.fixed && got.plan.opts.Seed == 0 {
			t.Errorf("%v: the plan's seed is %d", c.args, got.plan.opts.Seed)
		}
	}
	for _, args := range [][]string{
		{"--step", "0.1ms", "--steps-per-decade", "4"},
		{"--steps-per-decade", "0"},
		{"--order", "sideways"},
		{"--rank-by", "median-ish"},
		{"--mode", "elsewhere"},
		{"--plot", "s.bmp"},
		{"--from", "2ms", "--to", "1ms"},
	} {
		called := false
		runSeamRefused(t, newSweepCmd(seamIO(), func(*SweepOptions) error { called = true; return nil }), args, &called)
	}
}

func TestTryFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := TryOptions{IO: io, Knob: "timer-slack", Values: []string{"1us"}, Probe: try.ProbeSleep, Blocks: try.DefaultBlocks,
		BlockDuration: time.Second, Settle: try.DefaultSettle, Keep: try.KeepNone, Duration: time.Millisecond, Gap: defaultSleepGap,
		Method: probe.SleepMethods()[0], Interval: time.Millisecond, Priority: "normal", RTPrio: 80, Profile: "game", Threshold: probe.DefaultNoiseThreshold}
	for _, c := range []struct {
		args []string
		want func(o *TryOptions)
	}{
		{[]string{"timer-slack", "1us"}, func(*TryOptions) {}},
		{[]string{"timer-slack", "1us", "2us", "--blocks", "12", "--by", "p99", "--seed", "3", "--settle", "2s", "--keep", "best", "--dry-run", "--html", "t.html"}, func(o *TryOptions) {
			o.Values, o.Blocks, o.By, o.Seed, o.Settle, o.Keep, o.DryRun, o.HTML = []string{"1us", "2us"}, 12, "p99", 3, 2*time.Second, "best", true, "t.html"
			o.bySet, o.seedSet, o.settleSet = true, true, true
		}},
		{[]string{"timer-slack", "1us", "--probe", "wake", "--interval", "2ms", "--cpus", "0"}, func(o *TryOptions) {
			o.Probe, o.Interval, o.CPUs, o.intervalSet = try.ProbeWake, 2*time.Millisecond, "0", true
		}},
		{[]string{"timer-slack", "1us", "--probe", "udp", "--to", "127.0.0.1:7", "--rate", "64", "--iface", "eth0"}, func(o *TryOptions) {
			o.Probe, o.To, o.Rate, o.toSet, o.rateSet = try.ProbeUDP, "127.0.0.1:7", 64, true, true
			o.Sel.Iface = "eth0"
		}},
		{[]string{"timer-slack", "1us", "--probe", "noise", "--cpus", "1", "--threshold", "5us", "--by", "rate"}, func(o *TryOptions) {
			o.Probe, o.CPUs, o.Threshold, o.thresholdSet, o.By, o.bySet = try.ProbeNoise, "1", 5*time.Microsecond, true, "rate", true
		}},
	} {
		want := base
		c.want(&want)
		var got *TryOptions
		called := false
		runSeam(t, newTryCmd(io, func(o *TryOptions) error { got, called = o, true; return nil }), c.args, &called)
		if got.try.Knob != got.Knob || !reflect.DeepEqual(got.try.Values, got.Values) {
			t.Errorf("%v: try.Options name %s %v", c.args, got.try.Knob, got.try.Values)
		}
		got.settings, got.changed, got.command, got.try = nil, nil, nil, try.Options{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"timer-slack", "1us", "--by", "stdev"},
		{"timer-slack", "1us", "--blocks", "0"},
		{"timer-slack", "1us", "--to", "127.0.0.1:7"}, // a udp flag with the sleep probe
		{"timer-slack", "1us", "--probe", "udp", "--to", "127.0.0.1:7", "--profile", "opera"},
		{"timer-slack", "1us", "--probe", "dpcisr", "--load", "ftp"},
		{"timer-slack", "1us", "--rtprio", "100"},
		{"timer-slack", "1us", "--threshold", "5us"}, // a noise flag with the sleep probe
		{"timer-slack", "1us", "--cpus", "0,1"},      // one measuring thread
	} {
		called := false
		runSeamRefused(t, newTryCmd(seamIO(), func(*TryOptions) error { called = true; return nil }), args, &called)
	}
	// The noise probe spins a thread on each CPU listed, in order, as
	// latlab noise reads the list.
	var got *TryOptions
	called := false
	runSeam(t, newTryCmd(seamIO(), func(o *TryOptions) error { got, called = o, true; return nil }), []string{"timer-slack", "1us", "--probe", "noise", "--cpus", "1,0"}, &called)
	if cpus := got.try.Probe.Noise.CPUs; !reflect.DeepEqual(cpus, []int{0, 1}) {
		t.Errorf("--probe noise --cpus 1,0: CPUs %v", cpus)
	}
}

func TestCrossprocFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := CrossprocOptions{IO: io, Periods: "1-15", Hold: 4 * time.Second, Settle: 100 * time.Millisecond, Duration: time.Millisecond, Method: probe.SleepMethods()[0]}
	for _, c := range []struct {
		args    []string
		want    func(o *CrossprocOptions)
		periods int
	}{
		{nil, func(*CrossprocOptions) {}, 15},
		{[]string{"--periods", "1,2,5ms,10", "--hold", "2s", "--settle", "0", "--sleep-length", "2ms", "--plot", "c.svg", "--json", "-o", "c.json"}, func(o *CrossprocOptions) {
			o.Periods, o.Hold, o.Settle, o.Duration, o.Plot, o.JSON, o.Out = "1,2,5ms,10", 2*time.Second, 0, 2*time.Millisecond, "c.svg", true, "c.json"
		}, 4},
	} {
		want := base
		c.want(&want)
		var got *CrossprocOptions
		called := false
		runSeam(t, newCrossprocCmd(io, func(o *CrossprocOptions) error { got, called = o, true; return nil }), c.args, &called)
		if len(got.periods) != c.periods {
			t.Errorf("%v: %d periods, want %d", c.args, len(got.periods), c.periods)
		}
		got.settings, got.periods = nil, nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--periods", "0-3"},
		{"--periods", "1-2000"},
		{"--hold", "1s", "--settle", "1s"},
		{"--method", "no-such-method"},
		{"--plot", "c.tiff"},
	} {
		called := false
		runSeamRefused(t, newCrossprocCmd(seamIO(), func(*CrossprocOptions) error { called = true; return nil }), args, &called)
	}
}

func TestCompareFlagsToOptions(t *testing.T) {
	io := seamIO()
	for _, c := range []struct {
		args []string
		want CompareOptions
	}{
		{[]string{"a.json", "b.json"}, CompareOptions{Files: []string{"a.json", "b.json"}, By: "p50", Seed: 1, Detect: 0.05}},
		{[]string{"a.json", "b.json", "c.json", "--by", "p99", "--seed", "9", "--detect", "0.1", "--expect-better", "c.json", "--json", "-o", "c.out"},
			CompareOptions{Files: []string{"a.json", "b.json", "c.json"}, By: "p99", Seed: 9, Detect: 0.1, ExpectBetter: "c.json", JSON: true, Out: "c.out", detectAsked: true}},
	} {
		want := c.want
		want.IO = io
		var got *CompareOptions
		called := false
		runSeam(t, newCompareCmd(io, func(o *CompareOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"a.json", "b.json", "--by", "stdev"},
		{"a.json", "b.json", "--by", "median-ish"},
		{"a.json", "b.json", "--detect", "0"},
	} {
		called := false
		runSeamRefused(t, newCompareCmd(seamIO(), func(*CompareOptions) error { called = true; return nil }), args, &called)
	}
}

func TestDoctorFlagsToOptions(t *testing.T) {
	io := seamIO()
	cases := []struct {
		args []string
		want DoctorOptions
	}{
		{nil, DoctorOptions{}},
		{[]string{"--quick", "--all", "--json", "-o", "d.json", "--html", "d.html", "--bundle", "d.zip"},
			DoctorOptions{Quick: true, All: true, JSON: true, Out: "d.json", HTML: "d.html", Bundle: "d.zip"}},
		{[]string{"--thorough"}, DoctorOptions{Thorough: true}},
	}
	if knob.HostOS == "linux" {
		cases = append(cases, struct {
			args []string
			want DoctorOptions
		}{[]string{"--against", "latency-performance", "--json"}, DoctorOptions{Against: "latency-performance", JSON: true}})
	}
	for _, c := range cases {
		want := c.want
		want.IO = io
		var got *DoctorOptions
		called := false
		runSeam(t, newDoctorCmd(io, func(o *DoctorOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--quick", "--thorough"},
		{"--against", "no-such-profile"},
		{"--against", "latency-performance", "--all"},
		{"--against", "latency-performance", "--quick"},
		{"--against", "active", "--all"},
		{"--against", "./my.conf", "--thorough"},
	} {
		called := false
		runSeamRefused(t, newDoctorCmd(seamIO(), func(*DoctorOptions) error { called = true; return nil }), args, &called)
	}
}

func TestDPCWatchFlagsToOptions(t *testing.T) {
	io := seamIO()
	for _, c := range []struct {
		args []string
		want DPCWatchOptions
		cpus []int
	}{
		{nil, DPCWatchOptions{}, nil},
		{[]string{"--duration", "30s", "--quiet", "--json", "-o", "w.json", "--html", "w.html", "--cpus", "0"},
			DPCWatchOptions{Seconds: 30, Quiet: true, JSON: true, Out: "w.json", HTML: "w.html", CPUs: "0"}, []int{0}},
	} {
		want := c.want
		want.IO = io
		var got *DPCWatchOptions
		called := false
		runSeam(t, newDPCWatchCmd(io, func(o *DPCWatchOptions) error { got, called = o, true; return nil }), c.args, &called)
		if !reflect.DeepEqual(got.cpus, c.cpus) {
			t.Errorf("%v: cpus %v, want %v", c.args, got.cpus, c.cpus)
		}
		got.settings, got.cpus = nil, nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--duration", "25h"},
		{"--cpus", "9999"},
		{"--cpus", "x"},
	} {
		called := false
		runSeamRefused(t, newDPCWatchCmd(seamIO(), func(*DPCWatchOptions) error { called = true; return nil }), args, &called)
	}
}

func TestIRQWatchFlagsToOptions(t *testing.T) {
	io := seamIO()
	self, err := os.Executable() // a command that exists on every OS
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want IRQWatchOptions
	}{
		{nil, IRQWatchOptions{Interval: time.Second}},
		{[]string{"--interval", "500ms", "--duration", "10s", "--all", "--quiet", "--plot", "i.svg", "--json", "-o", "i.json"},
			IRQWatchOptions{Interval: 500 * time.Millisecond, Duration: 10 * time.Second, All: true, Quiet: true, Plot: "i.svg", JSON: true, Out: "i.json"}},
		{[]string{"--during", "--", self, "-test.run=none"}, IRQWatchOptions{Interval: time.Second, During: true, Command: []string{self, "-test.run=none"}}},
	} {
		want := c.want
		want.IO = io
		var got *IRQWatchOptions
		called := false
		runSeam(t, newIRQWatchCmd(io, func(o *IRQWatchOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--during"},
		{"--", self},
		{"stray"},
		{"--during", "--", "no-such-command-latlab"},
		{"--plot", "i.pdf"},
	} {
		called := false
		runSeamRefused(t, newIRQWatchCmd(seamIO(), func(*IRQWatchOptions) error { called = true; return nil }), args, &called)
	}
}

func TestINFFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := INFOptions{IO: io, File: "e2f.inf", OS: "10.0.22631", Product: "workstation", Arch: "amd64"}
	dev := `PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03`
	for _, c := range []struct {
		args []string
		want func(o *INFOptions)
	}{
		{[]string{"e2f.inf"}, func(*INFOptions) {}},
		{[]string{"e2f.inf", "--device", dev, "--reg-out", "add.reg", "--os", "10.0.20348", "--product", "server", "--arch", "arm64", "--lang", "0407", "--json"}, func(o *INFOptions) {
			o.Device, o.RegOut, o.OS, o.Product, o.Arch, o.Lang, o.JSON = dev, "add.reg", "10.0.20348", "server", "arm64", "0407", true
		}},
	} {
		want := base
		c.want(&want)
		var got *INFOptions
		called := false
		runSeam(t, newINFCmd(io, func(o *INFOptions) error { got, called = o, true; return nil }), c.args, &called)
		got.settings = nil
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"e2f.inf", "--reg-out", "add.reg"},
		{"e2f.inf", "--product", "laptop"},
		{"e2f.inf", "--arch", "mips"},
		{"e2f.inf", "--os", "ten"},
	} {
		called := false
		runSeamRefused(t, newINFCmd(seamIO(), func(*INFOptions) error { called = true; return nil }), args, &called)
	}
}

func TestETLFlagsToOptions(t *testing.T) {
	io := seamIO()
	var got *ETLOptions
	called := false
	runSeam(t, newETLCmd(io, func(o *ETLOptions) error { got, called = o, true; return nil }), []string{"trace.etl", "--json"}, &called)
	if got.settings = nil; !reflect.DeepEqual(*got, ETLOptions{IO: io, File: "trace.etl", JSON: true}) {
		t.Errorf("got %+v", *got)
	}
}

func TestDPCISRFlagsToOptions(t *testing.T) {
	io := seamIO()
	var got *DPCISROptions
	called := false
	runSeam(t, newDPCISRCmd(io, func(o *DPCISROptions) error { got, called = o, true; return nil }), []string{"out.txt", "--module", "ndis.sys", "--json", "--html", "o.html"}, &called)
	if got.settings = nil; !reflect.DeepEqual(*got, DPCISROptions{IO: io, File: "out.txt", Module: "ndis.sys", JSON: true, HTML: "o.html"}) {
		t.Errorf("dpcisr: got %+v", *got)
	}

	var cmp *DPCISRCompareOptions
	called = false
	runSeam(t, newDPCISRCompareCmd(io, func(o *DPCISRCompareOptions) error { cmp, called = o, true; return nil }),
		[]string{"a.txt", "b.txt", "--labels", "Extreme,Off", "--module", "ndis.sys", "--plot", "cdf.svg", "--json"}, &called)
	want := DPCISRCompareOptions{IO: io, Files: []string{"a.txt", "b.txt"}, Labels: []string{"Extreme", "Off"}, Module: "ndis.sys", Plot: "cdf.svg", JSON: true}
	if cmp.settings = nil; !reflect.DeepEqual(*cmp, want) {
		t.Errorf("dpcisr compare:\n got %+v\nwant %+v", *cmp, want)
	}
	for _, args := range [][]string{
		{"a.txt", "b.txt", "--labels", "one"},
		{"a.txt", "b.txt", "--plot", "cdf.jpeg"},
	} {
		called := false
		runSeamRefused(t, newDPCISRCompareCmd(seamIO(), func(*DPCISRCompareOptions) error { called = true; return nil }), args, &called)
	}

	refused := [][]string{
		{"--duration", "0", "-o", "out.txt"},
		{"--duration", "30s"}, // no -o
		{"-o", "out.txt", "--result", "out.txt"},
	}
	if runtime.GOOS == "windows" {
		var capt *DPCISRCaptureOptions
		called = false
		runSeam(t, newDPCISRCaptureCmd(io, func(o *DPCISRCaptureOptions) error { capt, called = o, true; return nil }),
			[]string{"--duration", "60s", "-o", "load.txt", "--etl", "load.etl", "--result", "load.json", "--module", "ndis.sys", "--json"}, &called)
		want := DPCISRCaptureOptions{IO: io, Seconds: 60, Out: "load.txt", Etl: "load.etl", Result: "load.json", Module: "ndis.sys", JSON: true}
		if capt.settings = nil; !reflect.DeepEqual(*capt, want) {
			t.Errorf("dpcisr capture:\n got %+v\nwant %+v", *capt, want)
		}
	} else {
		// xperf is Windows': capturing is refused here before the hook.
		refused = append(refused, []string{"--duration", "60s", "-o", "load.txt"})
	}
	for _, args := range refused {
		called := false
		runSeamRefused(t, newDPCISRCaptureCmd(seamIO(), func(*DPCISRCaptureOptions) error { called = true; return nil }), args, &called)
	}
}

func TestExporterFlagsToOptions(t *testing.T) {
	io := seamIO()
	base := ExporterOptions{IO: io, Listen: exporter.DefaultListen, Interval: exporter.DefaultInterval, Duty: "2%", Probes: "wake,sleep",
		MaxConns: exporter.DefaultMaxConns, SettingsEvery: exporter.DefaultSettingsEvery}
	for _, c := range []struct {
		args []string
		want func(o *ExporterOptions)
	}{
		{nil, func(*ExporterOptions) {}},
		{[]string{"--listen", ":9977", "--duty", "1%", "--probes", "wake", "--cpus", "0", "--rtprio", "80", "--max-conns", "4", "--duration", "5s", "--settings-every", "90s"}, func(o *ExporterOptions) {
			o.Listen, o.Duty, o.Probes, o.CPUs, o.RTPrio, o.MaxConns, o.Duration, o.SettingsEvery = ":9977", "1%", "wake", "0", 80, 4, 5*time.Second, 90*time.Second
		}},
	} {
		want := base
		c.want(&want)
		var got *ExporterOptions
		called := false
		runSeam(t, newExporterCmd(io, func(o *ExporterOptions) error { got, called = o, true; return nil }), c.args, &called)
		if got.exporter.Listen != got.Listen {
			t.Errorf("%v: exporter options listen on %q", c.args, got.exporter.Listen)
		}
		got.exporter = exporter.Options{}
		if !reflect.DeepEqual(want, *got) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, want)
		}
	}
	for _, args := range [][]string{
		{"--listen", "nowhere"},
		{"--duty", "90%"},
		{"--probes", "ping"},
		{"--cpus", "0-1"},
		{"--tls-config", "no-such-web.yml"},
		{"--max-conns", "0"}, // net serve refuses it too; it meant 64 here
	} {
		called := false
		runSeamRefused(t, newExporterCmd(seamIO(), func(*ExporterOptions) error { called = true; return nil }), args, &called)
	}
}

func TestReportAndVersionFlagsToOptions(t *testing.T) {
	io := seamIO()
	var r *ReportOptions
	called := false
	runSeam(t, newReportCmd(io, func(o *ReportOptions) error { r, called = o, true; return nil }),
		[]string{"a.json", "b.json", "-o", "r.html", "--png", "plots", "--title", "before and after"}, &called)
	if want := (ReportOptions{IO: io, Files: []string{"a.json", "b.json"}, Out: "r.html", PNG: "plots", Title: "before and after"}); !reflect.DeepEqual(*r, want) {
		t.Errorf("report:\n got %+v\nwant %+v", *r, want)
	}
	// No file at all is refused with the arguments, before the run
	// function and before the guard of an existing report.html.
	dir := testutil.TempDir(t)
	existing := filepath.Join(dir, "report.html")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report"}, {"report", "-o", existing}} {
		called = false
		root := seamTree(io, newReportCmd(io, func(*ReportOptions) error { called = true; return nil }))
		runSeamRefused(t, root, args, &called)
		if code, errs := runTree(seamTree(io, newReportCmd(io, func(*ReportOptions) error { return nil })), args...); code != 2 ||
			!strings.Contains(errs, "report needs at least one result file") {
			t.Errorf("%v: exit %d %q, want the missing file named", args, code, errs)
		}
	}
	var v *VersionOptions
	called = false
	runSeam(t, newVersionCmd(io, func(o *VersionOptions) error { v, called = o, true; return nil }), []string{"--json"}, &called)
	if !reflect.DeepEqual(*v, VersionOptions{IO: io, JSON: true}) {
		t.Errorf("version: got %+v", *v)
	}
}

func TestUIFlagsToOptions(t *testing.T) {
	io := seamIO()
	dir := testutil.TempDir(t)
	var u *UIOptions
	called := false
	runSeam(t, newUICmd(io, func(o *UIOptions) error { u, called = o, true; return nil }),
		[]string{"--no-browser", "--duty", "1%", "--duration", "10m", "--record-dir", dir, "--no-dpc"}, &called)
	probe := exporter.Defaults()
	probe.Duty = 0.01
	if want := (UIOptions{IO: io, NoBrowser: true, Duty: "1%", Duration: 10 * time.Minute, RecordDir: dir, NoDPC: true, probe: probe}); !reflect.DeepEqual(*u, want) {
		t.Errorf("ui:\n got %+v\nwant %+v", *u, want)
	}
	for _, args := range [][]string{
		{"--duty", "90%"},
		{"--duty", "x"},
		{"--record-dir", filepath.Join(dir, "missing")},
	} {
		called := false
		runSeamRefused(t, newUICmd(seamIO(), func(*UIOptions) error { called = true; return nil }), args, &called)
	}
}

func TestKnobSubcommandsFlagsToOptions(t *testing.T) {
	io := seamIO()
	ko := KnobOptions{IO: io}

	var l *KnobListOptions
	called := false
	runSeam(t, newKnobListCmd(io, func(o *KnobListOptions) error { l, called = o, true; return nil }), []string{"--all", "--json"}, &called)
	if l.settings = nil; !reflect.DeepEqual(*l, KnobListOptions{KnobOptions: KnobOptions{IO: io, JSON: true}, All: true}) {
		t.Errorf("list: got %+v", *l)
	}

	var g *KnobGetOptions
	called = false
	runSeam(t, newKnobGetCmd(io, func(o *KnobGetOptions) error { g, called = o, true; return nil }), []string{"irq-affinity", "--irq", "24", "--cpu", "0-3"}, &called)
	if g.settings = nil; !reflect.DeepEqual(*g, KnobGetOptions{KnobOptions: KnobOptions{IO: io, Sel: knob.Selector{IRQ: "24", CPU: "0-3"}}, Name: "irq-affinity"}) {
		t.Errorf("get: got %+v", *g)
	}

	for _, c := range []struct {
		args []string
		want KnobExplainOptions
	}{
		{[]string{"win32-priority-separation", "0x26"}, KnobExplainOptions{KnobOptions: ko, Name: "win32-priority-separation", Value: "0x26",
			Tick: 15625 * time.Microsecond, Explain: knob.ExplainOptions{TickMs: 15.625}}},
		{[]string{"win32-priority-separation", "--find", "short,variable,3:1", "--table", "--server", "--tick", "1ms"}, KnobExplainOptions{KnobOptions: ko, Name: "win32-priority-separation",
			Tick: time.Millisecond, Explain: knob.ExplainOptions{TickMs: 1, Find: "short,variable,3:1", Table: true, Server: true}}},
	} {
		var x *KnobExplainOptions
		called := false
		runSeam(t, newKnobExplainCmd(io, func(o *KnobExplainOptions) error { x, called = o, true; return nil }), c.args, &called)
		if x.settings = nil; !reflect.DeepEqual(*x, c.want) {
			t.Errorf("explain %v:\n got %+v\nwant %+v", c.args, *x, c.want)
		}
	}

	for _, c := range []struct {
		args []string
		want KnobRevertOptions
	}{
		{[]string{"win32-priority-separation"}, KnobRevertOptions{KnobOptions: ko, Name: "win32-priority-separation"}},
		{[]string{"--all", "--dry-run", "--force", "--target", "eth0 rx-0", "--cpus", "0-3", "--state-dir", "/tmp/s", "--json"},
			KnobRevertOptions{KnobOptions: KnobOptions{IO: io, JSON: true, StateDir: "/tmp/s"}, All: true, DryRun: true, Force: true, Target: "eth0 rx-0", CPUs: "0-3"}},
	} {
		var r *KnobRevertOptions
		called := false
		runSeam(t, newKnobRevertCmd(io, func(o *KnobRevertOptions) error { r, called = o, true; return nil }), c.args, &called)
		if r.settings = nil; !reflect.DeepEqual(*r, c.want) {
			t.Errorf("revert %v:\n got %+v\nwant %+v", c.args, *r, c.want)
		}
	}

	var h *KnobOptions
	called = false
	runSeam(t, newKnobHistoryCmd(io, func(o *KnobOptions) error { h, called = o, true; return nil }), []string{"--state-dir", "/tmp/s"}, &called)
	if h.settings = nil; !reflect.DeepEqual(*h, KnobOptions{IO: io, StateDir: "/tmp/s"}) {
		t.Errorf("history: got %+v", *h)
	}

	var x *KnobExportOptions
	called = false
	runSeam(t, newKnobExportCmd(io, func(o *KnobExportOptions) error { x, called = o, true; return nil }), []string{"--undo", "--format", "ps1", "-o", "undo.ps1"}, &called)
	if x.settings = nil; !reflect.DeepEqual(*x, KnobExportOptions{KnobOptions: ko, Undo: true, Format: "ps1", Out: "undo.ps1"}) {
		t.Errorf("export: got %+v", *x)
	}
}

// The knob commands' flag rules that need nothing of the system refuse
// before the run function: --format without --dry-run or naming no
// script, a knob name with --all or neither, a bad --cpus list.
func TestKnobSubcommandsValidateFirst(t *testing.T) {
	for _, args := range [][]string{
		{"win32-priority-separation", "0x26", "--format", "reg"},
		{"win32-priority-separation", "0x26", "--dry-run", "--format", "bat"},
	} {
		called := false
		runSeamRefused(t, newKnobSetCmd(seamIO(), func(*KnobSetOptions) error { called = true; return nil }), args, &called)
	}
	for _, args := range [][]string{
		nil,
		{"win32-priority-separation", "--all"},
		{"--all", "--cpus", "x"},
	} {
		called := false
		runSeamRefused(t, newKnobRevertCmd(seamIO(), func(*KnobRevertOptions) error { called = true; return nil }), args, &called)
	}
	called := false
	runSeamRefused(t, newKnobExportCmd(seamIO(), func(*KnobExportOptions) error { called = true; return nil }), []string{"--format", "bat"}, &called)
}

// exporter install checks the exporter's flags before anything touches
// the service manager, on either OS.
func TestExporterInstallValidatesFirst(t *testing.T) {
	for _, args := range [][]string{
		{"exporter", "install", "--duty", "90%"},
		{"exporter", "install", "--listen", "nowhere"},
	} {
		code, _, errs := runCLI(t, args...)
		testutil.CheckBadExit(t, fmt.Sprint(args), code, errs, "invalid --")
	}
	called := false
	runSeam(t, newExporterUninstallCmd(seamIO(), func(*IO) error { called = true; return nil }), nil, &called)
}
