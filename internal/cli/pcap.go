package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/tcpflow"
)

func init() { register(newPcapCmd) }

// KindPcapTCP is the document `latlab pcap tcp --json` writes.
var KindPcapTCP = tcpflow.Kind

// pcapSubcommands are added by the pcap_*.go files.
var pcapSubcommands []func(*IO) *cobra.Command

func newPcapCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pcap",
		Short: "analyse packet captures: DSCP/ECN marking, TCP loss recovery",
		Long: `Reads pcap (µs or ns timestamps, either byte order, format versions 2.0
on) and pcapng files (several interfaces and link types, per-packet
comments), and Network Monitor .cap files (formats 1.x and 2.x), any of
them compressed with gzip, zstd or lz4, with a streaming reader: memory
grows with the flows and the data in flight, not the file (a .cap file that
is compressed or a pipe is read into memory first).

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

// pcapInput holds the flags and the ending shared by the pcap subcommands.
type pcapInput struct {
	Filter      string
	JSON        bool
	Out         string
	Dedup       string
	DedupWindow time.Duration

	filter *capture.Filter   // --filter, parsed
	dedup  capture.DedupMode // --dedup, parsed
}

// bind adds the shared flags; filterHelp says what --filter selects.
func (p *pcapInput) bind(cmd *cobra.Command, filterHelp string) {
	fs := cmd.Flags()
	fs.StringVar(&p.Filter, "filter", "", filterHelp)
	fs.BoolVar(&p.JSON, "json", false, "write the result document to stdout")
	fs.StringVarP(&p.Out, "output", "o", "", outputHelp)
	// --dedup takes its value like every other string flag, so that
	// "--dedup off" and "--dedup=off" both work (a flag with a default for
	// no value would leave "off" as a second file argument).
	fs.StringVar(&p.Dedup, "dedup", "auto", "drop the copies pktmon logs of each packet (one per component): auto (only in a capture that shows it is pktmon's), on, off")
	durationFlag(fs, &p.DedupWindow, "dedup-window", capture.DefaultDedupWindow, "copies closer than this count as one packet")
}

// fileArg checks the command's one argument, the capture. An invalid
// --dedup is named first: "--dedup FILE" takes the file as the value, and
// "FILE is missing" would not say why.
func (p *pcapInput) fileArg(cmd *cobra.Command, args []string) error {
	if _, err := capture.ParseDedupMode(p.Dedup); err != nil {
		return Usagef("invalid --dedup %q: %v", p.Dedup, err)
	}
	return cobra.ExactArgs(1)(cmd, args)
}

// validate checks --filter and --dedup, before anything runs.
func (p *pcapInput) validate() error {
	if p.Filter != "" {
		f, err := capture.ParseFilter(p.Filter)
		if err != nil {
			return Usagef("invalid --filter: %v", err)
		}
		p.filter = f
	}
	m, err := capture.ParseDedupMode(p.Dedup)
	if err != nil {
		return Usagef("invalid --dedup %q: %v", p.Dedup, err)
	}
	p.dedup = m
	return nil
}

// options says how to scan, from the flags validate checked; ctx
// (Ctrl-C) stops the scan, and the results then cover what was read.
func (p *pcapInput) options(ctx context.Context) capture.ScanOptions {
	return capture.ScanOptions{Dedup: p.dedup, DedupWindow: p.DedupWindow, Context: ctx}
}

// scanFile runs a capture scan over path. An unreadable file is a usage
// error (exit 2) naming the byte offset.
func scanFile(path string, opt capture.ScanOptions, fn capture.Handler) (*capture.Stats, error) {
	// infile refuses directories, special files (unless allowed) and
	// files above --max-input-size before a byte is read.
	f, err := infile.Open(path)
	if err != nil {
		return nil, Usagef("cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	st, err := capture.Scan(f, opt, fn)
	if err != nil {
		var fe *capture.FormatError
		if errors.As(err, &fe) {
			if fe.Truncated { // "file truncated: the record at byte 0 ..."
				return nil, Usagef("%s: not a readable capture: %s", path, fe.Error())
			}
			return nil, Usagef("%s: not a readable capture %s", path, fe.Error()) // "at byte N: ..."
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// scan is scanFile for a subcommand. A capture that went bad before its
// first frame (cut inside its first record, a first record no reader
// takes) is the error alone when only the human report was asked for,
// not a report of an empty capture above it; a result document (--json,
// -o) is still written, and says where reading stopped.
func (p *pcapInput) scan(path string, opt capture.ScanOptions, fn capture.Handler) (*capture.Stats, error) {
	st, err := scanFile(path, opt, fn)
	if err != nil || p.JSON || p.Out != "" {
		return st, err
	}
	if fe := st.ReadError; fe != nil && st.Frames == 0 {
		if fe.Truncated {
			return nil, Usagef("%s: not a readable capture: %s; no frame before it", path, fe.Error())
		}
		return nil, Usagef("%s: not a readable capture %s; no frame before it", path, fe.Error())
	}
	return st, nil
}

// emit ends a pcap command: the result document (kind, with data as its
// payload) to -o and --json, or the human form. The document is built
// only when asked for: for a capture of many connections it is large.
// prep, when set, finishes the document before it is written.
func (p *pcapInput) emit(o *IO, kind fmt.Stringer, settings map[string]string, data any, notes []string, human func(io.Writer), prep func(*result.Document) error) error {
	if !p.JSON && p.Out == "" {
		humanOut(o.Out, human)
		return nil
	}
	doc, err := result.New(host.Collect(), kind.String(), data)
	if err != nil {
		return err
	}
	doc.Settings = settings
	doc.Notes = append(doc.Notes, notes...)
	if prep != nil {
		if err := prep(doc); err != nil {
			return err
		}
	}
	return emitResult(o, doc, p.Out, p.JSON, human)
}

// readErrorExit is the error returned after printing the results of a file
// that is corrupt part-way: what was read is reported, and latlab exits 2
// naming where the file went bad. A capture that is merely cut off at the
// end (the usual result of stopping a capture) is only a note.
func readErrorExit(path string, st *capture.Stats) error {
	switch e := st.ReadError; {
	case e != nil && e.Read:
		return Usagef("%s: reading stopped at byte %d: %s (results above cover the %d frames before it)", path, e.Offset, e.Msg, st.Frames)
	case e != nil && !e.Truncated:
		return Usagef("%s: corrupt capture %s (results above cover the %d frames before it)", path, e.Error(), st.Frames)
	}
	return nil
}
