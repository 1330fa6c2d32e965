// Package alwayspullimages is kube-apiserver's AlwaysPullImages admission
// plugin, mutating and validating, for pods (not their subresources) on
// create and update.
//
// Admit sets imagePullPolicy Always on every init, regular and ephemeral
// container and pullPolicy Always on every image volume, so that a node
// pulls (and checks the credentials for) an image before each use.
// Validate refuses a pod whose containers or image volumes do not say
// Always, which only happens when a later mutating webhook changed them.
//
// An update that introduces no image the old pod did not already have is
// left alone in both phases, as in kube-apiserver, so pods created before
// the plugin was enabled can still be updated.
//
// Validate's refusals are kube-apiserver's: one 403 per offending field,
// aggregated; kube-apiserver answers such an aggregate (not itself an API
// status) as a 500 whose message is the aggregate's text.
package alwayspullimages
