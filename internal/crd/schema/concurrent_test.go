package schema

import (
	"context"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestVersionConcurrent uses one Version from several goroutines, as
// concurrent requests do; CI runs it under -race.
func TestVersionConcurrent(t *testing.T) {
	v := widgetVersion(t)
	old := object(t, validWidget)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				obj := old.DeepCopy()
				if _, err := v.Coerce(obj); err != nil {
					t.Error(err)
					return
				}
				v.Default(obj.Object)
				if errs := v.ValidateCreate(context.Background(), obj); len(errs) > 0 {
					t.Error(errs)
				}
				if errs, _ := v.ValidateUpdate(context.Background(), obj, old); len(errs) > 0 {
					t.Error(errs)
				}
				if _, err := v.Table(obj, metav1.TableOptions{}, now); err != nil {
					t.Error(err)
				}
				if _, err := v.Fields(obj); err != nil {
					t.Error(err)
				}
				if _, err := v.TypeConverter().ObjectToTyped(obj); err != nil {
					t.Error(err)
				}
				_ = v.OpenAPI()
			}
		})
	}
	wg.Wait()
}
