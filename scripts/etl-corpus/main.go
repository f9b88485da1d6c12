// Command etl-corpus fetches the real .etl traces that
// internal/etl/testdata/corpus.tsv lists and this repository does not keep
// (no licence stated, or a licence that does not let them be copied;
// internal/etl/testdata/corpus keeps the others) from their public
// repositories, each at the commit the manifest names, into a directory
// that scripts/verify-etl reads ($LATLAB_ETL_CORPUS).
//
// A repository is fetched once, at depth 1 and without blobs (git fetches
// the one it needs); "ARCHIVE!MEMBER" paths are members of a zip archive,
// or of a 7z archive (ARCHIVE ends in .7z), which the 7z command of
// p7zip (apt install p7zip-full) extracts.
// Each trace must have the manifest's size and SHA-256, or it is not
// written. A trace already there with its SHA-256 is left alone.
//
// Usage (from the repository root; needs git and access to github.com):
//
//	go run ./scripts/etl-corpus [-o DIR] [-base https://github.com]
//
// DIR defaults to $LATLAB_ETL_CORPUS, else ../shared/fixtures/etl-corpus.
// It prints a line per trace and exits 1 if any could not be fetched.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// row is a trace of the manifest.
type row struct {
	file, repo, commit, path, sha256 string
	bytes                            int64
}

// The manifest's words become git's arguments: a repository or commit
// that began with "-" would be read as an option.
var (
	repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// maxTrace bounds a trace, and an archive that holds one: the manifest's
// largest is 27 MB.
const maxTrace = 256 << 20

func main() {
	out := flag.String("o", "", "the directory to write to (default $LATLAB_ETL_CORPUS, else ../shared/fixtures/etl-corpus)")
	base := flag.String("base", "https://github.com", "where the repositories are: BASE/OWNER/NAME")
	manifest := flag.String("manifest", "internal/etl/testdata/corpus.tsv", "the corpus's manifest")
	kept := flag.String("kept", "internal/etl/testdata/corpus", "the traces this repository keeps (not fetched)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "etl-corpus: unexpected argument %q: it takes only flags (-o DIR, -base URL)\n", flag.Arg(0))
		os.Exit(2)
	}
	dir := *out
	if dir == "" {
		dir = os.Getenv("LATLAB_ETL_CORPUS")
	}
	if dir == "" {
		dir = "../shared/fixtures/etl-corpus"
	}
	rows, err := readManifest(*manifest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etl-corpus:", err)
		os.Exit(2)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "etl-corpus:", err)
		os.Exit(1)
	}
	if failed := fetchAll(os.Stdout, rows, dir, *kept, *base); failed > 0 {
		fmt.Printf("%d of %d traces not fetched\n", failed, len(rows))
		os.Exit(1)
	}
}

