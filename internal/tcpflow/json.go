package tcpflow

import "reflect"

// JSONTypes are the types written by the hundred thousand that get a
// generated compact JSON encoder (internal/result/jsongen) in JSONFile:
// the connections of a large capture, whose encoding was 40% of the CPU
// that --json used.
var JSONTypes = []reflect.Type{reflect.TypeFor[Connection]()}

// JSONFile is the generated encoders' file, in this package's directory.
const JSONFile = "connection_json.go"
