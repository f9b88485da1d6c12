package exporter

import (
	"context"
	"errors"
	"log/slog"
	"strings"
)

// ErrNoServiceManager is returned by the service functions on Linux: there
// the exporter runs under systemd from the unit file in the repository,
// which needs no install command.
var ErrNoServiceManager = errors.New("latlab exporter install/uninstall register a Windows service; on Linux install packaging/latlab-exporter.service with systemd (see docs/commands/exporter.md)")

// ServiceName is the Windows service's name and its event-log source.
const ServiceName = "latlab-exporter"

// Service is the identity of the exporter as an OS service.
type Service struct {
	Name        string
	DisplayName string
	Description string
}

// DefaultService is what `latlab exporter install` registers.
var DefaultService = Service{
	Name:        ServiceName,
	DisplayName: "latlab exporter",
	Description: "OS wake-up latency, timer resolution and latency settings as Prometheus metrics (latlab exporter).",
}

// ServiceArgs are the command-line arguments the service starts latlab
// with: the exporter command and the flags given to install, so the
// service runs what the user tried in the foreground.
func ServiceArgs(flags []string) []string {
	return append([]string{"exporter"}, flags...)
}

// RunFunc is the exporter's work under a service manager: run until ctx
// ends, logging to log.
type RunFunc func(ctx context.Context, log *slog.Logger) error

// eventWriter is the part of an event log the service logs through.
type eventWriter interface {
	Info(eid uint32, msg string) error
	Warning(eid uint32, msg string) error
	Error(eid uint32, msg string) error
}

// Event ids: one per level, as the EventCreate message file offers (any
// id from 1 to 1000 shows the message as given).
const (
	eventInfo    = 1
	eventWarning = 2
	eventError   = 3
)

// eventHandler is a slog handler that writes each record as one event:
// the message followed by its attributes as key=value.
type eventHandler struct {
	w     eventWriter
	min   slog.Level
	attrs []slog.Attr
}

func (h *eventHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *eventHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		b.WriteString(" ")
		b.WriteString(a.Key)
		b.WriteString("=")
		b.WriteString(a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	switch {
	case r.Level >= slog.LevelError:
		return h.w.Error(eventError, b.String())
	case r.Level >= slog.LevelWarn:
		return h.w.Warning(eventWarning, b.String())
	}
	return h.w.Info(eventInfo, b.String())
}

func (h *eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup is not needed by the exporter's logging; groups are flattened.
func (h *eventHandler) WithGroup(string) slog.Handler { return h }
