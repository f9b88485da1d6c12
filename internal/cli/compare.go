package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

func init() { register(newCompareCmd) }

// CompareOptions are the flags of `latlab compare`.
type CompareOptions struct {
	IO           *IO
	Files        []string
	By           string
	Seed         uint64
	Detect       float64
	ExpectBetter string
	JSON         bool
	Out          string

	settings map[string]string
}

func newCompareCmd(io *IO) *cobra.Command {
	o := &CompareOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "compare A B [more ...]",
		Short: "say with statistics whether results differ (bootstrap CIs, Mann-Whitney, KS)",
		Long: `Compares results of the same kind (sleep or wake) with statistics: for each of
p50, p90, p99 (p99.9 with 1000+ samples) and the mean, the difference B - A with
a percentile-bootstrap 95% confidence interval (seeded: the same --seed gives
the same interval), the Mann-Whitney U test, the Kolmogorov-Smirnov distance,
and a one-line verdict on the --by statistic. When nothing is detected it
says how many more samples would detect a --detect change (5% by default).

With more than two files each is compared with the first, the runs are ranked
by --by (ties by stdev), intervals are Bonferroni-adjusted so that all hold
together at 95%, and Mann-Whitney p-values are Holm-adjusted.

A side with fewer than 20 samples (or, for a percentile, fewer than make its
interval end on an observed sample: 368 for p99) gets no verdict, and
--expect-better then fails.

tcp-discard results are compared run by run: each transfer's duration and
goodput, with repeated runs of a side given as a directory of results or a
comma-separated list (20 runs per side for a verdict); the RTT samples inside
one transfer are not pooled.

Percentiles are nearest-rank (values that occurred). Lower is better.`,
		Example: `  latlab compare before.json after.json
  latlab compare r0500.json r0507.json --by p99
  latlab compare base.json cand*.json --expect-better cand3.json
  latlab compare before/ after/          # tcp-discard: a directory of runs per side`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.settings = settingsOf(cmd.Flags())
			return runCompare(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.By, "by", "p50", "statistic for the verdict and ranking: p50, p90, p99, p99.9, mean")
	fs.Uint64Var(&o.Seed, "seed", 1, "bootstrap seed (same seed, same intervals)")
	fs.Float64Var(&o.Detect, "detect", 0.05, "relative change the sample-size advice is for (0.05 = 5%)")
	fs.StringVar(&o.ExpectBetter, "expect-better", "", "exit 1 unless this file is significantly better (lower --by) than the first")
	fs.BoolVar(&o.JSON, "json", false, "write the comparison as a result document (kind compare)")
	fs.StringVarP(&o.Out, "output", "o", "", "also write the result document to this file")
	return cmd
}

// maxRunsPerSide bounds the files one side (a directory or a list) may
// name: far more repeated runs than anyone makes, few enough to read.
const maxRunsPerSide = 10000

// readResults reads one side per argument: a result file, a directory (its
// *.json files, in name order) or a comma-separated list of files, the
// last two being repeated runs of one side. Any unreadable or invalid file
// is bad input.
func readResults(args []string) ([]compare.Input, error) {
	var in []compare.Input
	for _, arg := range args {
		files, label, err := sideFiles(arg)
		if err != nil {
			return nil, err
		}
		x := compare.Input{Label: label}
		for i, f := range files {
			d, err := readResult(f)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				x.Doc = d
			} else {
				x.More = append(x.More, d)
			}
		}
		in = append(in, x)
	}
	return in, nil
}

func sideFiles(arg string) (files []string, label string, err error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		ents, err := os.ReadDir(arg)
		if err != nil {
			return nil, "", Usagef("cannot read the directory %s: %v", arg, err)
		}
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				files = append(files, filepath.Join(arg, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, "", Usagef("the directory %s holds no .json result files", arg)
		}
		label = filepath.Base(filepath.Clean(arg)) + "/"
	} else if strings.Contains(arg, ",") {
		for _, f := range strings.Split(arg, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return nil, "", Usagef("invalid list %q: an empty file name between commas (want A1.json,A2.json,...)", arg)
			}
			files = append(files, f)
		}
		label = filepath.Base(files[0]) + fmt.Sprintf("+%d", len(files)-1)
	} else {
		return []string{arg}, filepath.Base(arg), nil
	}
	if len(files) > maxRunsPerSide {
		return nil, "", Usagef("%s names %d result files: at most %d per side are read", arg, len(files), maxRunsPerSide)
	}
	return files, label, nil
}

