// Command releasecheck checks what `goreleaser release --snapshot` left
// in dist/: every archive with the binary, README, LICENSE and notices,
// checksums.txt matching the files, an SBOM per binary, the .deb
// packages with the binary, and Scoop and winget manifests that point at
// the Windows archives with their SHA-256. The Linux archives and the
// .deb carry a man page for every command (gzip -9n) and the bash, zsh
// and fish completions, installed by the .deb where man and each shell
// look for them; the Windows archives carry the PowerShell completion.
// scripts/test runs it.
//
// Usage: go run ./scripts/releasecheck [-dist dist]
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/refdoc"
)

var targets = []struct{ goos, goarch string }{
	{"linux", "amd64"}, {"linux", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

var docs = []string{"README.md", "LICENSE", "THIRD_PARTY_NOTICES.md"}

func main() {
	dist := flag.String("dist", "dist", "GoReleaser's output directory")
	flag.Parse()
	errs := check(*dist)
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, "releasecheck:", e)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
	fmt.Println("releasecheck: archives, checksums, SBOMs, .deb (man pages, completions), Scoop and winget manifests are consistent")
}

func check(dist string) []error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	sums, err := readChecksums(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return []error{err}
	}
	for name, want := range sums {
		got, err := sha256File(filepath.Join(dist, name))
		if err != nil {
			fail("%v", err)
		} else if got != want {
			fail("%s: checksums.txt says %s, the file is %s", name, want, got)
		}
	}
	version, err := snapshotVersion(dist)
	if err != nil {
		return append(errs, err)
	}
	for _, t := range targets {
		ext, bin := ".tar.gz", "latlab"
		if t.goos == "windows" {
			ext, bin = ".zip", "latlab.exe"
		}
		name := fmt.Sprintf("latlab_%s_%s_%s%s", version, t.goos, t.goarch, ext)
		if _, ok := sums[name]; !ok {
			fail("%s: missing from checksums.txt", name)
		}
		files, err := archiveFiles(filepath.Join(dist, name))
		if err != nil {
			fail("%v", err)
			continue
		}
		for _, f := range append([]string{bin}, docs...) {
			if _, ok := files[f]; !ok {
				fail("%s: lacks %s (has %v)", name, f, sortedNames(files))
			}
		}
		if t.goos == "linux" {
			errs = append(errs, checkManPages(name, files, "manpages")...)
			errs = append(errs, checkCompletions(name, files, archiveCompletions)...)
		} else {
			errs = append(errs, checkCompletions(name, files, map[string]string{"completions/latlab.ps1": "powershell"})...)
			for f := range files {
				if strings.HasPrefix(f, "manpages/") {
					fail("%s: %s: man pages in a Windows archive", name, f)
				}
			}
		}
		sbom := fmt.Sprintf("latlab_%s_%s_%s.cdx.json", version, t.goos, t.goarch)
		if err := checkSBOM(filepath.Join(dist, sbom)); err != nil {
			fail("%v", err)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		deb := fmt.Sprintf("latlab_%s_%s.deb", version, arch)
		if _, ok := sums[deb]; !ok {
			fail("%s: missing from checksums.txt", deb)
		}
		errs = append(errs, checkDeb(filepath.Join(dist, deb))...)
	}
	errs = append(errs, checkScoop(filepath.Join(dist, "scoop", "latlab.json"), sums)...)
	errs = append(errs, checkWinget(filepath.Join(dist, "winget"), sums)...)
	return errs
}

func readChecksums(p string) (map[string]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2 || len(fs[0]) != 64 {
			return nil, fmt.Errorf("%s: bad line %q", p, sc.Text())
		}
		m[fs[1]] = fs[0]
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s is empty", p)
	}
	return m, sc.Err()
}

func sha256File(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// snapshotVersion reads the version GoReleaser used from metadata.json.
func snapshotVersion(dist string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		return "", err
	}
	var m struct{ Version string }
	if err := json.Unmarshal(b, &m); err != nil || m.Version == "" {
		return "", fmt.Errorf("metadata.json: no version (%v)", err)
	}
	return m.Version, nil
}

// maxMember is the most of an archive member that is read: the man pages
// and completions are a few kilobytes; larger members (the binary) are
// listed with no contents.
const maxMember = 1 << 20

