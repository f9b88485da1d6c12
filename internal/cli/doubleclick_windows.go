package cli

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// startedByExplorer looks up the parent process's image name.
// It is conservative: any failure means "not from Explorer".
func startedByExplorer() bool {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(snap)
	ppid := uint32(os.Getppid())
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == ppid {
			return isExplorer(windows.UTF16ToString(e.ExeFile[:]))
		}
	}
	return false
}

func doubleClickDefaults() doubleClickEnv {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_Documents, 0)
	if err != nil || dir == "" {
		dir = os.TempDir()
	}
	return doubleClickEnv{Dir: dir, Open: shellOpen, Now: nowLocal, Live: runUI}
}

// shellOpen opens a file with its default program, as a double-click in
// Explorer would.
func shellOpen(path string) error {
	verb, _ := syscall.UTF16PtrFromString("open")
	file, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	return windows.ShellExecute(0, verb, file, nil, nil, windows.SW_SHOWNORMAL)
}
