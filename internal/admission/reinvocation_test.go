package admission

import (
	"context"
	"testing"
)

func TestAdmitWithReinvocation(t *testing.T) {
	tests := []struct {
		name  string
		ask   bool
		calls int
	}{
		{"no plugin asks: one round", false, 2},
		{"a plugin asks: two rounds", true, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			asker := MutatorFunc(func(ctx context.Context, a *Attributes) error {
				calls++
				r := ReinvocationFrom(ctx)
				if tt.ask && !r.IsReinvoke() {
					r.SetShouldReinvoke()
				}
				return nil
			})
			other := MutatorFunc(func(ctx context.Context, a *Attributes) error { calls++; return nil })
			if err := (&Chain{Mutators: []Mutator{asker, other}}).Admit(context.Background(), &Attributes{}); err != nil {
				t.Fatal(err)
			}
			if calls != tt.calls {
				t.Errorf("%d calls, want %d", calls, tt.calls)
			}
		})
	}
}