func readResult(f string) (*result.Document, error) {
	d, err := result.ReadFile(f)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Usagef("cannot read %s: no such file", f)
		}
		if errors.Is(err, result.ErrNotResult) {
			return nil, Usage(err)
		}
		return nil, Usagef("cannot read %s: %v", f, err)
	}
	return d, nil
}

func runCompare(ctx context.Context, o *CompareOptions) error {
	if len(o.Files) == 0 || (len(o.Files) == 1 && !isTryResult(o.Files[0])) {
		return Usagef("compare needs at least two result files (or one try result), got %d: e.g. latlab compare before.json after.json", len(o.Files))
	}
	by, err := stats.ParseStatistic(o.By)
	if err != nil || by == stats.Stdev {
		return Usagef("invalid --by %q: accepted p50, p90, p99, p99.9 (any pN) or mean", o.By)
	}
	if !(o.Detect > 0 && o.Detect < 10) {
		return Usagef("invalid --detect %v: want a relative change such as 0.05 (5%%)", o.Detect)
	}
	expect := -1
	if o.ExpectBetter != "" {
		for i, f := range o.Files {
			if f == o.ExpectBetter || filepath.Base(f) == o.ExpectBetter {
				expect = i
			}
		}
		if expect < 0 && !strings.HasSuffix(o.ExpectBetter, "]") {
			return Usagef("--expect-better %s is not one of the compared files", o.ExpectBetter)
		}
		if expect == 0 && !isTryResult(o.Files[0]) {
			return Usagef("--expect-better %s names the first file, the baseline the others are compared with", o.ExpectBetter)
		}
	}
	in, err := readResults(o.Files)
	if err != nil {
		return err
	}
	// A try result stands for its arms.
	if in, expect, err = expandTry(in, expect, o.ExpectBetter); err != nil {
		return err
	}
	labels := map[string]bool{}
	for i := range in {
		if labels[in[i].Label] { // two files of the same name in different folders
			first := strings.Split(o.Files[i], ",")[0]
			in[i].Label = filepath.Join(filepath.Base(filepath.Dir(first)), in[i].Label)
			if labels[in[i].Label] {
				in[i].Label = o.Files[i]
			}
		}
		labels[in[i].Label] = true
	}
	res, err := compare.Compare(in, compare.Options{By: by, Seed: o.Seed, Detect: o.Detect})
	if err != nil {
		if errors.Is(err, compare.ErrIncompatible) {
			return Usage(err)
		}
		return err
	}
	doc := compare.Kind.New(res)
	doc.Settings = o.settings
	doc.Notes = append(doc.Notes, res.Notes...)
	if err := emitResult(o.IO, doc, o.Out, o.JSON, func(w io.Writer) { printCompare(w, res) }); err != nil {
		return err
	}
	if expect > 0 {
		p := res.Pairs[expect-1]
		if p.Outcome != compare.Faster {
			msg := fmt.Sprintf("expected %s to be significantly better than %s at %s: %s", p.BLabel, p.ALabel, p.ByName, p.Outcome)
			if p.Outcome == compare.TooFew {
				msg += fmt.Sprintf(" (%d and %d; judging %s needs %s)", p.BCount, p.ACount, p.ByName, perRun(p.MinSamples))
			}
			return &ExpectationError{Msg: msg}
		}
	}
	return nil
}

