package abac

import "fmt"

// LoadError is a policy file that could not be read: a line that does not
// decode (Line is its 1-based number, counting comments and blank lines,
// and Data its text), or a failure of the reader itself (Line -1). Its text
// is kube-apiserver's.
type LoadError struct {
	Path string
	Line int
	Data []byte
	Err  error
}

func (e *LoadError) Error() string {
	if e.Line >= 0 {
		return fmt.Sprintf("error reading policy file %s, line %d: %s: %v", e.Path, e.Line, e.Data, e.Err)
	}
	return fmt.Sprintf("error reading policy file %s: %v", e.Path, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }
