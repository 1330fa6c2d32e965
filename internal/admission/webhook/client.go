package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

// endpointOf makes the webhookclient endpoint of a clientConfig.
func endpointOf(cc admissionregistrationv1.WebhookClientConfig) *webhookclient.Endpoint {
	var svc *webhookclient.Service
	if s := cc.Service; s != nil {
		svc = webhookclient.NewService(s.Namespace, s.Name, s.Path, s.Port)
	}
	return webhookclient.NewEndpoint(cc.URL, svc, cc.CABundle)
}

// credentialTarget is the name kubeconfig users are matched against: the
// URL's host (with its port, if any) or <name>.<namespace>.svc:<port>.
func credentialTarget(h *hook, u *url.URL) string {
	if s := h.client.Service; s != nil {
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		return net.JoinHostPort(s.Name+"."+s.Namespace+".svc", strconv.Itoa(int(port)))
	}
	return u.Host
}

// post sends body to the webhook within ctx and returns the answer of a
// 2xx status, or the webhook's recorded answer (Options.Answers) made the
// answer to the review of uid, without calling it.
func (p *plugin) post(ctx context.Context, h *hook, body []byte, uid types.UID) (data []byte, recorded bool, err error) {
	if p.opts.Answers != nil {
		if review, ok := p.opts.Answers(h.name); ok {
			return answerTo(review, uid), true, nil
		}
	}
	resp, err := p.clients.Post(ctx, h.endpoint, webhookclient.Request{Body: body, Credential: func(u *url.URL) (webhookclient.Credential, error) {
		user, err := p.creds.lookup(credentialTarget(h, u))
		if user == nil {
			return nil, err
		}
		return user, err
	}})
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, false, httpStatusError(resp)
	}
	return resp.Body, false, nil
}

// answerTo is a recorded AdmissionReview with response.uid set to uid:
// the review was recorded for another request, and only the uid tells
// the two apart. Everything else is left as recorded for the checks a
// real answer goes through, which also report a review that is not a
// JSON object with a response object.
func answerTo(review []byte, uid types.UID) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(review, &top) != nil {
		return review
	}
	var resp map[string]json.RawMessage
	if json.Unmarshal(top["response"], &resp) != nil || resp == nil {
		return review
	}
	id, err := json.Marshal(uid)
	if err != nil {
		return review
	}
	resp["uid"] = id
	if top["response"], err = json.Marshal(resp); err != nil {
		return review
	}
	out, err := json.Marshal(top)
	if err != nil {
		return review
	}
	return out
}

// httpStatusError is client-go's error for a non-2xx answer that is not a
// Status: the text of a text body, the code's generic message otherwise.
func httpStatusError(resp *webhookclient.Response) error {
	msg := ""
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/") || ct == "" {
		msg = strings.TrimSpace(string(resp.Body))
		if len(msg) > 1024 {
			msg = msg[:1024]
		}
	}
	retry := 0
	if s := resp.Header.Get("Retry-After"); s != "" {
		retry, _ = strconv.Atoi(s)
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", msg, retry, true)
}

// isCanceled reports a call cut short by the request's own cancellation.
func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
