// Package docexamples holds only a test: the examples of docs/ and
// README.md that show a command's output, run where they can run offline
// on the repository's test data, and compared with the page.
package docexamples
