package doctor

import (
	"errors"
	"io/fs"
)

// tuned is Linux's: on Windows no profile is read from files (the command
// line refuses --against there).
var errNoTuned = errors.New("tuned's profiles are Linux's")

func statTunedFile(string, tunedFile) (fs.FileInfo, error)   { return nil, errNoTuned }
func readTunedFile(string, tunedFile, int64) ([]byte, error) { return nil, errNoTuned }
func unameString(string) (string, bool)                      { return "", false }
func listTunedDir(string, string, int) ([]string, error)     { return nil, errNoTuned }
