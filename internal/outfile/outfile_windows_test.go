package outfile

const isWindows = true
