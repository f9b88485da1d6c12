package report

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/result"
)

const bundleReadme = `latlab check-up bundle

doctor.json      the result document (latlab.result/1, kind doctor)
doctor.html      the same check-up as a page; open it in any browser
*-ns.txt         the raw samples of each probe, one value in nanoseconds
                 per line: sleep overshoot (slept - requested), wake
                 lateness (wake time - deadline)

Made for sharing: user and host names, paths under home directories and
hardware addresses were taken out (they read <user>, <host>, ~ and <mac>),
display configurations are numbered instead of named by their monitors'
serial numbers, and file names in the settings keep only their base name.
`

// DoctorBundle writes a check-up as a zip for a forum post or a bug
// report: the document, the page and the raw samples, with the identity
// taken out. It refuses to write a bundle in which any part of the
// identity remains.
func DoctorBundle(w io.Writer, doc *result.Document, r *doctor.Result, id doctor.Identity) error {
	rr, rd, err := doctor.Redact(r, doc, id)
	if err != nil {
		return err
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	var js bytes.Buffer
	if err := result.Write(&js, rd); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := DoctorHTML(&page, rd, rr); err != nil {
		return err
	}
	files = append(files, file{"README.txt", []byte(bundleReadme)}, file{"doctor.json", js.Bytes()}, file{"doctor.html", page.Bytes()})
	probes := []*doctor.Probe{rr.Sleep, rr.Wake}
	for i := range rr.Extra {
		probes = append(probes, &rr.Extra[i])
	}
	for _, p := range probes {
		if p == nil || len(p.Samples) == 0 {
			continue
		}
		q := "lateness"
		if p.RequestNs > 0 {
			q = "overshoot"
		}
		var b strings.Builder
		for _, v := range p.Samples {
			b.WriteString(strconv.FormatInt(v, 10))
			b.WriteByte('\n')
		}
		files = append(files, file{fmt.Sprintf("%s-%s-ns.txt", p.Name, q), []byte(b.String())})
	}
	for _, f := range files {
		if leaks := id.Leaks(f.data); len(leaks) > 0 {
			return fmt.Errorf("bundle: %s would contain the %s; nothing was written", f.name, strings.Join(leaks, ", "))
		}
	}
	zw := zip.NewWriter(w)
	for _, f := range files {
		// The document's creation time, not the local clock and zone.
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: rd.Created})
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}
