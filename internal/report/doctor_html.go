package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/units"
)

type doctorProbeView struct {
	Title   string
	What    string
	Rows    [][2]string
	Verdict string
	Band    string
	Notes   []string
	SVGs    []template.HTML
}

// doctorSectionsView is what the summary and settings sections show.
type doctorSectionsView struct {
	Cause      *doctor.Cause
	CauseLines []string
	Tally      string
	Verdict    doctor.Overall
	Summary    [][2]string
	Settings   []doctorSettingView
	Next       []doctor.Step
}

// fillSections adds the summary rows and the settings, worst first.
func fillSections(data *doctorSectionsView, r *doctor.Result) {
	if r.Cause != nil && r.Cause.Missing == "" {
		data.Cause, data.CauseLines = r.Cause, causeLines(r.Cause, true)
	}
	for _, row := range summaryRows(r) {
		data.Summary = append(data.Summary, [2]string{row.label, row.text})
	}
	for _, v := range verdictOrder {
		for _, s := range r.Settings {
			if s.Verdict != v {
				continue
			}
			d := "cannot tell"
			if s.IsDefault != nil {
				d = map[bool]string{true: "yes", false: "no"}[*s.IsDefault]
			}
			data.Settings = append(data.Settings, doctorSettingView{Setting: s, IsDefaultText: d})
		}
	}
}

type doctorSettingView struct {
	doctor.Setting
	IsDefaultText string
}

