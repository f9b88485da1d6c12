package backend

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"github.com/latlab/latlab/internal/winapi"
)

// Registry is the Windows registry. Values are read and written as raw
// bytes with their type number, so a restore is byte for byte whatever
// the type.
type Registry struct{}

const wow64 = registry.WOW64_64KEY

func splitRoot(p string) (registry.Key, string, error) {
	root, sub, _ := strings.Cut(p, `\`)
	switch strings.ToUpper(root) {
	case "HKLM", "HKEY_LOCAL_MACHINE":
		return registry.LOCAL_MACHINE, sub, nil
	case "HKCU", "HKEY_CURRENT_USER":
		return registry.CURRENT_USER, sub, nil
	case "HKU", "HKEY_USERS":
		return registry.USERS, sub, nil
	}
	return 0, "", fmt.Errorf("registry path %q: unknown root %q", p, root)
}

func notFound(err error) bool {
	return errors.Is(err, registry.ErrNotExist) || errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND)
}

func (Registry) Read(l Loc) (Value, error) {
	root, sub, err := splitRoot(l.Path)
	if err != nil {
		return Value{}, err
	}
	k, err := registry.OpenKey(root, sub, registry.QUERY_VALUE|wow64)
	if notFound(err) {
		return Absent, nil
	}
	if err != nil {
		return Value{}, fmt.Errorf("open %s: %w", l.Path, err)
	}
	defer k.Close()
	if l.Name == "" {
		return KeyValue, nil
	}
	buf := make([]byte, 256)
	for {
		n, typ, err := k.GetValue(l.Name, buf)
		if notFound(err) {
			return Absent, nil
		}
		if errors.Is(err, registry.ErrShortBuffer) || errors.Is(err, windows.ERROR_MORE_DATA) || (err == nil && n > len(buf)) {
			buf = make([]byte, n)
			continue
		}
		if err != nil {
			return Value{}, fmt.Errorf("read %s: %w", l, err)
		}
		return Value{Type: RegTypeName(typ), Data: append([]byte(nil), buf[:n]...)}, nil
	}
}

func (r Registry) Write(l Loc, v Value) error {
	root, sub, err := splitRoot(l.Path)
	if err != nil {
		return err
	}
	if l.Name == "" {
		if !v.IsAbsent() {
			k, _, err := registry.CreateKey(root, sub, registry.CREATE_SUB_KEY|wow64)
			if err != nil {
				return fmt.Errorf("create key %s: %w", l.Path, err)
			}
			return k.Close()
		}
		// Delete only an empty key: it is the one latlab created.
		if k, err := registry.OpenKey(root, sub, registry.QUERY_VALUE|registry.ENUMERATE_SUB_KEYS|wow64); err == nil {
			info, err := k.Stat()
			k.Close()
			if err == nil && (info.SubKeyCount > 0 || info.ValueCount > 0) {
				return fmt.Errorf("delete key %s: it is not empty (%d sub-keys, %d values)", l.Path, info.SubKeyCount, info.ValueCount)
			}
		} else if notFound(err) {
			return nil
		}
		// In the same (64-bit) view as every open: registry.DeleteKey has
		// no access mask, so a 32-bit latlab would delete in the 32-bit view.
		if err := deleteKey(root, sub); err != nil && !notFound(err) {
			return fmt.Errorf("delete key %s: %w", l.Path, err)
		}
		return nil
	}
	k, err := registry.OpenKey(root, sub, registry.SET_VALUE|wow64)
	if err != nil {
		return fmt.Errorf("open %s for writing: %w", l.Path, err)
	}
	defer k.Close()
	if v.IsAbsent() {
		if err := k.DeleteValue(l.Name); err != nil && !notFound(err) {
			return fmt.Errorf("delete %s: %w", l, err)
		}
		return nil
	}
	typ, ok := RegTypeNumber(v.Type)
	if !ok {
		return fmt.Errorf("write %s: %s is not a registry type", l, v.Type)
	}
	name, err := syscall.UTF16PtrFromString(l.Name)
	if err != nil {
		return err
	}
	var p *byte
	if len(v.Data) > 0 {
		p = &v.Data[0]
	}
	if err := winapi.RegSetValueEx(windows.Handle(k), name, 0, typ, p, uint32(len(v.Data))); err != nil {
		return fmt.Errorf("write %s: %w", l, err)
	}
	return nil
}

// CheckWrite opens the key (or, for a key still to be created, its
// nearest existing parent) with the access the write needs.
func (Registry) CheckWrite(l Loc) error {
	root, sub, err := splitRoot(l.Path)
	if err != nil {
		return err
	}
	for {
		k, err := registry.OpenKey(root, sub, registry.SET_VALUE|registry.CREATE_SUB_KEY|wow64)
		if err == nil {
			k.Close()
			return nil
		}
		if !notFound(err) {
			return fmt.Errorf("cannot write %s: %w", l.Path, err)
		}
		i := strings.LastIndexByte(sub, '\\')
		if i < 0 {
			return fmt.Errorf("cannot write %s: no part of the path exists", l.Path)
		}
		sub = sub[:i]
	}
}

// List returns the sub-keys and value names of a key.
func (Registry) List(path string) (keys, values []string, err error) {
	root, sub, err := splitRoot(path)
	if err != nil {
		return nil, nil, err
	}
	k, err := registry.OpenKey(root, sub, registry.QUERY_VALUE|registry.ENUMERATE_SUB_KEYS|wow64)
	if notFound(err) {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer k.Close()
	if keys, err = k.ReadSubKeyNames(-1); err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", path, err)
	}
	if values, err = k.ReadValueNames(-1); err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", path, err)
	}
	return keys, values, nil
}

// deleteKey deletes the empty key sub of root in the 64-bit registry view
// (RegDeleteKeyExW with KEY_WOW64_64KEY).
func deleteKey(root registry.Key, sub string) error {
	p, err := windows.UTF16PtrFromString(sub)
	if err != nil {
		return err
	}
	return winapi.RegDeleteKeyEx(windows.Handle(root), p, wow64, 0)
}
