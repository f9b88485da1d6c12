package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFrom(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"},
	}}
	for _, c := range []struct {
		name              string
		bi                *debug.BuildInfo
		ver, commit, date string
		want              Info
		short             string
	}{
		{"plain go build in a checkout", vcs, "", "", "",
			Info{Version: "dev", Commit: "0123456789abcdef0123", Dirty: true, Date: "2026-11-20T10:00:00Z", GoVersion: "go1.26.8"},
			"latlab dev (commit 0123456789ab, dirty)"},
		{"release build stamps win", vcs, "v1.2.3", "feedface", "2026-11-23T00:00:00Z",
			Info{Version: "1.2.3", Commit: "feedface", Dirty: true, Date: "2026-11-23T00:00:00Z", GoVersion: "go1.26.8"},
			"latlab 1.2.3 (commit feedface, dirty)"},
		{"go install of a tagged module", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}}, "", "", "",
			Info{Version: "v0.4.0", GoVersion: "go1.26.8"}, "latlab v0.4.0"},
		{"snapshot outside a checkout stamps nothing useful", &debug.BuildInfo{GoVersion: "go1.26.8"}, "0.0.0-SNAPSHOT-none", "none", "0001-01-01T00:00:00Z",
			Info{Version: "0.0.0-SNAPSHOT-none", GoVersion: "go1.26.8"}, "latlab 0.0.0-SNAPSHOT-none"},
		{"no build info", nil, "", "", "", Info{Version: "dev"}, "latlab dev"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := from(c.bi, c.ver, c.commit, c.date)
			got.Platform = ""
			if c.bi == nil {
				got.GoVersion = ""
			}
			if got != c.want {
				t.Errorf("from = %+v, want %+v", got, c.want)
			}
			if s := got.Short(); s != c.short {
				t.Errorf("Short = %q, want %q", s, c.short)
			}
		})
	}
}

func TestLongNamesEveryFact(t *testing.T) {
	l := Info{Version: "1.2.3", Commit: "abc", Dirty: true, Date: "d", GoVersion: "go1.26.8", Platform: "linux/amd64"}.Long()
	for _, w := range []string{"latlab 1.2.3\n", "commit:   abc (dirty)", "built:    d", "go:       go1.26.8", "platform: linux/amd64"} {
		if !strings.Contains(l, w) {
			t.Errorf("missing %q in\n%s", w, l)
		}
	}
}
