package etl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusRow is a line of testdata/corpus.tsv.
type corpusRow struct {
	file, repo, commit, path, licence, sha256, holds string
}

func readCorpusManifest(t *testing.T) []corpusRow {
	t.Helper()
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "file\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 8 {
			t.Fatalf("corpus.tsv: %d columns, want 8: %q", len(c), line)
		}
		rows = append(rows, corpusRow{c[0], c[1], c[2], c[3], c[4], c[5], c[7]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// holdsOf says what a trace holds in the words of corpus.tsv's last
// column: the header's OS, build and pointer size, the buffers, the
// events and the four providers with the most (ties in GUID order), then
// the packet events where a packet provider logged and the kernel images.
func holdsOf(s *Summary, frames func() int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Windows %s build %d, %d-bit; %d buffers, %d compressed; %d events (",
		s.Header.OS, s.Header.Build, 8*s.Header.PointerSize, s.Header.Buffers, s.Header.CompressedBufs, s.Events)
	packetProvider := false
	for i, p := range s.Providers {
		packetProvider = packetProvider || p.Name == "Microsoft-Windows-PktMon" || p.Name == "Microsoft-Windows-NDIS-PacketCapture"
		switch {
		case i == 4:
			b.WriteString(", ...")
		case i < 4:
			if i > 0 {
				b.WriteString(", ")
			}
			name := p.Name
			if name == "" {
				name = p.GUID[:8]
			}
			fmt.Fprintf(&b, "%s %d", name, p.Events)
		}
	}
	b.WriteString(")")
	if packetProvider {
		fmt.Fprintf(&b, "; %d packet events", frames())
	}
	if len(s.Modules) > 0 {
		fmt.Fprintf(&b, "; %d kernel images", len(s.Modules))
	}
	return b.String()
}

// The real traces of the corpus kept in this repository (those whose
// licence lets them be copied, testdata/corpus) read as corpus.tsv says
// they hold: counts dissect.etl gives too (scripts/verify-etl compares
// every provider, opcode, event id, image and packet with it on each CI
// run). Every file there must be listed, and match its SHA-256.
func TestCorpusTracesInRepository(t *testing.T) {
	rows := readCorpusManifest(t)
	listed := map[string]bool{}
	kept := 0
	for _, r := range rows {
		listed[r.file] = true
		b, err := os.ReadFile(filepath.Join("testdata/corpus", r.file))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		kept++
		t.Run(r.file, func(t *testing.T) {
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r.sha256 {
				t.Fatalf("SHA-256 %x, corpus.tsv says %s", sum, r.sha256)
			}
			if r.licence == "" || strings.HasPrefix(r.licence, "none") {
				t.Fatalf("kept in the repository with licence %q", r.licence)
			}
			s, err := Summarize(context.Background(), bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			frames := func() int {
				_, counts, err := Packets(bytes.NewReader(b), func(*Packet) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				return counts.NDIS + counts.PktMon + counts.Skipped
			}
			if got := holdsOf(s, frames); got != r.holds {
				t.Errorf("holds\n  %s\nwant\n  %s", got, r.holds)
			}
			if s.Header.DamagedBuffers != 0 || len(s.Notes) != 0 {
				t.Errorf("damaged buffers %d, notes %q: want a whole read", s.Header.DamagedBuffers, s.Notes)
			}
		})
	}
	if kept == 0 {
		t.Fatal("no trace of corpus.tsv in testdata/corpus")
	}
	ents, err := os.ReadDir("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".etl") && !listed[e.Name()] {
			t.Errorf("testdata/corpus/%s is not in corpus.tsv", e.Name())
		}
	}
}
