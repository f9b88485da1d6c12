// Package knobtest holds the test doubles of the knob backends: an in-memory
// registry (and bcdedit) for tests on any OS. It imports only the backend
// vocabulary, so the knob package's own tests can use it too.
package knobtest

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/latlab/latlab/internal/knob/backend"
)

// Mem is a registry in memory: keys are case-insensitive paths, values
// keep their type and bytes. It stands in for the Windows registry (and
// for bcdedit) in tests on any OS, and behaves like the real one where the
// knobs depend on it: a value needs its key, a key is deleted only empty.
type Mem struct {
	mu     sync.Mutex
	keys   map[string]string        // lower path -> path as created
	vals   map[string]backend.Value // lower path + "\x00" + lower name
	names  map[string]string        // same key -> name as written
	Denied map[string]bool          // lower key paths whose writes fail (as without admin rights)
}

// NewMem returns an empty in-memory registry.
func NewMem() *Mem {
	return &Mem{keys: map[string]string{}, vals: map[string]backend.Value{}, names: map[string]string{}, Denied: map[string]bool{}}
}

func vkey(path, name string) string { return strings.ToLower(path) + "\x00" + strings.ToLower(name) }

// CreateKey creates path and its parents.
func (m *Mem) CreateKey(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.createKey(path)
}

func (m *Mem) createKey(path string) {
	parts := strings.Split(path, `\`)
	for i := range parts {
		p := strings.Join(parts[:i+1], `\`)
		if _, ok := m.keys[strings.ToLower(p)]; !ok {
			m.keys[strings.ToLower(p)] = p
		}
	}
}

// Set stores a value, creating its key: for building test fixtures.
func (m *Mem) Set(path, name string, v backend.Value) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.createKey(path)
	m.vals[vkey(path, name)] = v
	m.names[vkey(path, name)] = name
}

func (m *Mem) Read(l backend.Loc) (backend.Value, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l.Name == "" && l.Backend == backend.BackendRegistry {
		if _, ok := m.keys[strings.ToLower(l.Path)]; ok {
			return backend.KeyValue, nil
		}
		return backend.Absent, nil
	}
	if v, ok := m.vals[vkey(l.Path, l.Name)]; ok {
		return backend.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}, nil
	}
	return backend.Absent, nil
}

func (m *Mem) CheckWrite(l backend.Loc) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checkWrite(l)
}

func (m *Mem) checkWrite(l backend.Loc) error {
	for p := strings.ToLower(l.Path); p != ""; {
		if m.Denied[p] {
			return fmt.Errorf("%s: access is denied", l)
		}
		i := strings.LastIndexByte(p, '\\')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return nil
}

func (m *Mem) Write(l backend.Loc, v backend.Value) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkWrite(l); err != nil {
		return err
	}
	lp := strings.ToLower(l.Path)
	if l.Name == "" && l.Backend == backend.BackendRegistry {
		if !v.IsAbsent() {
			m.createKey(l.Path)
			return nil
		}
		prefix := lp + `\`
		for k := range m.keys {
			if strings.HasPrefix(k, prefix) {
				return fmt.Errorf("%s: key has sub-keys", l.Path)
			}
		}
		for k := range m.vals {
			if strings.HasPrefix(k, lp+"\x00") {
				return fmt.Errorf("%s: key has values", l.Path)
			}
		}
		delete(m.keys, lp)
		return nil
	}
	if _, ok := m.keys[lp]; !ok && l.Backend == backend.BackendRegistry {
		return fmt.Errorf("%s: key does not exist", l.Path)
	}
	k := vkey(l.Path, l.Name)
	if v.IsAbsent() {
		delete(m.vals, k)
		delete(m.names, k)
		return nil
	}
	m.vals[k] = backend.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
	m.names[k] = l.Name
	return nil
}

// List returns the sub-keys and value names of path, sorted.
func (m *Mem) List(path string) (keys, values []string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lp := strings.ToLower(path)
	if _, ok := m.keys[lp]; !ok {
		return nil, nil, fmt.Errorf("%s: %w", path, backend.ErrNotFound)
	}
	for k, orig := range m.keys {
		if strings.HasPrefix(k, lp+`\`) && !strings.Contains(k[len(lp)+1:], `\`) {
			keys = append(keys, orig[len(path)+1:])
		}
	}
	for k, n := range m.names {
		if strings.HasPrefix(k, lp+"\x00") {
			values = append(values, n)
		}
	}
	sort.Strings(keys)
	sort.Strings(values)
	return keys, values, nil
}

// Snapshot is every key and value, for comparing whole states in tests.
func (m *Mem) Snapshot() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := map[string]string{}
	for k := range m.keys {
		s["key:"+k] = ""
	}
	for k, v := range m.vals {
		s["val:"+k] = fmt.Sprintf("%s %x", v.Type, v.Data)
	}
	return s
}