func readManifest(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "file\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 8 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 8 (file, repository, commit, path, licence, sha256, bytes, holds)", path, n, len(c))
		}
		size, err := strconv.ParseInt(c[6], 10, 64)
		if err != nil || size <= 0 || size > maxTrace {
			return nil, fmt.Errorf("%s:%d: size %q is not a number of bytes up to %d", path, n, c[6], maxTrace)
		}
		if strings.ContainsAny(c[0], `/\`) || c[0] == ".." || !strings.HasSuffix(c[0], ".etl") {
			return nil, fmt.Errorf("%s:%d: file %q is not a plain .etl file name", path, n, c[0])
		}
		if !repoName.MatchString(c[1]) || !commitID.MatchString(c[2]) || strings.HasPrefix(c[3], "-") || c[3] == "" {
			return nil, fmt.Errorf("%s:%d: want a repository OWNER/NAME, a commit of 40 hex digits and a path, not %q %q %q", path, n, c[1], c[2], c[3])
		}
		rows = append(rows, row{file: c[0], repo: c[1], commit: c[2], path: c[3], sha256: c[5], bytes: size})
	}
	return rows, sc.Err()
}

// fetchAll fetches every trace that neither kept nor dir holds, and
// returns how many could not be.
func fetchAll(w io.Writer, rows []row, dir, kept, base string) (failed int) {
	type fetched struct {
		dir string
		err error
	}
	repos := map[string]fetched{} // repo@commit: the local repository
	tmp, err := os.MkdirTemp("", "etl-corpus")
	if err != nil {
		fmt.Fprintln(w, "FAIL", err)
		return len(rows)
	}
	defer os.RemoveAll(tmp)
	for _, r := range rows {
		if hasSum(filepath.Join(kept, r.file), r.sha256) {
			fmt.Fprintf(w, "kept     %s (in %s)\n", r.file, kept)
			continue
		}
		dst := filepath.Join(dir, r.file)
		if hasSum(dst, r.sha256) {
			fmt.Fprintf(w, "present  %s\n", r.file)
			continue
		}
		key := r.repo + "@" + r.commit
		repo, ok := repos[key]
		if !ok {
			repo.dir = filepath.Join(tmp, strconv.Itoa(len(repos)))
			repo.err = shallowFetch(repo.dir, base+"/"+r.repo, r.commit)
			repos[key] = repo
		}
		if repo.err != nil {
			fmt.Fprintf(w, "FAIL     %s: %v\n", r.file, repo.err)
			failed++
			continue
		}
		b, err := extract(repo.dir, r)
		if err == nil {
			err = check(b, r)
		}
		if err == nil {
			err = writeFile(dst, b)
		}
		if err != nil {
			fmt.Fprintf(w, "FAIL     %s: %v\n", r.file, err)
			failed++
			continue
		}
		fmt.Fprintf(w, "fetched  %s (%s %.12s %s)\n", r.file, r.repo, r.commit, r.path)
	}
	return failed
}

func hasSum(path, sum string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]) == sum
}

// shallowFetch makes a repository at dir holding commit of url, without
// its blobs: a partial clone's remote, from which git fetches a blob when
// it is read.
func shallowFetch(dir, url, commit string) error {
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "remote", "add", "origin", url},
		{"-C", dir, "config", "remote.origin.promisor", "true"},
		{"-C", dir, "config", "remote.origin.partialclonefilter", "blob:none"},
		{"-C", dir, "fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", commit},
	} {
		if _, err := git(args...); err != nil {
			return err
		}
	}
	return nil
}

func git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		verb := args[0]
		if verb == "-C" && len(args) > 2 {
			verb = args[2]
		}
		return nil, fmt.Errorf("git %s: %v: %s", verb, err, msg)
	}
	return out, nil
}

// extract reads the trace's bytes at its commit: a blob, or a member of a
// zip or 7z archive ("ARCHIVE!MEMBER").
func extract(local string, r row) ([]byte, error) {
	archive, member, isZip := strings.Cut(r.path, "!") // isZip: an archive's member
	spec := r.commit + ":" + archive
	size, err := git("-C", local, "cat-file", "-s", spec)
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64)
	if err != nil || n > maxTrace {
		return nil, fmt.Errorf("%s: %s bytes, over the %d accepted", archive, strings.TrimSpace(string(size)), maxTrace)
	}
	blob, err := git("-C", local, "cat-file", "blob", spec)
	if err != nil {
		return nil, err
	}
	if !isZip {
		return blob, nil
	}
	if strings.HasSuffix(archive, ".7z") {
		return extract7z(blob, archive, member, r.bytes)
	}
	zr, err := zip.NewReader(bytes.NewReader(blob), int64(len(blob)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	for _, f := range zr.File {
		if f.Name != member {
			continue
		}
		if f.UncompressedSize64 != uint64(r.bytes) {
			return nil, fmt.Errorf("%s: member %s is %d bytes, the manifest says %d", archive, member, f.UncompressedSize64, r.bytes)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", archive, member, err)
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, r.bytes+1))
	}
	return nil, fmt.Errorf("%s has no member %s", archive, member)
}

func check(b []byte, r row) error {
	if int64(len(b)) != r.bytes {
		return fmt.Errorf("%d bytes, the manifest says %d", len(b), r.bytes)
	}
	s := sha256.Sum256(b)
	if got := hex.EncodeToString(s[:]); got != r.sha256 {
		return fmt.Errorf("SHA-256 %s, the manifest says %s", got, r.sha256)
	}
	return nil
}

// writeFile writes b to path whole or not at all.
func writeFile(path string, b []byte) error {
	tmp := path + ".part"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(err, os.Remove(tmp))
	}
	return nil
}

// extract7z has the 7z command write the member of the 7z archive blob to
// its standard output (Go's library reads no 7z archive).
func extract7z(blob []byte, archive, member string, size int64) ([]byte, error) {
	if _, err := exec.LookPath("7z"); err != nil {
		return nil, fmt.Errorf("%s: a 7z archive, and no 7z command to extract it (apt install p7zip-full)", archive)
	}
	tmp, err := os.CreateTemp("", "etl-corpus-*.7z")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(blob); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	// e: without folders; -so: to standard output; -- ends the switches.
	cmd := exec.Command("7z", "e", "-so", "--", tmp.Name(), member)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: 7z: %w", archive, err)
	}
	// Read at most one byte more than the manifest's size: a member that
	// unpacks to more is refused without holding it all.
	out, rerr := io.ReadAll(io.LimitReader(stdout, size+1))
	if int64(len(out)) > size {
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case int64(len(out)) > size:
		return nil, fmt.Errorf("%s: member %s is more than the manifest's %d bytes", archive, member, size)
	case rerr != nil:
		return nil, fmt.Errorf("%s: 7z: %w", archive, rerr)
	case werr != nil:
		return nil, fmt.Errorf("%s: 7z: %v: %s", archive, werr, strings.TrimSpace(stderr.String()))
	case int64(len(out)) != size:
		return nil, fmt.Errorf("%s: member %s is %d bytes, the manifest says %d", archive, member, len(out), size)
	}
	return out, nil
}
