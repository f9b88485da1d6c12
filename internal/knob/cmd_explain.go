package knob

import "context"

// RunExplain decodes value ("" = the knob's value space, or what o asks
// for) of any knob, of either OS, without touching the system: the work
// of `latlab knob explain`.
func RunExplain(ctx context.Context, name, value string, o ExplainOptions) (*ExplainResult, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ex, err := k.Explain(value, o)
	if err != nil {
		return nil, err
	}
	return &ExplainResult{Knob: ex.Knob, Input: value, Text: ex.Text, Decoded: ex.Data}, nil
}
