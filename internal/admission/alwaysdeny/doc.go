// Package alwaysdeny is kube-apiserver's deprecated AlwaysDeny admission
// plugin: as a mutating and as a validating plugin it refuses every request
// of every operation with 403 "admission control is denying all
// modifications", shaped by admission.NewForbidden as kube-apiserver's
// admission.NewForbidden shapes it.
package alwaysdeny
