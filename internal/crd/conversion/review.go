package conversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

// errNoReviewVersion: the CRD names no ConversionReview version we know
// (its validation makes this unreachable for stored CRDs).
var errNoReviewVersion = errors.New("no supported conversion review versions")

var v1ReviewGVK = apiextensionsv1.SchemeGroupVersion.WithKind("ConversionReview")

// codec decodes answers as kube-apiserver's webhook REST client does: a
// legacy codec of the two apiextensions versions, which also recognizes
// YAML and protobuf bodies and unversioned Status objects.
var codec = sync.OnceValues(func() (runtime.Codec, error) {
	s := runtime.NewScheme()
	if err := apiextensionsv1beta1.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return serializer.NewCodecFactory(s).LegacyCodec(apiextensionsv1.SchemeGroupVersion, apiextensionsv1beta1.SchemeGroupVersion), nil
})

// encodeReview makes the review of objs in the first of versions we
// know, and returns that version.
func encodeReview(versions []string, objs []*unstructured.Unstructured, to schema.GroupVersion, uid types.UID) (string, []byte, error) {
	raws := make([]runtime.RawExtension, len(objs))
	for i, o := range objs {
		data, err := o.MarshalJSON()
		if err != nil {
			return "", nil, err
		}
		raws[i].Raw = data
	}
	for _, v := range versions {
		var review any
		switch v {
		case apiextensionsv1beta1.SchemeGroupVersion.Version:
			review = &apiextensionsv1beta1.ConversionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: apiextensionsv1beta1.SchemeGroupVersion.String(), Kind: "ConversionReview"},
				Request:  &apiextensionsv1beta1.ConversionRequest{UID: uid, DesiredAPIVersion: to.String(), Objects: raws},
				// kube-apiserver sends an empty response too.
				Response: &apiextensionsv1beta1.ConversionResponse{},
			}
		case apiextensionsv1.SchemeGroupVersion.Version:
			review = &apiextensionsv1.ConversionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "ConversionReview"},
				Request:  &apiextensionsv1.ConversionRequest{UID: uid, DesiredAPIVersion: to.String(), Objects: raws},
				Response: &apiextensionsv1.ConversionResponse{},
			}
		default:
			continue
		}
		body, err := json.Marshal(review)
		return v, body, err
	}
	return "", nil, errNoReviewVersion
}

// decodeResponse reads a webhook's answer to the review of uid in
// version and returns its converted objects, unchecked.
func decodeResponse(resp *webhookclient.Response, version string, uid types.UID) ([]runtime.RawExtension, error) {
	switch version {
	case apiextensionsv1.SchemeGroupVersion.Version:
		var review apiextensionsv1.ConversionReview
		if err := readAnswer(resp, &review); err != nil {
			return nil, err
		}
		if got := review.GroupVersionKind(); got != v1ReviewGVK {
			return nil, fmt.Errorf("expected webhook response of %v, got %v", v1ReviewGVK.String(), got.String())
		}
		r := review.Response
		if r == nil {
			return nil, errors.New("no response provided")
		}
		if r.UID != uid {
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
		}
		if err := resultError(r.Result); err != nil {
			return nil, err
		}
		return r.ConvertedObjects, nil
	default:
		// kube-apiserver checks neither the kind nor the uid of v1beta1
		// answers.
		var review apiextensionsv1beta1.ConversionReview
		if err := readAnswer(resp, &review); err != nil {
			return nil, err
		}
		r := review.Response
		if r == nil {
			return nil, errors.New("no response provided")
		}
		if err := resultError(r.Result); err != nil {
			return nil, err
		}
		return r.ConvertedObjects, nil
	}
}

func resultError(result metav1.Status) error {
	if result.Status == metav1.StatusSuccess {
		return nil
	}
	if result.Message != "" {
		return errors.New(result.Message)
	}
	return fmt.Errorf("response.result.status was '%s', not 'Success'", result.Status)
}

// maxErrorText is how much of a text error answer client-go quotes.
const maxErrorText = 2048

// readAnswer decodes an answer into review as client-go's REST client
// does (Result.Into): the status and content type first, then the body.
func readAnswer(resp *webhookclient.Response, review runtime.Object) error {
	c, err := codec()
	if err != nil {
		return err
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/json"
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return apierrors.NewInternalError(err)
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		// A Status in the body says what went wrong.
		if len(resp.Body) > 0 {
			if out, _, err := c.Decode(resp.Body, &schema.GroupVersionKind{Version: "v1"}, nil); err == nil {
				if st, ok := out.(*metav1.Status); ok && st.Status == metav1.StatusFailure {
					return apierrors.FromObject(st)
				}
			}
		}
		return unstructuredError(resp)
	}
	if len(resp.Body) == 0 {
		return fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, ct)
	}
	out, _, err := c.Decode(resp.Body, nil, review)
	if err != nil || out == review {
		return err
	}
	if st, ok := out.(*metav1.Status); ok && st.Status != metav1.StatusSuccess {
		return apierrors.FromObject(st)
	}
	return nil
}

// unstructuredError is client-go's error for an error answer without a
// Status: the text of a text body, the code's generic message otherwise.
func unstructuredError(resp *webhookclient.Response) error {
	body := resp.Body
	if len(body) > maxErrorText {
		body = body[:maxErrorText]
	}
	msg := "unknown"
	if isText(resp.Header.Get("Content-Type")) {
		msg = strings.TrimSpace(string(body))
	}
	retry := 0
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			retry = n
		}
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", msg, retry, true)
}

func isText(ct string) bool {
	if ct == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(ct)
	return err == nil && strings.HasPrefix(media, "text/")
}
