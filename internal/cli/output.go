package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/latlab/latlab/internal/outfile"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
)

// writeDoc is how a command with --json but no --output ends: the
// document, with the command's flags as its settings, to stdout.
func writeDoc(o *IO, doc *result.Document, settings map[string]string) error {
	if settings != nil {
		doc.Settings = settings
	}
	return result.Write(o.Out, doc)
}

// emitResult is how a measuring command ends: the document goes to the
// --output file when one was named (and then only there: -o with --json
// prints nothing more), stderr saying where; else the JSON to stdout with
// --json; else the human form.
func emitResult(o *IO, doc *result.Document, outFile string, asJSON bool, human func(io.Writer)) error {
	if outFile != "" {
		if err := result.WriteFile(outFile, doc); err != nil {
			return err
		}
		wrote(o, outFile)
		if asJSON {
			return nil
		}
	}
	if asJSON {
		return result.Write(o.Out, doc)
	}
	humanOut(o.Out, human)
	return nil
}

// outputHelp is -o of every command that writes a result document.
const outputHelp = "write the result document to this file (with --json, to the file only)"

// wrote says on stderr that a file was written: never stdout, which may
// be a pipe that takes the document or the human summary.
func wrote(o *IO, path string) {
	fmt.Fprintf(o.Err, "wrote %s\n", path)
}

// humanOut runs print with w's prose wrapped to w's width (a terminal's,
// or $COLUMNS): tables fit it by themselves, lines of text do not.
func humanOut(w io.Writer, print func(io.Writer)) {
	l := report.WrapLines(w)
	print(l)
	_ = l.Flush() // w's own errors are w's to report, as with print
}

// writePlot renders a plot in the format its file name asks for (.svg or
// .png) and writes it.
func writePlot(path string, render func(format string) ([]byte, error)) error {
	format, err := report.PlotFormat(path)
	if err != nil {
		return Usage(err)
	}
	b, err := render(format)
	if err != nil {
		return err
	}
	return outfile.WriteBytes(path, b)
}

// writeFileWith writes path with what f writes, replacing it only when
// f succeeds (outfile.Write).
func writeFileWith(path string, f func(io.Writer) error) error {
	return outfile.Write(path, f)
}

// checkWritable fails early, before a long measurement, when an output
// file could not be written: a link, a FIFO, a directory that is missing
// or that others could change. Whether an existing file may be replaced
// is the --force guard's question, asked before.
func checkWritable(path string) error {
	return outfile.Check(path, true)
}

// progressLine shows, on a terminal's stderr, a live line for a run of
// about total that lasts more than 2 s: elapsed and estimated time left.
// On a pipe, or for a short run, it shows nothing. stop clears the line.
func progressLine(o *IO, what string, total time.Duration) (stop func()) {
	if total <= 2*time.Second || !(o.progressForce || isTerminal(o.Err)) {
		return func() {}
	}
	bar := progressbar.NewOptions64(total.Milliseconds(),
		progressbar.OptionSetWriter(o.Err), progressbar.OptionSetDescription(what),
		progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(20))
	start := time.Now()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second) // seldom: a probe may be measuring meanwhile
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = bar.Set64(min(time.Since(start).Milliseconds(), total.Milliseconds()-1))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		_ = bar.Finish()
	}
}
