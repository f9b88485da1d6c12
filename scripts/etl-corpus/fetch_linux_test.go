package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A repository served over file:// as GitHub serves one (partial clones,
// a commit fetched by its id): a plain trace at one commit, a zip
// archive's member at a later one (the plain trace then changed), a row
// whose SHA-256 is wrong and one the repository keeps.
func TestFetchAll(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: it fetches the corpus")
	}
	root := t.TempDir()
	src := filepath.Join(root, "owner", "name")
	if err := os.MkdirAll(filepath.Join(src, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, src, "init", "-q")
	run(t, src, "config", "uploadpack.allowFilter", "true")
	run(t, src, "config", "uploadpack.allowAnySHA1InWant", "true")
	plain := []byte("plain trace, first version")
	os.WriteFile(filepath.Join(src, "tests", "a.etl"), plain, 0o644)
	run(t, src, "add", ".")
	run(t, src, "commit", "-q", "-m", "one")
	first := run(t, src, "rev-parse", "HEAD")

	member := bytes.Repeat([]byte("member trace "), 100)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("dir/m.etl")
	f.Write(member)
	zw.Close()
	os.WriteFile(filepath.Join(src, "tests", "b.zip"), zb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(src, "tests", "a.etl"), []byte("changed"), 0o644)
	run(t, src, "add", ".")
	run(t, src, "commit", "-q", "-m", "two")
	second := run(t, src, "rev-parse", "HEAD")

	kept := filepath.Join(root, "kept")
	os.MkdirAll(kept, 0o755)
	os.WriteFile(filepath.Join(kept, "k.etl"), []byte("kept"), 0o644)
	rows := []row{
		{file: "a.etl", repo: "owner/name", commit: first, path: "tests/a.etl", sha256: sum(plain), bytes: int64(len(plain))},
		{file: "m.etl", repo: "owner/name", commit: second, path: "tests/b.zip!dir/m.etl", sha256: sum(member), bytes: int64(len(member))},
		{file: "bad.etl", repo: "owner/name", commit: second, path: "tests/a.etl", sha256: sum(plain), bytes: 7},
		{file: "k.etl", repo: "owner/gone", commit: first, path: "k.etl", sha256: sum([]byte("kept")), bytes: 4},
	}
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	var log bytes.Buffer
	if failed := fetchAll(&log, rows, out, kept, "file://"+root); failed != 1 {
		t.Fatalf("%d failed, want 1 (bad.etl):\n%s", failed, log.String())
	}
	for name, want := range map[string][]byte{"a.etl": plain, "m.etl": member} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "bad.etl")); err == nil {
		t.Error("bad.etl written despite its SHA-256")
	}
	for _, want := range []string{"fetched  a.etl", "fetched  m.etl", "FAIL     bad.etl: SHA-256 ", "kept     k.etl"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in\n%s", want, log.String())
		}
	}
	// Run again: every trace is there, nothing is fetched.
	log.Reset()
	if failed := fetchAll(&log, rows[:2], out, kept, "file:///nonexistent"); failed != 0 || strings.Count(log.String(), "present") != 2 {
		t.Errorf("second run: %d failed\n%s", failed, log.String())
	}
}

func TestReadManifest(t *testing.T) {
	rows, err := readManifest("../../internal/etl/testdata/corpus.tsv")
	if err != nil || len(rows) < 20 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	bad := filepath.Join(t.TempDir(), "m.tsv")
	c := strings.Repeat("ab", 20)
	for _, line := range []string{
		"../x.etl\to/n\t" + c + "\tp\tMIT\tab\t10\tholds",
		"x.etl\to/n\t" + c + "\tp\tMIT\tab\t-1\tholds",
		"x.etl\to/n\t" + c + "\tp\tMIT\tab\t10",
		"x.etl\to/n\t--upload-pack=touch /tmp/x\tp\tMIT\tab\t10\tholds",
		"x.etl\t-o/n\t" + c + "\tp\tMIT\tab\t10\tholds",
		"x.etl\to/n\t" + c + "\t--output=x\tMIT\tab\t10\tholds",
	} {
		os.WriteFile(bad, []byte(line+"\n"), 0o644)
		if _, err := readManifest(bad); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
}

// A member of a 7z archive, which the 7z command extracts; a member the
// archive does not hold fails.
func TestFetch7z(t *testing.T) {
	testutil.NeedTool(t, "git")
	testutil.NeedTool(t, "7z")
	root := t.TempDir()
	src := filepath.Join(root, "owner", "name")
	if err := os.MkdirAll(filepath.Join(src, "data", "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, src, "init", "-q")
	run(t, src, "config", "uploadpack.allowFilter", "true")
	run(t, src, "config", "uploadpack.allowAnySHA1InWant", "true")
	member := bytes.Repeat([]byte("7z member trace "), 200)
	if err := os.WriteFile(filepath.Join(src, "data", "in", "t.etl"), member, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("7z", "a", "-bd", "../t.7z", "t.etl")
	cmd.Dir = filepath.Join(src, "data", "in")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7z a: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(src, "data", "in"))
	run(t, src, "add", ".")
	run(t, src, "commit", "-q", "-m", "one")
	commit := run(t, src, "rev-parse", "HEAD")
	rows := []row{
		{file: "s.etl", repo: "owner/name", commit: commit, path: "data/t.7z!t.etl", sha256: sum(member), bytes: int64(len(member))},
		{file: "none.etl", repo: "owner/name", commit: commit, path: "data/t.7z!other.etl", sha256: sum(member), bytes: int64(len(member))},
	}
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	var log bytes.Buffer
	if failed := fetchAll(&log, rows, out, filepath.Join(root, "kept"), "file://"+root); failed != 1 {
		t.Fatalf("%d failed, want 1 (none.etl):\n%s", failed, log.String())
	}
	if b, err := os.ReadFile(filepath.Join(out, "s.etl")); err != nil || !bytes.Equal(b, member) {
		t.Errorf("s.etl: %d bytes, %v", len(b), err)
	}
	for _, want := range []string{"fetched  s.etl", "FAIL     none.etl: data/t.7z: member other.etl is 0 bytes"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in\n%s", want, log.String())
		}
	}
}
