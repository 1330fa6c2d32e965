package celenv

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// The result types of mutation expressions (compiled with Decls.Patch):
// an apply configuration is an Object, a JSON patch a list of JSONPatch.
var (
	ApplyConfigurationType = types.NewObjectType("Object")
	JSONPatchListType      = cel.ListType(types.NewObjectType("JSONPatch"))
)

// patchTypes declares Object, Object.<field>..., JSONPatch and
// jsonpatch.escapeKey. As in kube-apiserver only mutations may construct
// patches: match conditions and variables cannot name these types.
var patchTypes = celbase.VersionedOptions{
	IntroducedVersion: celbase.IntroducedAlways,
	EnvOptions: []cel.EnvOption{
		common.ResolverEnvOption(&mutation.DynamicTypeResolver{}),
		library.JSONPatch(),
	},
}

func extendWithPatchTypes(set *celbase.EnvSet) (*celbase.EnvSet, error) {
	return celbase.Extend(set, patchTypes)
}
