package knob

import "context"

// ListOptions are the work of `latlab knob list`.
type ListOptions struct {
	// All lists the other OS's knobs too, by name and summary only.
	All bool
	// Root is the filesystem root of the Linux backends (--root).
	Root string
	// Env is what the knobs read through; nil = NewEnv(Root).
	Env *Env
}

// RunList reads every knob of this OS. A knob that cannot be read is
// listed with its error, not dropped.
func RunList(ctx context.Context, o ListOptions) (*List, error) {
	env := envOf(o.Env, o.Root)
	ks := Native()
	if o.All {
		ks = All()
	}
	l := &List{OS: HostOS, Knobs: []ListEntry{}}
	for _, k := range ks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := ListEntry{Name: k.Name(), OS: k.OS(), Summary: k.Summary()}
		if IsNative(k) {
			r, err := k.Get(env, Selector{})
			if err != nil {
				e.Error = err.Error()
			} else {
				e.Reading = r
			}
		}
		l.Knobs = append(l.Knobs, e)
	}
	return l, nil
}
