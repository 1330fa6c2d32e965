package policy

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// FuzzFailureMessage checks the choice of a failure message against its
// rules: the messageExpression's result when it is a non-blank single line
// of at most 5 KiB, else the message, else the expression.
func FuzzFailureMessage(f *testing.F) {
	f.Add("computed", "static", "object.x > 1", true)
	f.Add("  ", "static", "false", true)
	f.Add("a\nb", "", " x == y ", true)
	f.Add(strings.Repeat("m", 5*1024+1), "static", "false", true)
	f.Add("", "", "", false)
	f.Add("ok", " \t", "e", false)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, computed, message, expression string, haveResult bool) {
		v := &validation{expr: &celenv.Expression{Source: expression}, message: message}
		var msgs []celenv.Result
		if haveResult {
			msgs = []celenv.Result{{Val: types.String(computed)}}
		}
		got := failureMessage(v, msgs, 0, log)
		want := "failed expression: " + strings.TrimSpace(expression)
		if m := strings.TrimSpace(message); m != "" {
			want = m
		}
		if c := strings.TrimSpace(computed); haveResult && c != "" && len(c) <= 5*1024 && !strings.Contains(c, "\n") {
			want = c
		}
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// FuzzPolicyExpressions compiles and evaluates arbitrary expressions as a
// validation, its messageExpression and an audit annotation: admission must
// answer with nil or a well-formed denial, never panic.
func FuzzPolicyExpressions(f *testing.F) {
	f.Add("object.metadata.name == 'web'", "'refused ' + object.metadata.name", "failed", "string(request.userInfo.username)")
	f.Add("object.spec.containers.all(c, c.image.startsWith('nginx'))", "object.spec.containers[0].image", "", "null")
	f.Add("has(object.nope)", "1", "line\nbreak", "'x'")
	f.Add("variables.v > 0", "string(variables.v)", "", "namespaceObject.metadata.name")
	f.Add("[1,2,3].map(x, x * 2).exists(y, y == 4) && request.operation == 'CREATE'", "'", " ", "string(object.nope)")
	f.Add("authorizer.requestResource.check('create').allowed()", "params.x", "m", "authorizer.path('/').check('get').reason()")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, expression, messageExpression, message, annotation string) {
		p := newPlugin(options(newEnv()),
			vap("p", variable("v", "object.spec.containers.size()"),
				withValidation(admissionregistrationv1.Validation{Expression: expression, MessageExpression: messageExpression, Message: message}),
				annotate("a", annotation)),
			vapb("b", "p", actions(admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit)))
		err, _ := run(p, createWeb())
		if err == nil {
			return
		}
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("%T %v", err, err)
		}
		if c := se.ErrStatus.Code; c != 422 {
			t.Fatalf("code %d", c)
		}
		if !strings.HasPrefix(se.Error(), denyPrefix+"ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ") {
			t.Fatalf("message %q", se.Error())
		}
	})
}