// DoctorHTML writes a check-up as one self-contained page, the answer
// first (the verdict, the summary of the terminal page, the cause and the
// next steps), the evidence below: inline CSS and
// SVG, no script, a Content-Security-Policy that forbids every load, and
// a layout that stacks the settings table on a phone's narrow screen.
func DoctorHTML(w io.Writer, doc *result.Document, r *doctor.Result) error {
	data := struct {
		doctorSectionsView
		Title, Subtitle string
		Facts           []doctor.Fact
		Probes          []doctorProbeView
		Overhead        string
		Notes           []string
		Host            [][2]string
	}{Title: "latlab check-up", Facts: r.Timer.Facts, Notes: r.Notes,
		doctorSectionsView: doctorSectionsView{Tally: tallyLine(r), Verdict: r.Verdict, Next: r.Next}}
	fillSections(&data.doctorSectionsView, r)
	data.Subtitle = fmt.Sprintf("%s profile on %s, %s, latlab %s", r.Profile, orUnknown(doc.Host.OSVersion),
		doc.Created.Format(time.RFC3339), doc.Tool.Version)
	data.Host = factsOf(&result.Document{Host: doc.Host})
	probes := []*doctor.Probe{r.Sleep, r.Wake}
	for i := range r.Extra {
		probes = append(probes, &r.Extra[i])
	}
	for _, p := range probes {
		if p == nil {
			continue
		}
		v, err := doctorProbe(p)
		if err != nil {
			return err
		}
		data.Probes = append(data.Probes, v)
	}
	if r.Overhead != nil {
		data.Overhead = fmt.Sprintf("tool overhead: clock read %s, zero-length wait %s (p50): the floor latlab itself adds to a sample",
			units.Duration(time.Duration(r.Overhead.ClockReadP50Ns)), units.Duration(time.Duration(r.Overhead.ZeroWaitP50Ns)))
	}
	var b bytes.Buffer
	if err := doctorTemplate().Execute(&b, data); err != nil {
		return fmt.Errorf("render check-up page: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown OS"
	}
	return s
}

func doctorProbe(p *doctor.Probe) (doctorProbeView, error) {
	s := p.Summary
	v := doctorProbeView{Title: p.Name, What: p.What, Verdict: p.Verdict, Band: p.Band, Notes: p.Notes, Rows: [][2]string{
		{"count", fmt.Sprint(s.Count)}, {"min", units.Duration(time.Duration(s.Min))}, {"p50", units.Duration(time.Duration(s.P50))},
	}}
	// no p99 row while the p99 is the maximum (fewer than 100 samples), as
	// the text's tailOf leaves it out
	if s.Count >= 100 {
		v.Rows = append(v.Rows, [2]string{"p99", units.Duration(time.Duration(s.P99))})
	}
	v.Rows = append(v.Rows, [2]string{"max", units.Duration(time.Duration(s.Max))})
	if p.IntervalNs > 0 {
		v.Rows = append(v.Rows, [2]string{"missed periods", fmt.Sprint(p.Overruns)})
	}
	for _, t := range p.Threads {
		v.Rows = append(v.Rows, [2]string{fmt.Sprintf("CPU %d", t.CPU), fmt.Sprintf("p50 %s, %s, %d missed",
			units.Duration(time.Duration(t.Summary.P50)), tailOf(t.Summary, duration), t.Overruns)})
	}
	if len(p.Samples) == 0 {
		return v, nil
	}
	q := "lateness"
	if p.RequestNs > 0 {
		q = "overshoot"
	}
	ser := []Dist{{Name: p.Name, Sorted: slices.Sorted(slices.Values(p.Samples))}}
	for _, render := range []func() ([]byte, error){
		func() ([]byte, error) { return HistogramPlot("Histogram: "+p.Name+" "+q, q, ser, "svg") },
		func() ([]byte, error) { return DistCDFPlot("Cumulative distribution: "+p.Name+" "+q, q, ser, "svg") },
	} {
		b, err := render()
		if err != nil {
			return v, fmt.Errorf("%s plot: %w", p.Name, err)
		}
		v.SVGs = append(v.SVGs, template.HTML(inlineSVG(b))) //nolint:gosec // gonum's SVG writer escapes text
	}
	return v, nil
}

// Parsed on first use: parsing at start-up would cost every command.
var doctorTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("doctor").Parse(pageHead + doctorStyle + pageBody + `<header>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
</header>
{{template "summary" .}}
<main>
<section id="timer">
<h2>Timer</h2>
<div class="scroll"><table><tbody>{{range .Facts}}<tr><td class="k">{{.Name}}</td><td class="v">{{.Value}}</td></tr>
{{end}}</tbody></table></div>
</section>
<section id="probes">
<h2>Probes</h2>
{{range .Probes}}<h3>{{.Title}}</h3>
<p class="sub">{{.What}}</p>
<p class="verdict band-{{.Band}}">{{.Verdict}}</p>
<div class="scroll"><table><tbody>{{range .Rows}}<tr><td class="k">{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</tbody></table></div>
{{range .SVGs}}<figure>{{.}}</figure>
{{end}}{{range .Notes}}<p class="note">note: {{.}}</p>
{{end}}{{end}}{{if .Overhead}}<p class="note">{{.Overhead}}</p>{{end}}
</section>
{{template "cause" .}}
{{template "settings" .}}
{{if .Notes}}<section id="notes">{{range .Notes}}<p class="note">note: {{.}}</p>{{end}}</section>{{end}}
<details><summary>host</summary><div class="scroll"><table><tbody>{{range .Host}}<tr><td class="k">{{index . 0}}</td><td class="v">{{index . 1}}</td></tr>{{end}}</tbody></table></div></details>
</main>
<footer>latlab check-up: one self-contained file; it loads nothing from the network.</footer>
</body>
</html>
` + doctorSections))
})

// doctorStyle is the check-up page's own rules, after pageStyle.
const doctorStyle = `h2 { font-size: 1.2rem; margin: 2rem 0 .4rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .2rem; }
.sub, .note, figcaption { color: #555; font-size: .9rem; }
table { border-collapse: collapse; font-size: .9rem; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
td.k { font-family: ui-monospace, monospace; white-space: nowrap; }
td.v, td.r { overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .7rem; font-size: .8rem; font-weight: 600; white-space: nowrap; }
.b-default { background: #e3f2e9; color: #1d5e3a; }
.b-changed { background: #e4eef8; color: #164b78; }
.b-suspicious { background: #fdf0d8; color: #7a4a00; }
.b-unknown { background: #ececec; color: #444; }
.band-poor, .band-mediocre { border-left-color: #d55e00; }
#verdict { font-size: 1.15rem; font-weight: 600; margin: .6rem 0; }
table.summary td.k { font-weight: 600; }
#summary h2 { margin-top: .8rem; }
.band-good { border-left-color: #009e73; }
details summary { cursor: pointer; color: #0072b2; }
.evidence, .ref { color: #444; font-size: .85rem; margin: .2rem 0 0; }
ol.next code { font-size: .95rem; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  table.settings thead { display: none; }
  table.settings, table.settings tbody, table.settings tr, table.settings td { display: block; width: auto; }
  table.settings tr { border: 1px solid #ddd; border-radius: .4rem; margin: .6rem 0; padding: .3rem; }
  table.settings td { border: none; padding: .15rem .3rem; }
  table.settings td::before { content: attr(data-label) ": "; color: #666; font-size: .8rem; }
}
`

