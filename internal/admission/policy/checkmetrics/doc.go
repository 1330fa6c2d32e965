// Package checkmetrics holds the check metrics of the admission policy
// plugins, as kube-apiserver exports them: a counter of the expressions
// checked and a histogram of how long each took, labeled as each plugin
// labels them (policy, binding, error type, and for validations the
// enforcement action), and the classification of a check's error into
// the error_type label.
package checkmetrics
