package plugins

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/portcullis/portcullis/internal/admission/alwaysadmit"
	"github.com/portcullis/portcullis/internal/admission/alwaysdeny"
	"github.com/portcullis/portcullis/internal/admission/alwayspullimages"
	"github.com/portcullis/portcullis/internal/admission/antiaffinity"
	"github.com/portcullis/portcullis/internal/admission/certapproval"
	"github.com/portcullis/portcullis/internal/admission/certsigning"
	"github.com/portcullis/portcullis/internal/admission/certsubjectrestriction"
	"github.com/portcullis/portcullis/internal/admission/ctbattest"
	"github.com/portcullis/portcullis/internal/admission/defaultingressclass"
	"github.com/portcullis/portcullis/internal/admission/defaultstorageclass"
	"github.com/portcullis/portcullis/internal/admission/defaulttolerationseconds"
	"github.com/portcullis/portcullis/internal/admission/denyserviceexternalips"
	"github.com/portcullis/portcullis/internal/admission/eventratelimit"
	"github.com/portcullis/portcullis/internal/admission/extendedresourcetoleration"
	"github.com/portcullis/portcullis/internal/admission/imagepolicy"
	"github.com/portcullis/portcullis/internal/admission/limitranger"
	"github.com/portcullis/portcullis/internal/admission/namespaceautoprovision"
	"github.com/portcullis/portcullis/internal/admission/namespaceexists"
	"github.com/portcullis/portcullis/internal/admission/nodedeclaredfeatures"
	"github.com/portcullis/portcullis/internal/admission/nodetaint"
	"github.com/portcullis/portcullis/internal/admission/ownerreferences"
	"github.com/portcullis/portcullis/internal/admission/podgroupprotection"
	"github.com/portcullis/portcullis/internal/admission/podnodeselector"
	"github.com/portcullis/portcullis/internal/admission/podresize"
	"github.com/portcullis/portcullis/internal/admission/podsecurity"
	"github.com/portcullis/portcullis/internal/admission/podtolerationrestriction"
	"github.com/portcullis/portcullis/internal/admission/podtopologylabels"
	"github.com/portcullis/portcullis/internal/admission/priority"
	"github.com/portcullis/portcullis/internal/admission/pvcresize"
	"github.com/portcullis/portcullis/internal/admission/resourcequota"
	"github.com/portcullis/portcullis/internal/admission/runtimeclass"
	"github.com/portcullis/portcullis/internal/admission/serviceaccount"
	"github.com/portcullis/portcullis/internal/admission/storageobjectinuseprotection"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/quota"
)

var (
	storageClasses  = storagev1.SchemeGroupVersion.WithResource("storageclasses")
	ingressClasses  = networkingv1.SchemeGroupVersion.WithResource("ingressclasses")
	nodes           = corev1.SchemeGroupVersion.WithResource("nodes")
	pods            = corev1.SchemeGroupVersion.WithResource("pods")
	serviceAccounts = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
	limitRanges     = corev1.SchemeGroupVersion.WithResource("limitranges")
	resourceQuotas  = corev1.SchemeGroupVersion.WithResource("resourcequotas")
	priorityClasses = schedulingv1.SchemeGroupVersion.WithResource("priorityclasses")
	runtimeClasses  = nodev1.SchemeGroupVersion.WithResource("runtimeclasses")
)

// apiServerManager is the field manager of kube-apiserver's own writes.
const apiServerManager = "kube-apiserver"

// noConfig adapts a plugin that reads no configuration: kube-apiserver
// ignores a configuration given to such a plugin, and so does this.
func noConfig[P any](build func() (P, error)) func([]byte) (any, error) {
	return func([]byte) (any, error) { return build() }
}

func ready[P any](p P) (P, error) { return p, nil }

