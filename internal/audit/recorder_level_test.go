package audit

import (
	"net/http/httptest"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/portcullis/portcullis/internal/request"
)

func TestPatchAnnotationsNeedRequestLevel(t *testing.T) {
	for _, tt := range []struct {
		level auditv1.Level
		kept  bool
	}{{auditv1.LevelMetadata, false}, {auditv1.LevelRequest, true}, {auditv1.LevelRequestResponse, true}} {
		var got []*auditv1.Event
		sink := SinkFunc(func(evs ...*auditv1.Event) error { got = append(got, evs...); return nil })
		r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps", nil)
		st := &request.State{Info: request.Parse(r), AuditID: "id"}
		st.AddAnnotation("patch.webhook.admission.k8s.io/round_0_index_0", `{"patch":[]}`)
		st.AddAnnotation("mutation.webhook.admission.k8s.io/round_0_index_0", `{"mutated":true}`)
		rec, err := Begin(sink, Decision{Level: tt.level}, st, r, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
		last := got[len(got)-1]
		if _, ok := last.Annotations["patch.webhook.admission.k8s.io/round_0_index_0"]; ok != tt.kept {
			t.Errorf("level %s: patch annotation kept=%v, want %v", tt.level, ok, tt.kept)
		}
		if _, ok := last.Annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]; !ok {
			t.Errorf("level %s: mutation annotation dropped", tt.level)
		}
	}
}
