package printers

import (
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FuzzTable feeds arbitrary JSON, decoded into each registered type, to
// Table: stored objects are only as well-formed as their writers, and no
// printer may panic or misalign its cells on them.
func FuzzTable(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"metadata":{"name":"p","deletionTimestamp":"2025-06-01T11:00:00Z"},"status":{"phase":"Running","reason":"NodeLost"}}`,
		`{"spec":{"initContainers":[{"name":"a","restartPolicy":"Always"}]},"status":{"initContainerStatuses":[{"name":"a","started":true,"ready":true,"state":{"terminated":{"exitCode":1}}}],"containerStatuses":[{"name":"b","state":{"waiting":{}}}]}}`,
		`{"spec":{"replicas":-3,"selector":{"matchExpressions":[{"key":"","operator":"Bogus"}]},"ports":[{"port":-1}]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"a/b/c","kind":"","name":"x","controller":true}]},"subsets":[{"addresses":[{"ip":"::1"}],"ports":[{"port":1}]}]}`,
		`{"series":{"count":2},"regarding":{"kind":"Pod"},"spec":{"paramRef":{"selector":{}}}}`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	regs := registrations()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		r := regs[int(which)%len(regs)]
		obj := reflect.New(r.typ.Elem()).Interface().(runtime.Object)
		if json.Unmarshal(data, obj) != nil {
			return
		}
		table, err := Table(obj, metav1.TableOptions{}, now)
		if err != nil {
			t.Fatal(err)
		}
		checkRow(t, table.ColumnDefinitions, table.Rows[0])
	})
}
