package compare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// Arms turns a result that holds several arms (a try result) into one
// input per arm, the baseline first, each labelled from label; the
// samples it rebuilds from histograms are charged to b, the budget of
// the whole comparison. compare cannot read such results itself: the
// packages that write them import compare.
type Arms func(label string, d *result.Document, b *result.Budget) ([]Input, error)

// RunOptions are the inputs of `latlab compare`.
type RunOptions struct {
	// Files are the sides, one per argument: a result file (or a
	// cyclictest histogram, told apart by content), a directory
	// (its *.json files) or a comma-separated list of files, the last two
	// being repeated runs of one side (see ReadInputs).
	Files []string
	// By names the statistic of the verdict and the ranking: p50, p90,
	// p99, p99.9 (any pN) or mean.
	By          string
	Seed        uint64
	Detect      float64 // relative change the sample-size advice is for
	DetectAsked bool    // the user chose Detect (--detect)
	// ExpectBetter names the file (path or base name) or the arm
	// ("file.json[VALUE]") that should be significantly better than the
	// first; empty for no expectation.
	ExpectBetter string
	// Arms, by result kind, expands a result into its arms; a file of such
	// a kind may be compared alone.
	Arms map[string]Arms
}

// Validate checks the options that need no file read: --by and --detect.
// Bad input is a badinput.Error.
func (o RunOptions) Validate() error {
	by, err := stats.ParseStatistic(o.By)
	if err != nil || by == stats.Stdev {
		return badinput.Errorf("invalid --by %q: accepted p50, p90, p99, p99.9 (any pN) or mean", o.By)
	}
	if !(o.Detect > 0 && o.Detect < 10) {
		return badinput.Errorf("invalid --detect %v: want a relative change above 0 and below 10, such as 0.05 (5%%)", o.Detect)
	}
	return nil
}

