package capture

import (
	"bufio"
	"bytes"
	"io"

	"github.com/latlab/latlab/internal/etl"
)

// FormatETL is the container of an .etl trace's packets.
const FormatETL Format = "etl"

// fromETL hands the packets of an .etl trace (netsh trace capture=yes,
// pktmon start --capture) to the pcapng reader: when r starts like an
// .etl, the returned reader is the pcapng stream that etl.WritePcapng
// makes of its packet events, written as the scan reads it; otherwise it
// is r. stop ends the conversion when the scan ends early and returns
// what the conversion could not read (packet events without a frame,
// damaged buffers), for the notes. A trace whose packet events hold no
// frame it reads fails the stream with that reason: never an empty
// capture.
func fromETL(r io.Reader) (out io.Reader, isETL bool, stop func() []string) {
	// A file that can seek is handed on as it is, positioned where it
	// was: NetMon is read at offsets of the file, and a wrapper that
	// cannot seek made it read whole into memory.
	if rs, ok := r.(io.ReadSeeker); ok {
		if cur, err := rs.Seek(0, io.SeekCurrent); err == nil {
			head := make([]byte, etl.SniffSize)
			n, _ := io.ReadFull(rs, head)
			if _, err := rs.Seek(cur, io.SeekStart); err != nil {
				r = io.MultiReader(bytes.NewReader(head[:n]), rs)
			} else if !etl.Sniff(head[:n]) {
				return rs, false, func() []string { return nil }
			}
		}
	}
	br := bufio.NewReaderSize(r, etl.SniffSize)
	head, _ := br.Peek(etl.SniffSize)
	if !etl.Sniff(head) {
		return br, false, func() []string { return nil }
	}
	pr, pw := io.Pipe()
	done := make(chan []string, 1)
	go func() {
		pc, err := etl.WritePcapng(br, pw)
		pw.CloseWithError(err)
		done <- pc.Notes
	}()
	var notes []string
	stopped := false
	return pr, true, func() []string {
		if !stopped {
			stopped = true
			pr.Close()
			notes = <-done
		}
		return notes
	}
}
