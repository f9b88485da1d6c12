// Package buildinfo says which latlab this is: the version stamped by the
// release build, the VCS commit and whether the tree was dirty, the Go
// version and the platform. Every document's "tool" and `latlab version`
// read it, so a result can always be traced to the binary that wrote it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the release build through -ldflags "-X ...=..." (see
// .goreleaser.yaml); empty in a plain `go build`.
var (
	version string
	commit  string
	date    string
)

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`              // release version, module version, or "dev"
	Commit    string `json:"commit,omitempty"`     // VCS revision
	Dirty     bool   `json:"dirty,omitempty"`      // built from a tree with uncommitted changes
	Date      string `json:"date,omitempty"`       // release build date, or the commit's time
	GoVersion string `json:"go_version,omitempty"` // toolchain that built it
	Platform  string `json:"platform,omitempty"`   // GOOS/GOARCH
}

// Get returns the running binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return from(bi, version, commit, date)
}

// from combines the stamped values with the build info the Go toolchain
// records (module version, vcs.revision, vcs.modified, vcs.time); a
// stamped value wins, since a release build may run where the VCS data
// is missing (-trimpath builds from a source archive).
func from(bi *debug.BuildInfo, stampVersion, stampCommit, stampDate string) Info {
	in := Info{Version: "dev", Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		in.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.modified":
				in.Dirty = s.Value == "true"
			case "vcs.time":
				in.Date = s.Value
			}
		}
	}
	if in.GoVersion == "" {
		in.GoVersion = runtime.Version()
	}
	if stampVersion != "" {
		in.Version = strings.TrimPrefix(stampVersion, "v")
	}
	// A snapshot built outside a git checkout stamps "none" and the zero
	// time: no information, so the build info's values stay.
	if stampCommit != "" && stampCommit != "none" {
		in.Commit = stampCommit
	}
	if stampDate != "" && !strings.HasPrefix(stampDate, "0001-01-01") {
		in.Date = stampDate
	}
	return in
}

// Short is the one-line form: "latlab 1.2.3 (commit abc1234, dirty)".
func (in Info) Short() string {
	s := "latlab " + in.Version
	var extra []string
	if in.Commit != "" {
		c := in.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		extra = append(extra, "commit "+c)
	}
	if in.Dirty {
		extra = append(extra, "dirty")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// Long is what `latlab version` prints: one fact a line.
func (in Info) Long() string {
	var b strings.Builder
	fmt.Fprintf(&b, "latlab %s\n", in.Version)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "  %-9s %s\n", k+":", v)
		}
	}
	c := in.Commit
	if in.Dirty {
		c += " (dirty)"
	}
	row("commit", c)
	row("built", in.Date)
	row("go", in.GoVersion)
	row("platform", in.Platform)
	return b.String()
}
