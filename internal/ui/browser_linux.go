package ui

import "os/exec"

// OpenBrowser opens url in the desktop's default browser (xdg-open,
// freedesktop.org's opener) and does not wait for it.
func OpenBrowser(url string) error {
	cmd := exec.Command("xdg-open", url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it; xdg-open returns once the browser has it
	return nil
}
