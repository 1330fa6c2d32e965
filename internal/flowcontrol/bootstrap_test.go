package flowcontrol

import "testing"

func TestBootstrap(t *testing.T) {
	m, s := Mandatory(), Suggested()
	if len(m.PriorityLevels) != 2 || len(m.FlowSchemas) != 2 {
		t.Fatalf("mandatory: %d priority levels, %d flow schemas; want 2 and 2", len(m.PriorityLevels), len(m.FlowSchemas))
	}
	if len(s.PriorityLevels) != 6 || len(s.FlowSchemas) != 9 {
		t.Fatalf("suggested: %d priority levels, %d flow schemas; want 6 and 9", len(s.PriorityLevels), len(s.FlowSchemas))
	}
	levels := map[string]bool{}
	for _, c := range []Configuration{m, s} {
		for _, pl := range c.PriorityLevels {
			levels[pl.Name] = true
		}
	}
	for _, c := range []Configuration{m, s} {
		for _, fs := range c.FlowSchemas {
			if !levels[fs.Spec.PriorityLevelConfiguration.Name] {
				t.Errorf("flow schema %s names priority level %q, which is not bootstrapped", fs.Name, fs.Spec.PriorityLevelConfiguration.Name)
			}
			if fs.Annotations["apf.kubernetes.io/autoupdate-spec"] != "true" {
				t.Errorf("flow schema %s: no autoupdate-spec annotation", fs.Name)
			}
		}
	}
	spec, ok := MandatoryFlowSchemaSpec("exempt")
	if !ok || spec.MatchingPrecedence != 1 {
		t.Errorf("exempt flow schema: %+v, %v", spec, ok)
	}
	// Copies: a caller's change does not reach the next caller.
	m.FlowSchemas[0].Spec.MatchingPrecedence = 42
	if Mandatory().FlowSchemas[0].Spec.MatchingPrecedence == 42 {
		t.Error("Mandatory returned shared objects")
	}
}
