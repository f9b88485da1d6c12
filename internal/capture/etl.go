package capture

import (
	"bufio"
	"io"

	"github.com/latlab/latlab/internal/etl"
)

// FormatETL is the container of an .etl trace's packets.
const FormatETL Format = "etl"

// fromETL hands the packets of an .etl trace (netsh trace capture=yes,
// pktmon start --capture) to the pcapng reader: when r starts like an
// .etl, the returned reader is the pcapng stream that etl.WritePcapng
// makes of its packet events, written as the scan reads it; otherwise it
// is r. stop ends the conversion when the scan ends early.
func fromETL(r io.Reader) (out io.Reader, isETL bool, stop func()) {
	br := bufio.NewReaderSize(r, etl.SniffSize)
	head, _ := br.Peek(etl.SniffSize)
	if !etl.Sniff(head) {
		return br, false, func() {}
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := etl.WritePcapng(br, pw)
		pw.CloseWithError(err)
	}()
	return pr, true, func() { pr.Close() }
}
