// Package authn authenticates requests. An Authenticator looks at one kind
// of credential; a Union asks each in order and the first that recognises
// the credential decides. A presented but invalid credential is an error
// (401), no credential at all is "not recognised".
package authn