// Run is the work of `latlab compare`: it checks the options, reads the
// sides, expands results that hold arms, names every input uniquely and
// compares each with the first. Whether --expect-better holds is
// Result.Expectation.
func Run(_ context.Context, o RunOptions) (*Result, error) {
	if len(o.Files) == 0 || (len(o.Files) == 1 && !o.hasArms(o.Files[0])) {
		return nil, badinput.Errorf("compare needs at least two result files (or one try result), got %d: e.g. latlab compare before.json after.json", len(o.Files))
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	by, _ := stats.ParseStatistic(o.By)
	expect := -1
	if o.ExpectBetter != "" {
		for i, f := range o.Files {
			if f == o.ExpectBetter || filepath.Base(f) == o.ExpectBetter {
				expect = i
			}
		}
		if expect < 0 && !strings.HasSuffix(o.ExpectBetter, "]") {
			return nil, badinput.Errorf("--expect-better %s is not one of the compared files", o.ExpectBetter)
		}
		if expect == 0 && !o.hasArms(o.Files[0]) {
			return nil, badinput.Errorf("--expect-better %s names the first file, the baseline the others are compared with", o.ExpectBetter)
		}
	}
	in, err := ReadInputs(o.Files)
	if err != nil {
		return nil, err
	}
	// One budget for the samples rebuilt from every input's histograms,
	// the arms of try results included.
	budget := result.NewBudget()
	in, from, expect, err := o.expand(in, expect, budget)
	if err != nil {
		return nil, err
	}
	// Checked on the arms, which a try's probe decides the kind of.
	if o.ExpectBetter != "" && isNoise(in[0].Doc.Kind) {
		return nil, badinput.Errorf("--expect-better takes results of one distribution (sleep, wake, ...); noise results are compared CPU by CPU, by rate and by length: read the verdicts")
	}
	if o.ExpectBetter != "" && isDPCISR(in[0].Doc.Kind) {
		return nil, badinput.Errorf("--expect-better takes results of one distribution (sleep, wake, ...); the arms of a dpcisr try are compared section by section, by a chi-squared test over the buckets: read the verdicts")
	}
	// Files of the same name in different folders are each named with
	// their folder: the first keeping the bare name read as if it were
	// the only one.
	bare := map[string]int{}
	for i := range in {
		bare[in[i].Label]++
	}
	labels := map[string]bool{}
	for i := range in {
		if labels[in[i].Label] || bare[in[i].Label] > 1 {
			arg := o.Files[from[i].file]
			first := strings.Split(arg, ",")[0]
			label := in[i].Label
			in[i].Label = filepath.Join(filepath.Base(filepath.Dir(first)), label)
			if labels[in[i].Label] {
				in[i].Label = arg
				if from[i].arm { // keep the "[VALUE]" the argument lacks
					in[i].Label = filepath.Join(filepath.Dir(first), label)
				}
			}
		}
		labels[in[i].Label] = true
	}
	r, err := Compare(in, Options{By: by, Seed: o.Seed, Detect: o.Detect, DetectAsked: o.DetectAsked, Budget: budget})
	if err != nil {
		return nil, err
	}
	if expect > 0 {
		r.expect = expect
	}
	return r, nil
}

// Expectation says whether the input --expect-better named is
// significantly better than the first: met is true when it is, or when no
// expectation was set; why says what was found instead.
func (r *Result) Expectation() (met bool, why string) {
	if r.expect <= 0 || r.expect > len(r.Pairs) {
		return true, ""
	}
	p := r.Pairs[r.expect-1]
	if p.Outcome == Faster {
		return true, ""
	}
	why = fmt.Sprintf("expected %s to be significantly better than %s at %s: %s", p.BLabel, p.ALabel, p.ByName, p.Outcome)
	if p.Outcome == TooFew {
		why += fmt.Sprintf(" (%d and %d; judging %s needs %s)", p.BCount, p.ACount, p.ByName, perRunMinimum(p.MinSamples))
	}
	return false, why
}

// perRunMinimum renders a per-run sample minimum; MaxInt means no count
// suffices.
func perRunMinimum(n int) string {
	if n == math.MaxInt {
		return "more samples than any run has (an extreme)"
	}
	return fmt.Sprintf("%d per run", n)
}

// hasArms reports whether path holds a result that stands for its arms
// (compare takes one alone: its arms are the runs compared).
func (o RunOptions) hasArms(path string) bool {
	if isJSON, err := looksJSON(path); err == nil && !isJSON {
		return false
	}
	d, err := result.ReadFile(path)
	return err == nil && o.Arms[d.Kind] != nil
}

// expand replaces each result that holds arms by its arms, the baseline
// first, and finds --expect-better among them (expect is its index among
// the files, -1 when it names no file, as an arm label "file.json[VALUE]"
// does). from says where each input returned came from.
func (o RunOptions) expand(in []Input, expect int, b *result.Budget) (out []Input, from []origin, _ int, _ error) {
	name := o.ExpectBetter
	newExpect := -1
	for i, x := range in {
		arms := o.Arms[x.Doc.Kind]
		if arms == nil {
			if i == expect {
				newExpect = len(out)
			}
			out = append(out, x)
			from = append(from, origin{file: i})
			continue
		}
		if i == expect {
			return nil, nil, -1, badinput.Errorf("--expect-better %s is a %s result: name one of its arms, e.g. %s[VALUE]", name, x.Doc.Kind, x.Label)
		}
		xs, err := arms(x.Label, x.Doc, b)
		if err != nil {
			return nil, nil, -1, badinput.Wrap(err)
		}
		for j, a := range xs {
			if a.Label == name || (expect < 0 && strings.HasSuffix(name, "]") && filepath.Base(name) == a.Label) {
				if j == 0 && len(out) == 0 {
					return nil, nil, -1, badinput.Errorf("--expect-better %s names the baseline the others are compared with", name)
				}
				newExpect = len(out) + j
			}
		}
		out = append(out, xs...)
		for range xs {
			from = append(from, origin{file: i, arm: true})
		}
	}
	if name != "" && newExpect < 0 {
		return nil, nil, -1, badinput.Errorf("--expect-better %s is not one of the compared files or arms", name)
	}
	return out, from, newExpect, nil
}

// origin is where an input came from: the index of its file argument, and
// whether it is one arm of the result that file holds.
type origin struct {
	file int
	arm  bool
}

// maxRunsPerSide bounds the files one side (a directory or a list) may
// name: far more repeated runs than anyone makes, few enough to read.
const maxRunsPerSide = 10000

// ReadInputs reads one side per argument: a result file, a directory (its
// *.json files, in name order) or a comma-separated list of files, the
// last two being repeated runs of one side. Any unreadable or invalid file
// is bad input (a badinput.Error).
func ReadInputs(args []string) ([]Input, error) {
	var in []Input
	for _, arg := range args {
		files, label, err := sideFiles(arg)
		if err != nil {
			return nil, err
		}
		x := Input{Label: label}
		for i, f := range files {
			d, err := readFile(f)
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

// sideFiles lists the files one argument names and the label of its side.
func sideFiles(arg string) (files []string, label string, err error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		ents, err := os.ReadDir(arg)
		if err != nil {
			return nil, "", badinput.Errorf("cannot read the directory %s: %v", arg, err)
		}
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				files = append(files, filepath.Join(arg, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, "", badinput.Errorf("the directory %s holds no .json result files", arg)
		}
		label = filepath.Base(filepath.Clean(arg)) + "/"
	} else if strings.Contains(arg, ",") {
		for _, f := range strings.Split(arg, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return nil, "", badinput.Errorf("invalid list %q: an empty file name between commas (want A1.json,A2.json,...)", arg)
			}
			files = append(files, f)
		}
		label = filepath.Base(files[0]) + fmt.Sprintf("+%d", len(files)-1)
	} else {
		return []string{arg}, filepath.Base(arg), nil
	}
	if len(files) > maxRunsPerSide {
		return nil, "", badinput.Errorf("%s names %d result files: at most %d per side are read", arg, len(files), maxRunsPerSide)
	}
	return files, label, nil
}

// readFile reads a side's file: a result document, rtla timerlat hist
// output or a cyclictest histogram (told apart by content: a document
// starts with "{", rtla's output has its header).
func readFile(f string) (*result.Document, error) {
	if isJSON, err := looksJSON(f); err == nil && !isJSON {
		if d, ok, err := readTimerlat(f); ok {
			return d, err
		}
		return readHistogram(f)
	}
	d, err := result.ReadFile(f)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, badinput.Errorf("cannot read %s: no such file", f)
		}
		if errors.Is(err, result.ErrNotResult) {
			return nil, badinput.Wrap(err)
		}
		return nil, badinput.Errorf("cannot read %s: %v", f, err)
	}
	return d, nil
}
