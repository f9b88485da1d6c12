package exporter

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

type fakeEvents struct{ got []string }

func (f *fakeEvents) Info(id uint32, m string) error    { return f.add("info", id, m) }
func (f *fakeEvents) Warning(id uint32, m string) error { return f.add("warning", id, m) }
func (f *fakeEvents) Error(id uint32, m string) error   { return f.add("error", id, m) }
func (f *fakeEvents) add(kind string, id uint32, m string) error {
	f.got = append(f.got, fmt.Sprintf("%s %d %s", kind, id, m))
	return nil
}

// Each log record is one event of the matching type, with its attributes.
func TestEventHandler(t *testing.T) {
	ev := &fakeEvents{}
	log := slog.New(&eventHandler{w: ev, min: slog.LevelInfo}).With("service", "latlab-exporter")
	log.Debug("not written")
	log.Info("latlab exporter started", "address", "127.0.0.1:9977")
	log.Warn("reading the settings failed", "err", "access denied")
	log.Error("latlab exporter failed", "err", "listen: in use")
	want := []string{
		"info 1 latlab exporter started service=latlab-exporter address=127.0.0.1:9977",
		"warning 2 reading the settings failed service=latlab-exporter err=access denied",
		"error 3 latlab exporter failed service=latlab-exporter err=listen: in use",
	}
	if strings.Join(ev.got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(ev.got, "\n"), strings.Join(want, "\n"))
	}
}

func TestServiceArgs(t *testing.T) {
	got := ServiceArgs([]string{"--listen=:9977", "--duty=1%"})
	if strings.Join(got, " ") != "exporter --listen=:9977 --duty=1%" {
		t.Fatalf("%q", got)
	}
}
