package dpcisr

import (
	"context"
	"io"

	"github.com/latlab/latlab/internal/etl"
	"github.com/latlab/latlab/internal/infile"
)

// EncodingETL is the Encoding of a report read from an .etl trace (its
// Source is SourceETW: the events are those a live watch reads).
const EncodingETL = "etl"

// etlReport reads a report from an .etl trace. Package dpcwatch registers
// it: it owns the recorder that sums executions into xperf's buckets, and
// it imports this package.
// ctx stops the read (Ctrl-C): the report then covers what was read,
// with Interrupted set.
var etlReport func(ctx context.Context, path string) (*Report, error)

// RegisterETL sets the reader of .etl traces.
func RegisterETL(f func(ctx context.Context, path string) (*Report, error)) { etlReport = f }

// isETL reports whether the file at path starts like an .etl trace.
func isETL(path string) bool {
	f, err := infile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, etl.SniffSize)
	n, _ := io.ReadFull(f, head)
	return etl.Sniff(head[:n])
}
