package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/result"
)

func init() { register(newPcapCmd) }

// pcapSubcommands are added by the pcap_*.go files.
var pcapSubcommands []func(*IO) *cobra.Command

func newPcapCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pcap",
		Short: "analyse packet captures: DSCP/ECN marking, TCP loss recovery",
		Long: `Reads pcap (µs or ns timestamps, either byte order) and pcapng files
(several interfaces and link types, per-packet comments) with a streaming
reader: memory grows with the flows and the data in flight, not the file.

Link types: Ethernet (with 802.1Q/802.1ad tags), Linux cooked v1/v2, raw
IPv4/IPv6, BSD loopback/null. IPv4 and IPv6 with extension headers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return Usagef("missing subcommand: accepted dscp or tcp (see 'latlab pcap --help')")
		},
	}
	for _, f := range pcapSubcommands {
		cmd.AddCommand(f(io))
	}
	return cmd
}

// pcapInput holds the flags shared by the pcap subcommands.
type pcapInput struct {
	Dedup       string
	DedupWindow time.Duration
}

func (p *pcapInput) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&p.Dedup, "dedup", "auto", "drop byte-identical copies of a packet (pktmon etl2pcap writes one per capture component): auto (on when detected), on, off")
	fs.Lookup("dedup").NoOptDefVal = "on"
	durationFlag(fs, &p.DedupWindow, "dedup-window", capture.DefaultDedupWindow, "copies closer than this count as one packet")
}

func (p *pcapInput) options() (capture.ScanOptions, error) {
	m, err := capture.ParseDedupMode(p.Dedup)
	if err != nil {
		return capture.ScanOptions{}, Usagef("invalid --dedup %q: %v", p.Dedup, err)
	}
	return capture.ScanOptions{Dedup: m, DedupWindow: p.DedupWindow}, nil
}

// scanFile runs a capture scan over path. An unreadable file is a usage
// error (exit 2) naming the byte offset.
func scanFile(path string, opt capture.ScanOptions, fn capture.Handler) (*capture.Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Usagef("cannot open capture: %v", err)
	}
	defer f.Close()
	st, err := capture.Scan(f, opt, fn)
	if err != nil {
		var fe *capture.FormatError
		if errors.As(err, &fe) {
			return nil, Usagef("%s: not a readable capture %s", path, fe.Error())
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// readErrorExit is the error returned after printing the results of a file
// that is corrupt part-way: what was read is reported, and latlab exits 2
// naming where the file went bad. A capture that is merely cut off at the
// end (the usual result of stopping a capture) is only a note.
func readErrorExit(path string, st *capture.Stats) error {
	if st.ReadError != nil && !st.ReadError.Truncated {
		return Usagef("%s: corrupt capture %s (results above cover the %d frames before it)", path, st.ReadError.Error(), st.Frames)
	}
	return nil
}

// writePcapDocument writes a result document whose data is payload, with
// extra top-level fields (e.g. "flows") merged in for direct access.
func writePcapDocument(w io.Writer, outPath string, doc *result.Document, payload any, top map[string]any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	doc.Data = b
	db, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	// Extra top-level fields go after the document's own, in key order.
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vb, err := json.Marshal(top[k])
		if err != nil {
			return err
		}
		kb, _ := json.Marshal(k)
		db = append(db[:len(db)-1], ',')
		db = append(append(append(db, kb...), ':'), vb...)
		db = append(db, '}')
	}
	var ob bytes.Buffer
	if err := json.Indent(&ob, db, "", "  "); err != nil {
		return err
	}
	out := ob.Bytes()
	out = append(out, '\n')
	if outPath != "" {
		if err := os.WriteFile(outPath, out, 0o644); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
	}
	if w != nil {
		_, err = w.Write(out)
	}
	return err
}