// archiveFiles lists an archive's members, with the contents of those of
// at most maxMember bytes.
func archiveFiles(p string) (map[string][]byte, error) {
	files := map[string][]byte{}
	if strings.HasSuffix(p, ".zip") {
		z, err := zip.OpenReader(p)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		for _, f := range z.File {
			var b []byte
			if f.UncompressedSize64 <= maxMember {
				r, err := f.Open()
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", p, f.Name, err)
				}
				b, err = io.ReadAll(io.LimitReader(r, maxMember))
				r.Close()
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", p, f.Name, err)
				}
			}
			files[path.Clean(f.Name)] = b
		}
		return files, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return tarFiles(p, gz, nil)
}

// tarFiles lists a tar stream's members as archiveFiles does; with modes,
// it records each regular file's permission bits there too.
func tarFiles(p string, r io.Reader, modes map[string]os.FileMode) (map[string][]byte, error) {
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		var b []byte
		if h.Size <= maxMember {
			if b, err = io.ReadAll(io.LimitReader(tr, maxMember)); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p, h.Name, err)
			}
		}
		name := path.Clean(h.Name) // the .deb's ./usr/bin/latlab is usr/bin/latlab
		files[name] = b
		if modes != nil && h.Typeflag == tar.TypeReg {
			modes[name] = os.FileMode(h.Mode).Perm()
		}
	}
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// completionMarks are a line each shell's completion script has: the file
// is the script `latlab completion <shell>` writes, not an empty or
// truncated file, or another shell's.
var completionMarks = map[string]string{
	"bash":       "__start_latlab",
	"zsh":        "#compdef latlab",
	"fish":       "complete -c latlab",
	"powershell": "Register-ArgumentCompleter",
}

// archiveCompletions and debCompletions are where the Linux archives and
// the .deb carry each shell's completion: the .deb's are the directories
// bash-completion, zsh and fish load a command's completion from.
var (
	archiveCompletions = map[string]string{
		"completions/latlab.bash": "bash",
		"completions/_latlab":     "zsh",
		"completions/latlab.fish": "fish",
	}
	debCompletions = map[string]string{
		"usr/share/bash-completion/completions/latlab":    "bash",
		"usr/share/zsh/vendor-completions/_latlab":        "zsh",
		"usr/share/fish/vendor_completions.d/latlab.fish": "fish",
	}
)

func checkCompletions(where string, files map[string][]byte, want map[string]string) []error {
	var errs []error
	for p, shell := range want {
		b, ok := files[p]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s: no %s completion (%s)", where, shell, p))
		case !bytes.Contains(b, []byte(completionMarks[shell])):
			errs = append(errs, fmt.Errorf("%s: %s is not latlab's %s completion (no %q)", where, p, shell, completionMarks[shell]))
		}
	}
	return errs
}

// checkManPages: dir holds exactly a page per command (refdoc.ManPages),
// each gzip-compressed with no name or time in its header (gzip -9n,
// Debian policy 12.1) and a troff page whose title is its command.
func checkManPages(where string, files map[string][]byte, dir string) []error {
	var errs []error
	want := refdoc.ManPages()
	for _, page := range want {
		p := dir + "/" + page
		b, ok := files[p]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: no man page %s", where, p))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", where, p, err))
			continue
		}
		if zr.Name != "" || !zr.ModTime.IsZero() {
			errs = append(errs, fmt.Errorf("%s: %s: gzip header names %q, time %v: want neither (gzip -n)", where, p, zr.Name, zr.ModTime))
		}
		page, err := io.ReadAll(io.LimitReader(zr, maxMember))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", where, p, err))
			continue
		}
		title := strings.ToUpper(strings.TrimSuffix(path.Base(p), ".1.gz"))
		if !bytes.Contains(page, []byte(".TH \""+title+"\" \"1\"")) {
			errs = append(errs, fmt.Errorf("%s: %s: no .TH line for %s(1)", where, p, title))
		}
	}
	for f := range files {
		if path.Dir(f) == dir && !slices.Contains(want, path.Base(f)) {
			errs = append(errs, fmt.Errorf("%s: %s is the man page of no command", where, f))
		}
	}
	return errs
}

// debFiles are what the .deb must install: the binary and the exporter's
// systemd unit (installed, not enabled).
var debFiles = []string{
	"usr/bin/latlab",
	"usr/lib/systemd/system/latlab-exporter.service",
	"usr/share/doc/latlab/copyright",
}

// checkDeb reads the .deb's ar archive, finds data.tar.gz and checks that
// debFiles, the man pages and the completions are in it: a packaging
// change that drops the unit or a page fails here, not on a user's
// machine.
func checkDeb(p string) []error {
	f, err := os.Open(p)
	if err != nil {
		return []error{err}
	}
	defer f.Close()
	return checkDebData(p, f)
}

