package celenv

import (
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// The names of the admission variables.
const (
	ObjectVar                    = "object"
	OldObjectVar                 = "oldObject"
	ParamsVar                    = "params"
	RequestVar                   = "request"
	NamespaceVar                 = "namespaceObject"
	AuthorizerVar                = "authorizer"
	RequestResourceAuthorizerVar = "authorizer.requestResource"
	VariablesVar                 = "variables"
)

// variablesTypeName is the object type of the variables variable.
const variablesTypeName = "kubernetes.variables"

// fieldSpec declares one field of an object type.
type fieldSpec struct {
	name     string
	t        *apiservercel.DeclType
	required bool
}

func objectType(name string, specs ...fieldSpec) *apiservercel.DeclType {
	fields := make(map[string]*apiservercel.DeclField, len(specs))
	for _, f := range specs {
		fields[f.name] = apiservercel.NewDeclField(f.name, f.t, f.required, nil, nil)
	}
	return apiservercel.NewObjectType(name, fields)
}

var (
	stringList   = apiservercel.NewListType(apiservercel.StringType, -1)
	stringMap    = apiservercel.NewMapType(apiservercel.StringType, apiservercel.StringType, -1)
	stringsByKey = apiservercel.NewMapType(apiservercel.StringType, stringList, -1)
)

// RequestType declares the request variable: admission.k8s.io/v1
// AdmissionRequest without uid, object and oldObject (object and oldObject
// are variables of their own), as kube-apiserver declares it.
func RequestType() *apiservercel.DeclType {
	gvk := objectType("kubernetes.GroupVersionKind",
		fieldSpec{"group", apiservercel.StringType, true},
		fieldSpec{"version", apiservercel.StringType, true},
		fieldSpec{"kind", apiservercel.StringType, true})
	gvr := objectType("kubernetes.GroupVersionResource",
		fieldSpec{"group", apiservercel.StringType, true},
		fieldSpec{"version", apiservercel.StringType, true},
		fieldSpec{"resource", apiservercel.StringType, true})
	userInfo := objectType("kubernetes.UserInfo",
		fieldSpec{"username", apiservercel.StringType, false},
		fieldSpec{"uid", apiservercel.StringType, false},
		fieldSpec{"groups", stringList, false},
		fieldSpec{"extra", stringsByKey, false})
	return objectType("kubernetes.AdmissionRequest",
		fieldSpec{"kind", gvk, true},
		fieldSpec{"resource", gvr, true},
		fieldSpec{"subResource", apiservercel.StringType, false},
		fieldSpec{"requestKind", gvk, true},
		fieldSpec{"requestResource", gvr, true},
		fieldSpec{"requestSubResource", apiservercel.StringType, false},
		fieldSpec{"name", apiservercel.StringType, true},
		fieldSpec{"namespace", apiservercel.StringType, false},
		fieldSpec{"operation", apiservercel.StringType, true},
		fieldSpec{"userInfo", userInfo, true},
		fieldSpec{"dryRun", apiservercel.BoolType, false},
		fieldSpec{"options", apiservercel.DynType, false})
}

// NamespaceType declares namespaceObject: a Namespace with the metadata
// fields kube-apiserver exposes (no managedFields, ownerReferences, ...).
func NamespaceType() *apiservercel.DeclType {
	spec := objectType("kubernetes.NamespaceSpec",
		fieldSpec{"finalizers", stringList, true})
	condition := objectType("kubernetes.NamespaceCondition",
		fieldSpec{"status", apiservercel.StringType, true},
		fieldSpec{"type", apiservercel.StringType, true},
		fieldSpec{"lastTransitionTime", apiservercel.TimestampType, true},
		fieldSpec{"message", apiservercel.StringType, true},
		fieldSpec{"reason", apiservercel.StringType, true})
	status := objectType("kubernetes.NamespaceStatus",
		fieldSpec{"conditions", apiservercel.NewListType(condition, -1), true},
		fieldSpec{"phase", apiservercel.StringType, true})
	metadata := objectType("kubernetes.NamespaceMetadata",
		fieldSpec{"name", apiservercel.StringType, true},
		fieldSpec{"generateName", apiservercel.StringType, true},
		fieldSpec{"namespace", apiservercel.StringType, true},
		fieldSpec{"labels", stringMap, true},
		fieldSpec{"annotations", stringMap, true},
		fieldSpec{"UID", apiservercel.StringType, true},
		fieldSpec{"creationTimestamp", apiservercel.TimestampType, true},
		fieldSpec{"deletionGracePeriodSeconds", apiservercel.IntType, true},
		fieldSpec{"deletionTimestamp", apiservercel.TimestampType, true},
		fieldSpec{"generation", apiservercel.IntType, true},
		fieldSpec{"resourceVersion", apiservercel.StringType, true},
		fieldSpec{"finalizers", stringList, true})
	return objectType("kubernetes.Namespace",
		fieldSpec{"metadata", metadata, true},
		fieldSpec{"spec", spec, true},
		fieldSpec{"status", status, true})
}
