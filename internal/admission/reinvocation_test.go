package admission

import (
	"context"
	"errors"
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

func TestNilChainRefuses(t *testing.T) {
	var c *Chain
	a := &Attributes{Operation: Create}
	if err := c.Admit(context.Background(), a); !errors.Is(err, ErrNoChain) {
		t.Errorf("Admit on a nil chain = %v, want ErrNoChain", err)
	}
	if err := c.Validate(context.Background(), a); !errors.Is(err, ErrNoChain) {
		t.Errorf("Validate on a nil chain = %v, want ErrNoChain", err)
	}
	if err := (&Chain{}).Validate(context.Background(), a); err != nil {
		t.Errorf("an empty chain refused: %v", err)
	}
}
