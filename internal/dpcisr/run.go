package dpcisr

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/result"
)

// Options are the work of `latlab dpcisr FILE`.
type Options struct {
	// File is xperf's text report or a JSON document holding a report
	// (see Read).
	File string
	// Module keeps only that module's histograms (case-insensitive);
	// empty keeps all.
	Module string
	// Page also reads what an HTML page of the report shows beyond the
	// report itself: when File is a dpc watch document, the watch's own
	// summary and the traced machine (see Result.PageDocument).
	Page bool
}

// Result is a report read and filtered to Options.Module.
type Result struct {
	File   string
	Module string
	Report *Report
	// watch is the dpc watch document File holds, read again: the
	// report read from it leaves out the watch's summary (its verdict,
	// the exact longest executions) and the traced machine's host facts.
	watch *result.Document
}

// Run reads the report of o.File and keeps o.Module's histograms.
func Run(ctx context.Context, o Options) (*Result, error) {
	r, err := readFile(ctx, o.File)
	if err != nil {
		return nil, err
	}
	if r, err = filterModule(r, o.File, o.Module); err != nil {
		return nil, err
	}
	res := &Result{File: o.File, Module: o.Module, Report: r}
	if o.Page && Live(r.Source) {
		res.watch = watchDocument(o.File)
	}
	return res, nil
}

// View is the analysed report, the payload of its document.
func (r *Result) View() ReportView { return r.Report.View(r.File, r.Module) }

// Document is the result document of the report (kind dpcisr) on the
// host facts.
func (r *Result) Document(facts host.Facts) *result.Document {
	v := r.View()
	return Kind.New(facts, &v)
}

// PageDocument is the document an HTML page of the report draws. For a
// dpc watch document it is that document, with its watch summary and its
// host, holding the filtered report; otherwise the report's document with
// settings and the host facts.
func (r *Result) PageDocument(facts host.Facts, settings map[string]string) *result.Document {
	v := r.View()
	if r.watch != nil {
		w, _ := Kind.Of(r.watch)
		v.Watch = w.Watch
		doc := *r.watch
		doc.Data = &v
		return &doc
	}
	doc := Kind.New(facts, &v)
	doc.Settings = settings
	return doc
}

// readFile reads a report file within infile's bounds; every failure is
// a badinput.Error naming the file (and the line, for a text report).
func readFile(ctx context.Context, path string) (*Report, error) {
	if etlReport != nil && isETL(path) {
		return etlReport(ctx, path)
	}
	f, err := infile.Open(path)
	if err != nil {
		return nil, badinput.Errorf("cannot read %s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return nil, badinput.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// filterModule keeps only module's histograms (all with no module); a
// module the report lacks is bad input naming the ones it has.
func filterModule(r *Report, file, module string) (*Report, error) {
	if module == "" {
		return r, nil
	}
	if r.Source == SourceLatencyMon {
		return nil, badinput.Errorf("%s: --module %s: a LatencyMon report has no histogram per module, only the drivers with the highest execution and total time", file, module)
	}
	f := r.Filter(module)
	for _, s := range f.Sections {
		if len(s.Modules) > 0 {
			return f, nil
		}
	}
	return nil, badinput.Errorf("%s: no module %q; the report has %s", file, module, strings.Join(r.ModuleNames(), ", "))
}

// watchDocument is the dpc watch document at path, read again; nil for
// any file that is not such a document.
func watchDocument(path string) *result.Document {
	f, err := infile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxInput+1))
	if err != nil || len(b) > MaxInput {
		return nil
	}
	doc, err := result.Read(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return nil
	}
	if _, ok := Kind.Of(doc); !ok {
		return nil
	}
	return doc
}

// unwrapPathErr drops the operation and path of an *os.PathError: the
// message names the file already.
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// CompareOptions are the work of `latlab dpcisr compare`.
type CompareOptions struct {
	// Files are the reports, each xperf's text or a JSON document
	// holding a report (see Read).
	Files []string
	// Labels name the reports, one per file; nil names them by their
	// file names.
	Labels []string
	// Module is the module compared (case-insensitive); empty compares
	// the histograms over all modules.
	Module string
}

// Validate checks the options that need no file read.
func (o CompareOptions) Validate() error {
	if o.Labels != nil && len(o.Labels) != len(o.Files) {
		return badinput.Errorf("--labels has %d names for %d files: give one per file, comma-separated", len(o.Labels), len(o.Files))
	}
	return nil
}

// RunCompare reads every report and compares them (see Compare).
func RunCompare(ctx context.Context, o CompareOptions) (*Comparison, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var runs []Labeled
	for i, f := range o.Files {
		r, err := readFile(ctx, f)
		if err != nil {
			return nil, err
		}
		label := filepath.Base(f)
		if o.Labels != nil {
			label = o.Labels[i]
		}
		runs = append(runs, Labeled{Label: label, Report: r})
	}
	c, err := Compare(runs, o.Module)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	return c, nil
}