// doctorSections are the parts of the check-up page the live view
// (latlab ui) shows too: the answer and the settings table.
const doctorSections = `{{define "cause"}}{{if .Cause}}<section id="cause">
<h2>Cause</h2>
<p class="sub">{{.Cause.Run}}</p>
<ul>{{range .CauseLines}}<li>{{.}}</li>
{{end}}</ul>{{range .Cause.Notes}}<p class="note">note: {{.}}</p>{{end}}
</section>{{end}}{{end}}{{define "summary"}}<section id="summary">
<p class="verdict band-{{.Verdict.Band}}" id="verdict">{{.Verdict.Text}}</p>
<div class="scroll"><table class="summary"><tbody>{{range .Summary}}<tr><td class="k">{{index . 0}}</td><td class="v">{{index . 1}}</td></tr>
{{end}}</tbody></table></div>
{{if .Next}}<h2>Next steps</h2>
<ol class="next">{{range .Next}}<li><code>{{.Command}}</code><br><span class="sub">{{.Why}}</span></li>
{{end}}</ol>{{end}}
</section>{{end}}{{define "settings"}}<section id="settings">
<h2>Settings</h2>
<p class="sub">{{.Tally}}; read live, the evidence quoted from latlab's knob catalogue</p>
<div class="scroll"><table class="settings">
<thead><tr><th>verdict</th><th>knob</th><th>value</th><th>default</th><th>is default</th><th>reason</th></tr></thead>
<tbody>{{range .Settings}}<tr>
<td data-label="verdict"><span class="badge b-{{.Verdict}}">{{.Verdict}}</span></td>
<td class="k" data-label="knob">{{.Knob}}{{if .Target}}<br><span class="sub">{{.Target}}</span>{{end}}</td>
<td class="v" data-label="value">{{.Value}}</td>
<td class="v" data-label="default">{{.Default}}</td>
<td data-label="is default">{{.IsDefaultText}}</td>
<td class="r" data-label="reason">{{.Reason}}{{if .Evidence}}<details><summary>evidence</summary><p class="evidence">{{.Evidence}}</p></details>{{end}}{{range .References}}<p class="ref">{{.Short}}</p>{{end}}</td>
</tr>
{{end}}</tbody></table></div>
</section>{{end}}`

// DoctorSections renders the check-up's answer (the verdict, the summary,
// the next steps) and its evidence (the cause the summary points to, the
// settings table) as the check-up page does, for a page of latlab's own
// that shows them beside other things (latlab ui); DoctorStyle styles
// them.
func DoctorSections(r *doctor.Result) (summary, evidence template.HTML, err error) {
	data := doctorSectionsView{Verdict: r.Verdict, Next: r.Next, Tally: tallyLine(r)}
	fillSections(&data, r)
	var a, b bytes.Buffer
	if err := doctorTemplate().ExecuteTemplate(&a, "summary", data); err != nil {
		return "", "", fmt.Errorf("render check-up summary: %w", err)
	}
	for _, name := range []string{"cause", "settings"} {
		if err := doctorTemplate().ExecuteTemplate(&b, name, data); err != nil {
			return "", "", fmt.Errorf("render check-up %s: %w", name, err)
		}
	}
	return template.HTML(a.String()), template.HTML(b.String()), nil //nolint:gosec // html/template escaped them
}

// DoctorStyle is the check-up page's style sheet, for a page that loads
// it as a file rather than inline.
func DoctorStyle() string { return pageStyle + doctorStyle }
