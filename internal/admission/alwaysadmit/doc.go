// Package alwaysadmit is kube-apiserver's deprecated AlwaysAdmit
// admission plugin: a mutating and validating plugin that admits every
// request of every operation. It exists so that a configuration naming it
// carries over; enabling it changes nothing.
package alwaysadmit
