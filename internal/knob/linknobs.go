package knob

import (
	"strings"

	"github.com/latlab/latlab/internal/knob/backend"
)

// The Linux knobs: files under /proc and /sys (through the Files backend,
// so tests use a fixture tree) and ethtool coalescing, one knob per
// linknob_*.go file; this file holds what several of them share.

type linuxKnob struct{}

func (linuxKnob) OS() string { return "linux" }

func fileLoc(p string) backend.Loc { return backend.Loc{Backend: backend.BackendFile, Path: p} }

func readText(env *Env, l backend.Loc) (string, backend.Value, error) {
	v, err := env.read(l)
	if err != nil {
		return "", v, err
	}
	if v.IsAbsent() {
		return "", v, nil
	}
	return strings.TrimSpace(string(v.Data)), v, nil
}

func item(target string, l backend.Loc, v backend.Value, meaning string) Item {
	loc, raw := l, v
	return Item{Target: target, Loc: &loc, Raw: &raw, Value: v.String(), Meaning: meaning}
}
