// Package reviews answers the virtual review resources of
// authentication.k8s.io: SelfSubjectReview tells a client who it is
// (`kubectl auth whoami`), TokenReview asks the server's token
// authenticators about a token.
package reviews