func checkDebData(p string, f io.ReadSeeker) []error {
	fail := func(format string, a ...any) []error { return []error{fmt.Errorf(format, a...)} }
	magic := make([]byte, 8)
	if _, err := io.ReadFull(f, magic); err != nil || string(magic) != "!<arch>\n" {
		return fail("%s: not an ar archive", p)
	}
	hdr := make([]byte, 60)
	for {
		if _, err := io.ReadFull(f, hdr); err != nil {
			return fail("%s: no data.tar.gz member", p)
		}
		name := strings.TrimRight(strings.TrimSpace(string(hdr[0:16])), "/")
		var size int64
		if _, err := fmt.Sscan(strings.TrimSpace(string(hdr[48:58])), &size); err != nil || size < 0 {
			return fail("%s: bad ar member size for %q", p, name)
		}
		if name != "data.tar.gz" {
			// Members are padded to an even length.
			if _, err := f.Seek(size+size%2, io.SeekCurrent); err != nil {
				return fail("%s: %w", p, err)
			}
			continue
		}
		zr, err := gzip.NewReader(io.LimitReader(f, size))
		if err != nil {
			return fail("%s: data.tar.gz: %w", p, err)
		}
		modes := map[string]os.FileMode{}
		files, err := tarFiles(p+": data.tar.gz", zr, modes)
		if err != nil {
			return []error{err}
		}
		var errs []error
		for _, want := range debFiles {
			if _, ok := files[want]; !ok {
				errs = append(errs, fmt.Errorf("%s: %s is not in the package", p, want))
			}
		}
		errs = append(errs, checkManPages(p, files, "usr/share/man/man1")...)
		errs = append(errs, checkCompletions(p, files, debCompletions)...)
		for f := range files {
			mode, file := modes[f]
			if file && (strings.HasPrefix(f, "usr/share/man/") || debCompletions[f] != "") && mode != 0o644 {
				errs = append(errs, fmt.Errorf("%s: %s has mode %v, want 0644", p, f, mode))
			}
		}
		return errs
	}
}

func checkSBOM(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var d struct {
		BOMFormat  string
		Components []struct{ Name, Version string }
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if d.BOMFormat != "CycloneDX" || len(d.Components) == 0 {
		return fmt.Errorf("%s: not a CycloneDX SBOM with components", p)
	}
	return nil
}

// checkScoop: each architecture's url names a release archive, and its
// hash is that archive's SHA-256.
func checkScoop(p string, sums map[string]string) []error {
	b, err := os.ReadFile(p)
	if err != nil {
		return []error{err}
	}
	var m struct {
		Version      string
		Architecture map[string]struct {
			URL  string
			Bin  []string
			Hash string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return []error{fmt.Errorf("%s: %w", p, err)}
	}
	var errs []error
	for _, arch := range []string{"64bit", "arm64"} {
		a, ok := m.Architecture[arch]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: no %s architecture", p, arch))
			continue
		}
		errs = append(errs, pointsAt(p, a.URL, a.Hash, sums)...)
		if !slices.Contains(a.Bin, "latlab.exe") {
			errs = append(errs, fmt.Errorf("%s: %s bin is %v, want latlab.exe", p, arch, a.Bin))
		}
	}
	return errs
}

func pointsAt(manifest, url, hash string, sums map[string]string) []error {
	name := path.Base(url)
	want, ok := sums[name]
	switch {
	case !ok:
		return []error{fmt.Errorf("%s: url %s names no release file", manifest, url)}
	case !strings.EqualFold(hash, want):
		return []error{fmt.Errorf("%s: %s hash %s, the archive's is %s", manifest, name, hash, want)}
	}
	return nil
}

// checkWinget: the three manifests (version, installer, default locale)
// exist, and every installer entry's InstallerUrl and InstallerSha256
// match a release archive.
func checkWinget(dir string, sums map[string]string) []error {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	var errs []error
	var kinds []string
	installers := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var url string
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")), ":")
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"`)
			switch k {
			case "ManifestType":
				kinds = append(kinds, v)
			case "InstallerUrl":
				url = strings.TrimSpace(line[strings.Index(line, ":")+1:])
			case "InstallerSha256":
				errs = append(errs, pointsAt(f, url, v, sums)...)
				installers++
			}
		}
	}
	slices.Sort(kinds)
	if want := []string{"defaultLocale", "installer", "version"}; !slices.Equal(kinds, want) {
		errs = append(errs, fmt.Errorf("%s: manifest types %v, want %v", dir, kinds, want))
	}
	if installers != 2 {
		errs = append(errs, fmt.Errorf("%s: %d installers, want 2 (x64, arm64)", dir, installers))
	}
	return errs
}
