// Package tokenfile authenticates static bearer tokens listed in the CSV
// file of kube-apiserver's --token-auth-file:
//
//	token,user,uid,"group1,group2"
//
// At least three columns per record; the fourth, when present, is a
// comma-separated list of groups (quoted when it holds several). Parsing
// follows kube-apiserver: a record with fewer than three columns is an
// error, a record with an empty token is skipped with a warning, and a
// token that appears twice is reported and the later record wins. The
// file is read once; changing it needs a restart, as in kube-apiserver.
//
// Tokens are held only as SHA-256 digests, so that a lookup does not
// leak, through its timing, how much of a guess matched a real token.
package tokenfile
