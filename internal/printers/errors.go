package printers

import "errors"

var (
	// ErrNotTable reports an object that cannot become a table row because it
	// has no object metadata; servers answer it with 406 Not Acceptable.
	ErrNotTable = errors.New("object cannot be converted to a Table")

	// ErrIncludeObject reports an includeObject policy other than None,
	// Metadata or Object; servers answer it with 400 Bad Request.
	ErrIncludeObject = errors.New("unrecognized includeObject value")

	// ErrUnexpectedType reports a list whose items are not all of the type
	// its printer was chosen for.
	ErrUnexpectedType = errors.New("unexpected object type in table")
)
