package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/result"
)

func init() { register(newPcapCmd) }

// KindPcapTCP is the document `latlab pcap tcp --json` writes; its
// payload is pcap_tcp.go's tcpData.
var KindPcapTCP = result.Register[tcpData]("pcap-tcp", "TCP loss recovery per connection in a capture, as Wireshark flags it (latlab pcap tcp)")

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

// pcapInput holds the flags and the ending shared by the pcap subcommands.
type pcapInput struct {
	Filter      string
	JSON        bool
	Out         string
	Dedup       string
	DedupWindow time.Duration

	filter *capture.Filter // --filter, parsed
}

// bind adds the shared flags; filterHelp says what --filter selects.
func (p *pcapInput) bind(cmd *cobra.Command, filterHelp string) {
	fs := cmd.Flags()
	fs.StringVar(&p.Filter, "filter", "", filterHelp)
	fs.BoolVar(&p.JSON, "json", false, "write the result document to stdout")
	fs.StringVarP(&p.Out, "output", "o", "", "also write the result document to this file")
	fs.StringVar(&p.Dedup, "dedup", "auto", "drop byte-identical copies of a packet (pktmon etl2pcap writes one per capture component): auto (on when detected), on, off")
	fs.Lookup("dedup").NoOptDefVal = "on"
	durationFlag(fs, &p.DedupWindow, "dedup-window", capture.DefaultDedupWindow, "copies closer than this count as one packet")
}

// options checks --filter and --dedup and returns how to scan; ctx
// (Ctrl-C) stops the scan, and the results then cover what was read.
func (p *pcapInput) options(ctx context.Context) (capture.ScanOptions, error) {
	if p.Filter != "" {
		f, err := capture.ParseFilter(p.Filter)
		if err != nil {
			return capture.ScanOptions{}, Usagef("invalid --filter: %v", err)
		}
		p.filter = f
	}
	m, err := capture.ParseDedupMode(p.Dedup)
	if err != nil {
		return capture.ScanOptions{}, Usagef("invalid --dedup %q: %v", p.Dedup, err)
	}
	return capture.ScanOptions{Dedup: m, DedupWindow: p.DedupWindow, Context: ctx}, nil
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

// emit ends a pcap command: the result document (kind, with data as its
// payload) to -o and --json, or the human form. The document is built
// only when asked for: for a capture of many connections it is large.
// prep, when set, finishes the document before it is written.
func (p *pcapInput) emit(o *IO, kind fmt.Stringer, settings map[string]string, data any, notes []string, human func(io.Writer), prep func(*result.Document) error) error {
	if !p.JSON && p.Out == "" {
		human(o.Out)
		return nil
	}
	doc, err := result.New(kind.String(), data)
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

func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
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
