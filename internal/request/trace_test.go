package request

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddPartAndStepAt(t *testing.T) {
	s := &State{Trace: true}
	s.AddStep(Step{Stage: StageAuthentication, Name: "x509 client certificate", Outcome: "authenticated"})
	m := s.Mark()
	s.AddAnnotation("k", "v")
	s.AddPart(Step{Rule: "policy p, binding b", Outcome: "denied", Detail: "no"})
	s.AddPart(Step{Rule: "policy q, binding c", Outcome: "warned"})
	s.AddStepAt(Step{Stage: StageAdmission, Name: "ValidatingAdmissionPolicy", Phase: PhaseValidate, Outcome: "denied"}, m)
	// A step without parts after one with them takes none.
	s.AddStepAt(Step{Stage: StageAdmission, Name: "ResourceQuota", Phase: PhaseValidate, Outcome: "admitted"}, s.Mark())
	want := []Step{
		{Stage: StageAuthentication, Name: "x509 client certificate", Outcome: "authenticated"},
		{Stage: StageAdmission, Name: "ValidatingAdmissionPolicy", Phase: PhaseValidate, Outcome: "denied", Annotations: []string{"k"}, Parts: []Step{
			{Rule: "policy p, binding b", Outcome: "denied", Detail: "no"},
			{Rule: "policy q, binding c", Outcome: "warned"},
		}},
		{Stage: StageAdmission, Name: "ResourceQuota", Phase: PhaseValidate, Outcome: "admitted"},
	}
	if diff := cmp.Diff(want, s.Steps()); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	const js = `[{"stage":"authentication","name":"x509 client certificate","outcome":"authenticated"},` +
		`{"stage":"admission","name":"ValidatingAdmissionPolicy","phase":"validate","outcome":"denied","annotations":["k"],` +
		`"parts":[{"rule":"policy p, binding b","outcome":"denied","detail":"no"},{"rule":"policy q, binding c","outcome":"warned"}]},` +
		`{"stage":"admission","name":"ResourceQuota","phase":"validate","outcome":"admitted"}]`
	if got := s.TraceJSON(); got != js {
		t.Errorf("trace JSON\n got %s\nwant %s", got, js)
	}
}

func TestAddPartWithoutTrace(t *testing.T) {
	var nilState *State
	nilState.AddPart(Step{Rule: "r"})
	nilState.AddStepAt(Step{Name: "n"}, nilState.Mark())
	if nilState.Tracing() {
		t.Error("a nil state traces")
	}
	s := &State{}
	s.AddPart(Step{Rule: "r"})
	s.AddStepAt(Step{Name: "n"}, s.Mark())
	if got := s.Steps(); len(got) != 0 || s.Tracing() {
		t.Errorf("an untraced state recorded %+v", got)
	}
	if n := testing.AllocsPerRun(100, func() { s.AddPart(Step{Rule: "policy p, binding b", Outcome: "admitted"}) }); n != 0 {
		t.Errorf("AddPart on an untraced state allocates %v times", n)
	}
}

// BenchmarkAddPartUntraced is the cost of a part producer's call on a
// request that keeps no trace: it must not allocate.
func BenchmarkAddPartUntraced(b *testing.B) {
	s := &State{}
	b.ReportAllocs()
	for b.Loop() {
		s.AddPart(Step{Rule: "policy p, binding b", Outcome: "admitted"})
	}
}
