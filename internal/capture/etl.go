package capture

import (
	"bufio"
	"io"

	"github.com/latlab/latlab/internal/etl"
)

// fromETL hands the packets of an .etl trace (netsh trace capture=yes,
// pktmon start --capture) to the pcapng reader: when r starts like an
// .etl, the returned reader is the pcapng stream that etl.WritePcapng
// makes of its packet events, written as the scan reads it; otherwise it
// is r. stop ends the conversion when the scan ends early.
func fromETL(r io.Reader) (out io.Reader, stop func()) {
	br := bufio.NewReaderSize(r, etl.SniffSize)
	head, _ := br.Peek(etl.SniffSize)
	if !etl.Sniff(head) {
		return br, func() {}
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := etl.WritePcapng(br, pw)
		pw.CloseWithError(err)
	}()
	return pr, func() { pr.Close() }
}
