package noderestriction

import (
	"context"
	"errors"
	"fmt"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// AudienceVerb is the verb of the authorization check that grants a node
// an audience its pod does not name; the resource is the audience and the
// name the service account, in the service account's namespace and the
// core group, so RBAC rules select audiences with resources and service
// accounts with resourceNames.
const AudienceVerb = "request-serviceaccounts-token-audience"

// checkAudience is the ServiceAccountNodeAudienceRestriction rule: a node
// asks for one audience at most (none means the API server's), and only
// for one the pod names, in a projected service account token volume or
// through the spec.tokenRequests of a CSI driver it uses, unless the
// authorizer grants it. A compromised node thus cannot mint tokens for
// arbitrary audiences.
func (p *Plugin) checkAudience(ctx context.Context, a *admission.Attributes, tr *authenticationv1.TokenRequest, pod *corev1.Pod) error {
	var audience string
	switch len(tr.Spec.Audiences) {
	case 0:
	case 1:
		audience = tr.Spec.Audiences[0]
	default:
		return forbidden(a, errors.New("node may only request 0 or 1 audiences"))
	}
	named, err := p.podNamesAudience(ctx, pod, audience)
	if err != nil {
		return forbidden(a, fmt.Errorf("error validating audience %q: %w", audience, err))
	}
	if named {
		return nil
	}
	granted, err := p.audienceGranted(ctx, a, audience)
	if granted {
		return nil
	}
	if err != nil {
		return forbidden(a, fmt.Errorf("error authorizing %s to request tokens for audience %q: %w", a.UserInfo.GetName(), audience, err))
	}
	return forbidden(a, fmt.Errorf("%s is not authorized to request tokens for audience %q", a.UserInfo.GetName(), audience))
}

// audienceGranted asks the authorizer for AudienceVerb on the audience.
func (p *Plugin) audienceGranted(ctx context.Context, a *admission.Attributes, audience string) (bool, error) {
	if isNil(p.opts.Authorizer) {
		return false, nil
	}
	d, _, err := p.opts.Authorizer.Authorize(ctx, authorizer.AttributesRecord{
		User:            a.UserInfo,
		Verb:            AudienceVerb,
		Namespace:       a.Namespace,
		APIGroup:        "",
		APIVersion:      "v1",
		Resource:        audience,
		Name:            a.Name,
		ResourceRequest: true,
	})
	return d == authorizer.DecisionAllow, err
}

// podNamesAudience reports whether a volume of the pod names the audience.
// A volume whose claim, persistent volume or CSI driver cannot be read is
// skipped; when no other volume names the audience, the errors are
// returned together, as kube-apiserver's plugin aggregates them.
func (p *Plugin) podNamesAudience(ctx context.Context, pod *corev1.Pod, audience string) (bool, error) {
	var errs []error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ServiceAccountToken != nil && src.ServiceAccountToken.Audience == audience {
					return true, nil
				}
			}
		}
		driver, err := p.volumeDriver(ctx, pod, v)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if driver == "" {
			continue
		}
		d, err := p.csiDriver(ctx, driver)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if slices.ContainsFunc(d.Spec.TokenRequests, func(r storagev1.TokenRequest) bool { return r.Audience == audience }) {
			return true, nil
		}
	}
	return false, utilerrors.NewAggregate(errs)
}

// volumeDriver is the CSI driver that serves a pod volume: inline, through
// the in-tree plugin migrated to it, or through the persistent volume
// bound to its claim (an ephemeral volume's claim is named
// <pod>-<volume>). It is "" for a volume no CSI driver serves, or a claim
// not yet bound.
func (p *Plugin) volumeDriver(ctx context.Context, pod *corev1.Pod, v *corev1.Volume) (string, error) {
	var claimName string
	switch {
	case v.CSI != nil:
		return v.CSI.Driver, nil
	case v.PersistentVolumeClaim != nil:
		claimName = v.PersistentVolumeClaim.ClaimName
	case v.Ephemeral != nil:
		claimName = pod.Name + "-" + v.Name
	default:
		return inlineMigratedDriver(&v.VolumeSource), nil
	}
	claim, err := p.claim(ctx, pod.Namespace, claimName)
	if err != nil {
		return "", err
	}
	pv, err := p.volume(ctx, claim.Spec.VolumeName)
	if err != nil {
		return "", err
	}
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver, nil
	}
	return persistentMigratedDriver(&pv.Spec.PersistentVolumeSource), nil
}
