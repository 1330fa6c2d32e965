package flowcontrol

import (
	_ "embed"
	"encoding/json"
	"fmt"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// bootstrapJSON is kube-apiserver v1.37's configuration as it stores it
// (defaults applied), read from a reference server.
//
//go:embed bootstrap.json
var bootstrapJSON []byte

// mandatoryNames are the objects whose spec is fixed, of both kinds.
var mandatoryNames = map[string]bool{
	flowcontrolv1.FlowSchemaNameExempt:   true,
	flowcontrolv1.FlowSchemaNameCatchAll: true,
}

// Configuration is one set of bootstrap objects.
type Configuration struct {
	PriorityLevels []*flowcontrolv1.PriorityLevelConfiguration
	FlowSchemas    []*flowcontrolv1.FlowSchema
}

// The objects are decoded once; callers get copies.
var mandatory, suggested = decode()

func decode() (Configuration, Configuration) {
	var raw []json.RawMessage
	if err := json.Unmarshal(bootstrapJSON, &raw); err != nil {
		panic(fmt.Sprintf("flowcontrol: embedded bootstrap configuration: %v", err))
	}
	var m, s Configuration
	for _, r := range raw {
		var kind struct{ Kind string }
		if err := json.Unmarshal(r, &kind); err != nil {
			panic(fmt.Sprintf("flowcontrol: embedded bootstrap configuration: %v", err))
		}
		switch kind.Kind {
		case "PriorityLevelConfiguration":
			pl := &flowcontrolv1.PriorityLevelConfiguration{}
			must(json.Unmarshal(r, pl))
			into := &s
			if mandatoryNames[pl.Name] {
				into = &m
			}
			into.PriorityLevels = append(into.PriorityLevels, pl)
		case "FlowSchema":
			fs := &flowcontrolv1.FlowSchema{}
			must(json.Unmarshal(r, fs))
			into := &s
			if mandatoryNames[fs.Name] {
				into = &m
			}
			into.FlowSchemas = append(into.FlowSchemas, fs)
		default:
			panic(fmt.Sprintf("flowcontrol: embedded bootstrap configuration: unexpected kind %q", kind.Kind))
		}
	}
	return m, s
}

func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("flowcontrol: embedded bootstrap configuration: %v", err))
	}
}

// Mandatory returns copies of the mandatory objects.
func Mandatory() Configuration { return mandatory.copy() }

// Suggested returns copies of the suggested objects.
func Suggested() Configuration { return suggested.copy() }

func (c Configuration) copy() Configuration {
	var out Configuration
	for _, pl := range c.PriorityLevels {
		out.PriorityLevels = append(out.PriorityLevels, pl.DeepCopy())
	}
	for _, fs := range c.FlowSchemas {
		out.FlowSchemas = append(out.FlowSchemas, fs.DeepCopy())
	}
	return out
}

// MandatoryFlowSchemaSpec returns the fixed spec of a mandatory FlowSchema.
func MandatoryFlowSchemaSpec(name string) (flowcontrolv1.FlowSchemaSpec, bool) {
	for _, fs := range mandatory.FlowSchemas {
		if fs.Name == name {
			return *fs.Spec.DeepCopy(), true
		}
	}
	return flowcontrolv1.FlowSchemaSpec{}, false
}

// MandatoryPriorityLevelSpec returns the fixed spec of a mandatory
// PriorityLevelConfiguration.
func MandatoryPriorityLevelSpec(name string) (flowcontrolv1.PriorityLevelConfigurationSpec, bool) {
	for _, pl := range mandatory.PriorityLevels {
		if pl.Name == name {
			return *pl.Spec.DeepCopy(), true
		}
	}
	return flowcontrolv1.PriorityLevelConfigurationSpec{}, false
}