// builtins are the constructors of kube-apiserver's built-in plugins
// other than the policy and webhook ones.
func (d Deps) builtins() map[string]func([]byte) (any, error) {
	objs := d.Objects
	return map[string]func([]byte) (any, error){
		alwaysadmit.Name:            noConfig(func() (alwaysadmit.Plugin, error) { return ready(alwaysadmit.New()) }),
		alwaysdeny.Name:             noConfig(func() (alwaysdeny.Plugin, error) { return ready(alwaysdeny.New()) }),
		alwayspullimages.Name:       noConfig(func() (alwayspullimages.Plugin, error) { return ready(alwayspullimages.New()) }),
		antiaffinity.Name:           noConfig(func() (antiaffinity.Plugin, error) { return ready(antiaffinity.New()) }),
		denyserviceexternalips.Name: noConfig(func() (denyserviceexternalips.Plugin, error) { return ready(denyserviceexternalips.New()) }),
		extendedresourcetoleration.Name: noConfig(func() (extendedresourcetoleration.Plugin, error) {
			return ready(extendedresourcetoleration.New())
		}),
		nodetaint.Name: noConfig(func() (nodetaint.Plugin, error) { return ready(nodetaint.New()) }),
		defaulttolerationseconds.Name: noConfig(func() (*defaulttolerationseconds.Plugin, error) {
			return ready(defaulttolerationseconds.New(d.NotReadyTolerationSeconds, d.UnreachableTolerationSeconds))
		}),
		namespaceexists.Name: noConfig(func() (*namespaceexists.Plugin, error) { return ready(namespaceexists.New(objs.GetNamespace)) }),
		namespaceautoprovision.Name: noConfig(func() (*namespaceautoprovision.Plugin, error) {
			return ready(namespaceautoprovision.New(objs.GetNamespace, func(ctx context.Context, ns *corev1.Namespace) error {
				_, err := d.Loopback.Create(ctx, ns, apiServerManager)
				return err
			}))
		}),
		podtopologylabels.Name: noConfig(func() (*podtopologylabels.Plugin, error) {
			return ready(podtopologylabels.New(getter[*corev1.Node](objs, nodes), d.gate(podtopologylabels.FeatureGate, podtopologylabels.GateDefault)))
		}),
		priority.Name: noConfig(func() (*priority.Plugin, error) {
			return ready(priority.New(getter[*schedulingv1.PriorityClass](objs, priorityClasses), lister[*schedulingv1.PriorityClass](objs, priorityClasses)))
		}),
		runtimeclass.Name: noConfig(func() (*runtimeclass.Plugin, error) {
			return ready(runtimeclass.New(getter[*nodev1.RuntimeClass](objs, runtimeClasses)))
		}),
		podnodeselector.Name:          func(raw []byte) (any, error) { return podnodeselector.New(raw, objs.GetNamespace) },
		podtolerationrestriction.Name: func(raw []byte) (any, error) { return podtolerationrestriction.New(raw, objs.GetNamespace) },
		serviceaccount.Name: noConfig(func() (*serviceaccount.Plugin, error) {
			read := serviceaccount.ServiceAccounts(namespacedGetter[*corev1.ServiceAccount](objs, serviceAccounts))
			return serviceaccount.New(read, read)
		}),
		podsecurity.Name: func(raw []byte) (any, error) {
			return podsecurity.New(raw, podsecurity.Deps{Namespaces: objs.GetNamespace,
				Pods: namespacedLister[*corev1.Pod](objs, pods), Metrics: d.Metrics})
		},
		limitranger.Name: noConfig(func() (*limitranger.Plugin, error) {
			return ready(limitranger.New(namespacedLister[*corev1.LimitRange](objs, limitRanges),
				limitranger.Options{PodLevelResources: d.gate("PodLevelResources", true)}))
		}),
		resourcequota.Name: func(raw []byte) (any, error) {
			quotas := resourcequota.QuotaFuncs{
				ListFunc: namespacedLister[*corev1.ResourceQuota](objs, resourceQuotas),
				UpdateStatusFunc: func(ctx context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
					out, err := d.Loopback.ApplyStatus(ctx, q, apiServerManager)
					if err != nil {
						return nil, err
					}
					return out.(*corev1.ResourceQuota), nil
				},
			}
			return resourcequota.New(raw, quotas, resourcequota.Options{Pods: quota.PodOptions{
				PodLevelResources:                   d.gate("PodLevelResources", true),
				PodLevelResourcesFixKubeletQOSClass: d.gate("PodLevelResourcesFixKubeletQOSClass", true),
			}})
		},
		eventratelimit.Name: func(raw []byte) (any, error) { return eventratelimit.New(raw, clock.RealClock{}) },
		imagepolicy.Name:    func(raw []byte) (any, error) { return imagepolicy.New(raw, clock.RealClock{}) },
		defaultstorageclass.Name: noConfig(func() (*defaultstorageclass.Plugin, error) {
			return ready(defaultstorageclass.New(lister[*storagev1.StorageClass](objs, storageClasses)))
		}),
		storageobjectinuseprotection.Name: noConfig(func() (*storageobjectinuseprotection.Plugin, error) {
			return ready(storageobjectinuseprotection.New())
		}),
		podgroupprotection.Name: noConfig(func() (*podgroupprotection.Plugin, error) {
			return ready(podgroupprotection.New(d.gate("GenericWorkload", false)))
		}),
		ownerreferences.Name: noConfig(func() (*ownerreferences.Plugin, error) {
			return ownerreferences.New(d.Authorizer, ownerResources(objs))
		}),
		pvcresize.Name: noConfig(func() (*pvcresize.Plugin, error) {
			return ready(pvcresize.New(getter[*storagev1.StorageClass](objs, storageClasses)))
		}),
		certapproval.Name: noConfig(func() (*certapproval.Plugin, error) { return certapproval.New(d.Authorizer) }),
		certsigning.Name:  noConfig(func() (*certsigning.Plugin, error) { return certsigning.New(d.Authorizer) }),
		ctbattest.Name: noConfig(func() (*ctbattest.Plugin, error) {
			// ClusterTrustBundle is GA and no longer a gate in 1.37.
			return ctbattest.New(d.Authorizer, true)
		}),
		certsubjectrestriction.Name: noConfig(func() (*certsubjectrestriction.Plugin, error) {
			return ready(certsubjectrestriction.New())
		}),
		defaultingressclass.Name: noConfig(func() (*defaultingressclass.Plugin, error) {
			return ready(defaultingressclass.New(lister[*networkingv1.IngressClass](objs, ingressClasses)))
		}),
		nodedeclaredfeatures.Name: noConfig(func() (*nodedeclaredfeatures.Plugin, error) {
			return nodedeclaredfeatures.New(nodedeclaredfeatures.Options{Node: getter[*corev1.Node](objs, nodes),
				ListNodes: lister[*corev1.Node](objs, nodes), Version: d.Version,
				DRANodeAllocatableResources: d.gate("DRANodeAllocatableResources", false)})
		}),
		podresize.Name: noConfig(func() (*podresize.Plugin, error) {
			return ready(podresize.New(getter[*corev1.Node](objs, nodes)))
		}),
	}
}

// gate is the feature gate's value, def when not set.
func (d Deps) gate(name string, def bool) bool {
	if d.Gates == nil {
		return def
	}
	return d.Gates(name, def)
}

// ownerResources maps an owner's kind to the resources serving it, the
// part of a RESTMapper OwnerReferencesPermissionEnforcement needs.
func ownerResources(objs *objects.Objects) ownerreferences.OwnerResources {
	return func(gk schema.GroupKind, version string) ([]ownerreferences.Owner, error) {
		var out []ownerreferences.Owner
		for _, res := range objs.Registry().All() {
			if res.GVR.Group != gk.Group || res.Kind != gk.Kind || (version != "" && res.GVR.Version != version) {
				continue
			}
			out = append(out, ownerreferences.Owner{Resource: res.GVR, Namespaced: res.Namespaced})
		}
		if len(out) == 0 {
			return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: []string{version}}
		}
		return out, nil
	}
}
