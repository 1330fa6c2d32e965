package server

import (
	"context"
	"fmt"
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"

	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/storage"
)

var (
	vapResource  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	vapbResource = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
)

// policyFeeds connects the API-created admission policies in the store
// to the plugins that enforce them.
type policyFeeds struct {
	reg    *registry.Registry
	store  storage.Store
	decode informer.Decoder
	rest   func() *rest.Handler
	log    *slog.Logger
	// schemas resolves kinds to their OpenAPI schemas for type checking.
	schemas resolver.SchemaResolver

	run []func(ctx context.Context)
}

// validating follows ValidatingAdmissionPolicies and their bindings into
// p, and keeps each policy's status (observedGeneration, typeChecking)
// current. It returns the channel the plugin waits on before its first
// request.
func (f *policyFeeds) validating(p func() *policy.Plugin, ready chan struct{}) {
	status := policy.NewStatusController(&policy.TypeChecker{Schemas: f.schemas, KindsFor: f.kindsFor, Log: f.log}, f.writeVAPStatus, f.log)
	f.run = append(f.run, status.Run)
	var synced []<-chan struct{}
	for _, gvr := range []schema.GroupVersionResource{vapResource, vapbResource} {
		res, _ := f.reg.Lookup(gvr)
		in := informer.New(f.store, res, f.decode, informer.HandlerFuncs{
			UpsertFunc: func(o runtime.Object) { p().Upsert(o); status.Upsert(o) },
			DeleteFunc: func(o runtime.Object) { p().Delete(o); status.Delete(o) },
		}, f.log)
		f.run = append(f.run, in.Run)
		synced = append(synced, in.Synced())
	}
	f.run = append(f.run, func(ctx context.Context) {
		for _, c := range synced {
			select {
			case <-c:
			case <-ctx.Done():
				return
			}
		}
		close(ready)
	})
}

// kindsFor maps a served resource to its kind, for type checking.
func (f *policyFeeds) kindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	res, ok := f.reg.Lookup(gvr)
	if !ok {
		return nil, fmt.Errorf("resource %s is not served", gvr)
	}
	return []schema.GroupVersionKind{res.GVK()}, nil
}

func (f *policyFeeds) writeVAPStatus(ctx context.Context, name string, observedGeneration int64, tc *admissionregistrationv1.TypeChecking) error {
	obj, err := f.rest().Get(ctx, vapResource, "", name)
	if err != nil {
		return err
	}
	vap := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).DeepCopy()
	vap.Status.ObservedGeneration = observedGeneration
	vap.Status.TypeChecking = tc
	_, err = f.rest().ApplyStatus(ctx, vap, "validatingadmissionpolicy-status-controller")
	return err
}

// validateWithExpressions adds the compilation of admission policies'
// CEL expressions to object validation, as kube-apiserver rejects a policy
// whose expressions do not compile.
func validateWithExpressions(create func(runtime.Object) field.ErrorList, update func(obj, old runtime.Object) field.ErrorList) (func(runtime.Object) field.ErrorList, func(obj, old runtime.Object) field.ErrorList) {
	return func(obj runtime.Object) field.ErrorList {
			errs := create(obj)
			if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && len(errs) == 0 {
				errs = append(errs, policy.ValidateExpressions(p, nil)...)
			}
			return errs
		}, func(obj, old runtime.Object) field.ErrorList {
			errs := update(obj, old)
			if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && len(errs) == 0 {
				o, _ := old.(*admissionregistrationv1.ValidatingAdmissionPolicy)
				errs = append(errs, policy.ValidateExpressions(p, o)...)
			}
			return errs
		}
}

var (
	mapResource  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"}
	mapbResource = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"}
	vwcResource  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	mwcResource  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}
)

// follow feeds the objects of the given resources to h, and closes ready
// once all of them have been listed (nil: no readiness to report).
func (f *policyFeeds) follow(h informer.Handler, ready chan struct{}, gvrs ...schema.GroupVersionResource) {
	var synced []<-chan struct{}
	for _, gvr := range gvrs {
		res, _ := f.reg.Lookup(gvr)
		in := informer.New(f.store, res, f.decode, h, f.log)
		f.run = append(f.run, in.Run)
		synced = append(synced, in.Synced())
	}
	if ready == nil {
		return
	}
	f.run = append(f.run, func(ctx context.Context) {
		for _, c := range synced {
			select {
			case <-c:
			case <-ctx.Done():
				return
			}
		}
		close(ready)
	})
}
