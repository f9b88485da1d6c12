package inf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/regfile"
	"github.com/latlab/latlab/internal/result"
)

// Options are the work of `latlab inf`.
type Options struct {
	// File is the INF. The files its Include= lines name are read from
	// the same folder first, then from IncludeDirs in order.
	File string
	// IncludeDirs are where the system-supplied INFs that Include= names
	// are ("one or more additional system-supplied INF files", Microsoft's
	// INF DDInstall section): %SystemRoot%\INF on Windows (SystemINFDirs),
	// or a copy of it given with --include-dir.
	IncludeDirs []string
	// Device is the hardware ID to analyse; empty lists every device.
	Device string
	// OS, Product and Arch are the Windows the decorations are matched
	// against (see ParseTarget).
	OS, Product, Arch string
	// Lang is the LANGID of the [Strings.LANGID] section to use; empty:
	// the unlocalized [Strings].
	Lang string
	// Reg asks for Result.Reg: the .reg file adding the RSS keywords the
	// device lacks. It needs Device.
	Reg bool
}

// Result is what Run found: Listing without Options.Device, Device with it.
type Result struct {
	File    *File
	Listing *Listing
	Device  *DeviceReport
	// Reg is the .reg file (UTF-16LE with a BOM, CRLF, as regedit writes
	// version 5 files) when Options.Reg asked for it.
	Reg []byte
}

// Validate checks the options that need no file read: the target
// (--os, --product, --arch) and --reg-out's need of --device. Bad input is
// a badinput.Error.
func (o Options) Validate() error {
	if _, err := ParseTarget(o.OS, o.Product, o.Arch); err != nil {
		return badinput.Errorf("invalid --os/--product/--arch: %w", err)
	}
	if o.Reg && o.Device == "" {
		return badinput.Errorf("--reg-out needs --device: the .reg file adds one device's missing keywords")
	}
	return nil
}

// overexpanded is the error of an INF whose %strkey% tokens expanded past
// maxExpanded: the answer was read from strings left unexpanded.
func overexpanded(name string, f *File) error {
	if !f.Overexpanded() {
		return nil
	}
	return badinput.Errorf("%s: its %%strkey%% tokens expand to more than %d MiB: expected [Strings] values named a few times each", name, maxExpanded>>20)
}

// Run reads the INF and follows its install chain: for every device
// (List) or for Options.Device (Analyze).
func Run(_ context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t, _ := ParseTarget(o.OS, o.Product, o.Arch)
	f, err := parseFile(o.File)
	var pe *ParseError
	switch {
	case errors.As(err, &pe):
		return nil, badinput.Errorf("%s: %w", o.File, err)
	case err != nil:
		return nil, badinput.Errorf("cannot read %s: %w", o.File, unwrapPathErr(err))
	}
	if o.Lang != "" && f.Section("Strings."+o.Lang) == nil {
		return nil, badinput.Errorf("%s has no [Strings.%s]; its languages: %s", o.File, o.Lang, orNone(f.Languages()))
	}
	load := includeLoader(o.File, o.IncludeDirs)
	res := &Result{File: f}
	if o.Device == "" {
		if res.Listing, err = List(f, t, o.Lang, load); err != nil {
			return nil, badinput.Errorf("%s: %w", o.File, err)
		}
		return res, overexpanded(o.File, f)
	}
	if res.Device, err = Analyze(f, o.Device, t, o.Lang, load); err != nil {
		return nil, badinput.Errorf("%s: %w", o.File, err)
	}
	if err := overexpanded(o.File, f); err != nil {
		return nil, err
	}
	if o.Reg {
		if len(res.Device.MissingRSS) == 0 {
			return nil, badinput.Errorf("%s: no RSS keyword that another install section of this INF installs is missing for %s on this Windows; no .reg file written", o.File, o.Device)
		}
		var b bytes.Buffer
		if _, err := WriteReg(&b, res.Device); err != nil {
			return nil, err
		}
		res.Reg = regfile.Encode(b.String())
	}
	return res, nil
}

// Document is the result document of the listing or the device report,
// on the host facts.
func (r *Result) Document(facts host.Facts) *result.Document {
	if r.Device != nil {
		return KindDevice.New(facts, r.Device)
	}
	return KindList.New(facts, r.Listing)
}

// includeLoader reads the INFs that Include= names from the folder of
// path, then from dirs. Their failures become notes of the analysis, so
// they name the file but not the folder of path.
func includeLoader(path string, dirs []string) Loader {
	dir := filepath.Dir(path)
	return func(name string) (*File, error) {
		base := filepath.Base(name)
		for _, d := range append([]string{dir}, dirs...) {
			p := filepath.Join(d, base)
			g, err := parseFile(p)
			shown := p // an include directory is named whole
			if d == dir {
				shown = base
			}
			var pe *ParseError
			switch {
			case errors.As(err, &pe):
				return nil, fmt.Errorf("%s: %v", shown, err)
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				return nil, fmt.Errorf("%s: %v", shown, unwrapPathErr(err))
			}
			return g, nil
		}
		where := "next to " + filepath.Base(path)
		if len(dirs) > 0 {
			where += " or in " + strings.Join(dirs, ", ")
		}
		return nil, fmt.Errorf("not found %s", where)
	}
}

// parseFile reads and parses the INF at path, within infile's bounds.
func parseFile(path string) (*File, error) {
	fh, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Parse(fh, filepath.Base(path))
}

// unwrapPathErr drops the operation and path of an *os.PathError: the
// message names the file already.
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// orNone joins names with ", ", or says "none".
func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
