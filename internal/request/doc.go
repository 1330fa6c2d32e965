// Package request holds what every stage of the request path knows about a
// request: the attributes derived from its path (Info) and the mutable
// per-request State where authentication stores the user and later stages
// add audit annotations and warnings.
package request
