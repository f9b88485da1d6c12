package knob

import "context"

// GetOptions are the work of `latlab knob get`.
type GetOptions struct {
	Knob string
	// Sel picks the instances (adapter, IRQ, PID, ...); empty = all.
	Sel Selector
	// Root is the filesystem root of the Linux backends (--root).
	Root string
	// Env is what the knob reads through; nil = NewEnv(Root).
	Env *Env
}

// RunGet reads one knob of this OS, decoded, per instance. A knob of the
// other OS is a badinput.Error: only explain works on it here.
func RunGet(ctx context.Context, o GetOptions) (*Reading, error) {
	k, err := lookupNative(o.Knob)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return k.Get(envOf(o.Env, o.Root), o.Sel)
}
