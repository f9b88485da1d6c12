package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/refdoc"
	"github.com/latlab/latlab/internal/testutil"
)

type member struct {
	name string
	mode int64
	body []byte
}

// debWith builds a .deb as nfpm lays it out (debian-binary, control.tar.gz,
// data.tar.gz in an ar archive; data members named ./usr/...).
func debWith(t *testing.T, members []member) []byte {
	t.Helper()
	var data bytes.Buffer
	zw := gzip.NewWriter(&data)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		h := &tar.Header{Name: "./" + m.name, Mode: m.mode, Size: int64(len(m.body)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(m.name, "/") {
			h.Typeflag = tar.TypeDir // nfpm lists the directories too, 0755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var ar bytes.Buffer
	ar.WriteString("!<arch>\n")
	add := func(name string, b []byte) {
		fmt.Fprintf(&ar, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "100644", len(b))
		ar.Write(b)
		if len(b)%2 == 1 {
			ar.WriteByte('\n')
		}
	}
	add("debian-binary", []byte("2.0\n"))
	add("control.tar.gz", []byte("x")) // odd length: the padding is skipped
	add("data.tar.gz", data.Bytes())
	return ar.Bytes()
}

// goodMembers are what the release's .deb holds, made as the release
// makes them.
func goodMembers(t *testing.T) []member {
	t.Helper()
	man, comp := testutil.TempDir(t), testutil.TempDir(t)
	if err := refdoc.Man(man, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), "1.2.3", true); err != nil {
		t.Fatal(err)
	}
	if err := refdoc.Completions(comp); err != nil {
		t.Fatal(err)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ms := []member{
		{"usr/share/man/man1/", 0o755, nil},
		{"usr/bin/latlab", 0o755, []byte("ELF")},
		{"usr/lib/systemd/system/latlab-exporter.service", 0o644, []byte("[Unit]")},
		{"usr/share/doc/latlab/copyright", 0o644, []byte("Apache")},
		{"usr/share/bash-completion/completions/latlab", 0o644, read(filepath.Join(comp, "latlab.bash"))},
		{"usr/share/zsh/vendor-completions/_latlab", 0o644, read(filepath.Join(comp, "_latlab"))},
		{"usr/share/fish/vendor_completions.d/latlab.fish", 0o644, read(filepath.Join(comp, "latlab.fish"))},
	}
	for _, page := range refdoc.ManPages() {
		ms = append(ms, member{"usr/share/man/man1/" + page, 0o644, read(filepath.Join(man, page))})
	}
	return ms
}

func gzipNamed(t *testing.T, name string, body []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Name, zw.ModTime = name, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	zw.Write(body)
	zw.Close()
	return b.Bytes()
}

func TestCheckDeb(t *testing.T) {
	edit := func(f func([]member) []member) func(*testing.T) []member {
		return func(t *testing.T) []member { return f(goodMembers(t)) }
	}
	without := func(name string) func(*testing.T) []member {
		return edit(func(ms []member) []member {
			var out []member
			for _, m := range ms {
				if m.name != name {
					out = append(out, m)
				}
			}
			return out
		})
	}
	tests := []struct {
		name    string
		members func(*testing.T) []member
		want    string // "" for no error
	}{
		{"as released", goodMembers, ""},
		{"no zsh completion", without("usr/share/zsh/vendor-completions/_latlab"), "no zsh completion"},
		{"no fish completion", without("usr/share/fish/vendor_completions.d/latlab.fish"), "no fish completion"},
		{"a command's page missing", without("usr/share/man/man1/latlab-timer-set.1.gz"), "no man page usr/share/man/man1/latlab-timer-set.1.gz"},
		{"bash slot holds the zsh script", edit(func(ms []member) []member {
			for i := range ms {
				if ms[i].name == "usr/share/bash-completion/completions/latlab" {
					ms[i].body = []byte("#compdef latlab\n")
				}
			}
			return ms
		}), "is not latlab's bash completion"},
		{"page compressed with its name and time (gzip without -n)", edit(func(ms []member) []member {
			for i := range ms {
				if ms[i].name == "usr/share/man/man1/latlab.1.gz" {
					ms[i].body = gzipNamed(t, "latlab.1", []byte(".TH \"LATLAB\" \"1\"\n"))
				}
			}
			return ms
		}), "want neither (gzip -n)"},
		{"page of no command", edit(func(ms []member) []member {
			return append(ms, member{"usr/share/man/man1/latlab-gone.1.gz", 0o644, nil})
		}), "man page of no command"},
		{"executable page", edit(func(ms []member) []member {
			for i := range ms {
				if ms[i].name == "usr/share/man/man1/latlab.1.gz" {
					ms[i].mode = 0o755
				}
			}
			return ms
		}), "want 0644"},
		{"no unit", without("usr/lib/systemd/system/latlab-exporter.service"), "latlab-exporter.service is not in the package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := checkDebData("x.deb", bytes.NewReader(debWith(t, tt.members(t))))
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			all := strings.Join(msgs, "\n")
			if tt.want == "" {
				if len(errs) > 0 {
					t.Fatalf("want no error, got:\n%s", all)
				}
				return
			}
			if !strings.Contains(all, tt.want) {
				t.Fatalf("want an error containing %q, got:\n%s", tt.want, all)
			}
		})
	}
}
