// Command releasecheck checks what `goreleaser release --snapshot` left
// in dist/: every archive with the binary, README, LICENSE and notices,
// checksums.txt matching the files, an SBOM per binary, the .deb
// packages with the binary, and Scoop and winget manifests that point at
// the Windows archives with their SHA-256. scripts/test runs it.
//
// Usage: go run ./scripts/releasecheck [-dist dist]
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
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
	fmt.Println("releasecheck: archives, checksums, SBOMs, .deb, Scoop and winget manifests are consistent")
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
			if !slices.Contains(files, f) {
				fail("%s: lacks %s (has %v)", name, f, files)
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
		if err := checkDeb(filepath.Join(dist, deb)); err != nil {
			fail("%v", err)
		}
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

func archiveFiles(p string) ([]string, error) {
	var names []string
	if strings.HasSuffix(p, ".zip") {
		z, err := zip.OpenReader(p)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		for _, f := range z.File {
			names = append(names, path.Clean(f.Name))
		}
		return names, nil
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
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		names = append(names, path.Clean(h.Name))
	}
}

// debFiles are what the .deb must install: the binary and the exporter's
// systemd unit (installed, not enabled).
var debFiles = []string{
	"./usr/bin/latlab",
	"./usr/lib/systemd/system/latlab-exporter.service",
	"./usr/share/doc/latlab/copyright",
}

// checkDeb reads the .deb's ar archive, finds data.tar.gz and checks that
// debFiles are in it: a packaging change that drops the unit fails here,
// not on a user's machine.
func checkDeb(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	magic := make([]byte, 8)
	if _, err := io.ReadFull(f, magic); err != nil || string(magic) != "!<arch>\n" {
		return fmt.Errorf("%s: not an ar archive", p)
	}
	hdr := make([]byte, 60)
	for {
		if _, err := io.ReadFull(f, hdr); err != nil {
			return fmt.Errorf("%s: no data.tar.gz member", p)
		}
		name := strings.TrimRight(strings.TrimSpace(string(hdr[0:16])), "/")
		var size int64
		if _, err := fmt.Sscan(strings.TrimSpace(string(hdr[48:58])), &size); err != nil || size < 0 {
			return fmt.Errorf("%s: bad ar member size for %q", p, name)
		}
		if name != "data.tar.gz" {
			// Members are padded to an even length.
			if _, err := f.Seek(size+size%2, io.SeekCurrent); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			continue
		}
		zr, err := gzip.NewReader(io.LimitReader(f, size))
		if err != nil {
			return fmt.Errorf("%s: data.tar.gz: %w", p, err)
		}
		seen := map[string]bool{}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: data.tar.gz: %w", p, err)
			}
			seen[h.Name] = true
		}
		for _, want := range debFiles {
			if !seen[want] {
				return fmt.Errorf("%s: %s is not in the package", p, want)
			}
		}
		return nil
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
