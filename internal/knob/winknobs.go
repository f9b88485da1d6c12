package knob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/regfile"
)

// The Windows knobs: registry values (through the registry backend, an
// in-memory registry in tests) and one BCD element, one knob per
// winknob_*.go file; this file holds what several of them share. All of
// it is plain logic over the backends, so it runs and is tested on any OS.

type windowsKnob struct{}

func (windowsKnob) OS() string { return "windows" }

func regLoc(key, name string) backend.Loc {
	return backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: name}
}

// parseUint32 reads 38, 0x26 or 26h.
func parseUint32(s string) (uint32, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"):
		s, base = s[2:], 16
	case strings.HasSuffix(s, "h"):
		s, base = s[:len(s)-1], 16
	}
	n, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0, fmt.Errorf("want a 32-bit number (38, 0x26)")
	}
	return uint32(n), nil
}

// ensureKey adds the creation of key and of each missing parent to p, top
// down, so that revert deletes exactly the keys latlab created.
func ensureKey(env *Env, p *Plan, key string) error {
	var missing []string
	for k := key; k != ""; {
		v, err := env.read(regLoc(k, ""))
		if err != nil {
			return err
		}
		if !v.IsAbsent() {
			break
		}
		missing = append(missing, k)
		i := strings.LastIndexByte(k, '\\')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := p.add(env, regLoc(missing[i], ""), backend.KeyValue); err != nil {
			return err
		}
	}
	return nil
}

// regItem reads one registry value into a reading item.
func regItem(env *Env, target string, l backend.Loc, meaning func(backend.Value) string) (Item, error) {
	v, err := env.read(l)
	if err != nil {
		return Item{}, err
	}
	it := item(target, l, v, meaning(v))
	if !v.IsAbsent() {
		it.Value = fmt.Sprintf("%s (%s)", v.String(), v.Type)
	}
	return it, nil
}

func platform(server bool) string {
	if server {
		return "server"
	}
	return "client"
}

// Network adapters: shared by the rss and interrupt-moderation knobs.

// NetClassKey is the device class key of network adapters.
const NetClassKey = regfile.NetClassKey

type adapter struct {
	Index string // class sub-key, 0007
	Key   string
	Name  string // DriverDesc
	GUID  string // NetCfgInstanceId
}

func (a adapter) String() string { return fmt.Sprintf("%s %s", a.Index, a.Name) }

func readSZ(env *Env, key, name string) string {
	v, err := env.read(regLoc(key, name))
	if err != nil || v.IsAbsent() {
		return ""
	}
	return v.String()
}

func adapters(env *Env) ([]adapter, error) {
	keys, _, err := env.list(backend.BackendRegistry, NetClassKey)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list network adapters: %w", err)
	}
	var out []adapter
	for _, k := range keys {
		if _, err := strconv.Atoi(k); err != nil || len(k) != 4 {
			continue // "Properties" and the like
		}
		key := NetClassKey + `\` + k
		name := readSZ(env, key, "DriverDesc")
		if name == "" {
			continue
		}
		out = append(out, adapter{Index: k, Key: key, Name: name, GUID: readSZ(env, key, "NetCfgInstanceId")})
	}
	return out, nil
}

// findAdapter picks an adapter by exact name, class index (7 or 0007),
// interface GUID, or a unique part of the name.
func findAdapter(env *Env, want string) (adapter, error) {
	as, err := adapters(env)
	if err != nil {
		return adapter{}, err
	}
	var names []string
	for _, a := range as {
		names = append(names, fmt.Sprintf("%q (%s)", a.Name, a.Index))
	}
	if n, err := strconv.Atoi(want); err == nil {
		idx := fmt.Sprintf("%04d", n)
		for _, a := range as {
			if a.Index == idx {
				return a, nil
			}
		}
	}
	for _, a := range as {
		if strings.EqualFold(a.Name, want) || (a.GUID != "" && strings.EqualFold(strings.Trim(a.GUID, "{}"), strings.Trim(want, "{}"))) {
			return a, nil
		}
	}
	var partial []adapter
	for _, a := range as {
		if strings.Contains(strings.ToLower(a.Name), strings.ToLower(want)) {
			partial = append(partial, a)
		}
	}
	if len(partial) == 1 {
		return partial[0], nil
	}
	if len(partial) > 1 {
		return adapter{}, badinput.Errorf("adapter %q matches %d adapters: name one exactly or by index (%s)", want, len(partial), strings.Join(names, ", "))
	}
	if len(as) == 0 {
		return adapter{}, badinput.Errorf("unknown adapter %q: no network adapters found under %s", want, NetClassKey)
	}
	return adapter{}, badinput.Errorf("unknown adapter %q: accepted %s", want, strings.Join(names, ", "))
}

// selectAdapters returns the named adapter, or every adapter when none is named.
func selectAdapters(env *Env, sel Selector) ([]adapter, error) {
	if sel.Adapter != "" {
		a, err := findAdapter(env, sel.Adapter)
		return []adapter{a}, err
	}
	return adapters(env)
}

// declared reports whether the adapter's INF declares keyword (it has an
// Ndi\Params\<keyword> key: the Advanced tab shows it).
func declared(env *Env, a adapter, keyword string) bool {
	v, err := env.read(regLoc(a.Key+`\Ndi\Params\`+keyword, ""))
	return err == nil && !v.IsAbsent()
}
