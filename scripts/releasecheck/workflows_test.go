package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v2"
)

// The workflows hold to least privilege (issue: a release job that ran
// the test suite with a write token and kept checkout credentials):
//   - every action from another repository is pinned by a full commit
//     SHA, with the version in a comment;
//   - every checkout drops its credentials (persist-credentials: false);
//   - no job that runs tests can write, and a job that can write runs no
//     tests and waits for one that does.

var workflowDir = filepath.Join("..", "..", ".github", "workflows")

type workflow struct {
	Permissions any            `yaml:"permissions"`
	Jobs        map[string]job `yaml:"jobs"`
}

type job struct {
	Permissions any    `yaml:"permissions"`
	Needs       any    `yaml:"needs"`
	Steps       []step `yaml:"steps"`
}

type step struct {
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

func workflows(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(workflowDir, "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows in %s: %v", workflowDir, err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = b
	}
	return m
}

var (
	usesLine = regexp.MustCompile(`^\s*(?:-\s+)?uses:\s*(\S+)\s*(.*)$`)
	pinned   = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	version  = regexp.MustCompile(`^#\s*v\d+(\.\d+)*$`)
)

func TestActionsPinnedBySHA(t *testing.T) {
	for name, b := range workflows(t) {
		for i, l := range strings.Split(string(b), "\n") {
			m := usesLine.FindStringSubmatch(l)
			if m == nil || strings.HasPrefix(m[1], "./") {
				continue
			}
			if !pinned.MatchString(m[1]) || !version.MatchString(m[2]) {
				t.Errorf("%s:%d: %s: want owner/repo@<full commit SHA> # vX.Y.Z", name, i+1, strings.TrimSpace(l))
			}
		}
	}
}

// writes reports whether a permissions value grants any write.
func writes(p any) bool {
	switch p := p.(type) {
	case string:
		return p == "write-all"
	case map[any]any:
		for _, v := range p {
			if v == "write" {
				return true
			}
		}
	}
	return false
}

func runsTests(j job) bool {
	for _, s := range j.Steps {
		if strings.Contains(s.Run, "scripts/test") || strings.Contains(s.Run, "go test") {
			return true
		}
	}
	return false
}

func TestLeastPrivilege(t *testing.T) {
	for name, b := range workflows(t) {
		var w workflow
		if err := yaml.Unmarshal(b, &w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.Permissions == nil {
			t.Errorf("%s: no top-level permissions: every job would get the repository's default token", name)
		}
		if writes(w.Permissions) {
			t.Errorf("%s: top-level permissions grant a write: grant it to the one job that needs it", name)
		}
		for jn, j := range w.Jobs {
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
					t.Errorf("%s: job %s: a checkout without persist-credentials: false", name, jn)
				}
			}
			perms := j.Permissions
			if perms == nil {
				perms = w.Permissions // a job without its own gets the workflow's
			}
			if !writes(perms) {
				continue
			}
			if runsTests(j) {
				t.Errorf("%s: job %s runs tests with a write token", name, jn)
			}
			if j.Needs == nil {
				t.Errorf("%s: job %s can write but needs no test job", name, jn)
			}
		}
	}
}

// The checks see what they are meant to: a job as the release workflow
// had it (tests run with contents: write) is caught.
func TestLeastPrivilegeCatchesOldRelease(t *testing.T) {
	old := job{
		Permissions: map[any]any{"contents": "write"},
		Steps:       []step{{Run: "bash scripts/test"}},
	}
	if !writes(old.Permissions) || !runsTests(old) {
		t.Fatal("the old release job is not seen as a test job with a write token")
	}
	if !usesLine.MatchString("      - uses: actions/checkout@v4") || pinned.MatchString("actions/checkout@v4") {
		t.Fatal("an action pinned by tag is not caught")
	}
}
