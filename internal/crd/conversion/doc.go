// Package conversion calls the conversion webhook of a
// CustomResourceDefinition (spec.conversion.strategy Webhook) as
// kube-apiserver v1.37 does, to convert custom resources between the
// versions of its group.
//
// # A call
//
// Webhook.Convert sends the objects that are not in the desired version
// in one ConversionReview, in the first of the CRD's
// conversionReviewVersions it knows (v1 or v1beta1), to the webhook's url
// or service through webhookclient (the client the admission webhooks
// use), with the CA bundle of its clientConfig, within 30 seconds and the
// caller's deadline. The answer is read as kube-apiserver's REST client
// reads it: a Status in an error answer gives its message, other error
// answers client-go's generic texts, and the review is decoded with
// apimachinery's codec, so that malformed answers fail with the same
// words.
//
// # What is checked
//
// A v1 answer must be a v1 ConversionReview with the request's uid
// (v1beta1 answers are not checked for either, as in kube-apiserver); a
// result other than Success fails with its message; there must be one
// converted object per object sent, each in the desired group and
// version, of the same kind, name, namespace and uid. Of the metadata the
// webhook can change only labels and annotations (validated when they
// changed); everything else is restored from the object sent.
//
// # Errors
//
// Every object that is not converted has its own error, in
// kube-apiserver's words for a single object ("conversion webhook for
// <group>/<version>, Kind=<kind> failed: ..."), so that a list reports
// each of its objects as kube-apiserver does. The underlying error is
// wrapped: errors.Is finds context.DeadlineExceeded in a call that timed
// out.
package conversion