func printCompare(w io.Writer, r *compare.Result) {
	what := "runs"
	if r.PerRun {
		what = "sides"
	}
	fmt.Fprintf(w, "latlab compare: %s, %d %s, verdict by %s; bootstrap %s CIs (seed %d)\n\n", r.Quantity, len(r.Runs), what, r.By, levelPct(r.Level), r.Seed)
	if len(r.Runs) == 2 {
		printPair(w, r, r.Pairs[0])
		fmt.Fprintf(w, "\nverdict: %s\n", r.Pairs[0].Verdict)
	} else {
		printRanking(w, r)
		fmt.Fprintln(w)
		for _, p := range r.Pairs {
			fmt.Fprintf(w, "- %s\n", p.Verdict)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func levelPct(level float64) string {
	s := fmt.Sprintf("%.2f", level*100)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

func printPair(w io.Writer, r *compare.Result, p compare.Pair) {
	a, b := r.Runs[p.A], r.Runs[p.B]
	count := samplesN
	if r.PerRun {
		count = runsN
	}
	fmt.Fprintf(w, "A = %s (%s)\nB = %s (%s)", a.Label, count(a.Summary.Count), b.Label, count(b.Summary.Count))
	if b.Settings != "" {
		fmt.Fprintf(w, ": %s", b.Settings)
	}
	fmt.Fprint(w, "\n\n")
	var rows, gp [][]string
	var short []string
	unit, div := bitrateUnit(a.GoodputP50)
	for _, row := range p.Rows {
		fv, fs := compare.FormatNs, compare.FormatSigned
		if row.Unit == "bit/s" {
			// Goodput gets its own table, in one unit, to stay narrow.
			fv = func(v float64) string { return fmt.Sprintf("%.3f", v/div) }
			fs = func(v float64) string { return fmt.Sprintf("%+.3f", v/div) }
		}
		cells := []string{row.Stat, fv(row.A), fv(row.B), "-", "-", ""}
		if row.Diff == nil {
			need := fmt.Sprint(row.NeedsSamples)
			if row.NeedsSamples == math.MaxInt {
				need = "no count suffices"
			} else if len(short) == 0 {
				need = "needs " + need
			}
			short = append(short, fmt.Sprintf("%s (%s)", row.Stat, need))
		} else {
			cells = []string{row.Stat, fv(row.A), fv(row.B), fs(row.Diff.Estimate),
				"[" + fs(row.Diff.Lo) + ", " + fs(row.Diff.Hi) + "]", fmt.Sprintf("%+.1f%%", row.RelChange*100)}
		}
		if row.Unit == "bit/s" {
			cells[0] = strings.TrimSuffix(cells[0], " goodput")
			gp = append(gp, cells)
		} else {
			rows = append(rows, cells)
		}
	}
	hdr := []string{"", "A", "B", "B - A", levelPct(r.Level) + " CI", "change"}
	if r.PerRun {
		hdr[0] = "duration"
	}
	report.Table(w, hdr, rows)
	if len(gp) > 0 {
		fmt.Fprintln(w)
		report.Table(w, []string{"goodput (" + unit + ")", "A", "B", "B - A", levelPct(r.Level) + " CI", "change"}, gp)
	}
	if len(short) > 0 {
		per := "samples per run"
		if r.PerRun {
			per = "runs per side"
		}
		fmt.Fprintf(w, "\nno interval, too few %s for: %s\n", per, strings.Join(short, ", "))
	}
	fmt.Fprintf(w, "\nMann-Whitney U = %.0f, %s (P(A > B) = %.2f); Kolmogorov-Smirnov D = %.3f, %s\n",
		p.MWU.U, stats.FormatP(p.PAdjusted), p.MWU.Superiority, p.KS.D, stats.FormatP(p.KS.P))
}

// perRun renders a per-run sample minimum; MaxInt means no count suffices.
func perRun(n int) string {
	if n == math.MaxInt {
		return "more samples than any run has (an extreme)"
	}
	return fmt.Sprintf("%d per run", n)
}

func printRanking(w io.Writer, r *compare.Result) {
	rows := [][]string{}
	for rank, i := range r.Ranking {
		run := r.Runs[i]
		diff, p, out := "baseline", "", ""
		if i > 0 {
			pp := r.Pairs[i-1]
			diff = "-"
			if d := pp.ByDiff; d != nil {
				diff = compare.FormatSigned(d.Estimate) + " [" + compare.FormatSigned(d.Lo) + ", " + compare.FormatSigned(d.Hi) + "]"
			}
			p = stats.FormatP(pp.PAdjusted)
			out = string(pp.Outcome)
		}
		rows = append(rows, []string{fmt.Sprint(rank + 1), run.Label, fmt.Sprint(run.Summary.Count), compare.FormatNs(float64(run.Summary.P50)),
			compare.FormatNs(float64(run.Summary.P99)), compare.FormatNs(run.Summary.Mean), diff, p, out, run.Settings})
	}
	report.Table(w, []string{"#", "run", "n", "p50", "p99", "mean", r.By + " vs first [" + levelPct(r.Level) + " CI]", "MWU (Holm)", "", "settings"}, rows)
}

func samplesN(n int64) string {
	if n == 1 {
		return "1 sample"
	}
	return fmt.Sprintf("%d samples", n)
}

func runsN(n int64) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// bitrateUnit picks the unit netload.FormatBitrate would give v.
func bitrateUnit(v float64) (string, float64) {
	switch {
	case v >= 1e9:
		return "Gbit/s", 1e9
	case v >= 1e6:
		return "Mbit/s", 1e6
	case v >= 1e3:
		return "kbit/s", 1e3
	}
	return "bit/s", 1
}
