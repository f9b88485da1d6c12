package systool

// Path fails off Windows.
func Path(string) (string, error) { return "", ErrNotWindows }
