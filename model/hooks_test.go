package model

import (
	"context"
	"reflect"
	"testing"
)

// noIssue is a recorder that declines Issue events (IssueFilter).
type noIssue struct{ recorder }

func (*noIssue) ObservesIssue() bool { return false }

// TestIssueFilter: an SM observer that declines Issue events gets none,
// and every other event exactly as an observer that takes them all; the
// result is unchanged.
func TestIssueFilter(t *testing.T) {
	s := GTX480()
	ref, refParts := record(t, s, mixed(false), 1)
	parts := make([]*noIssue, s.NumSMs)
	res, err := Run(context.Background(), s, mixed(false), Options{Observe: func(part int) Observer {
		if part == MemorySide {
			return nil
		}
		parts[part] = &noIssue{}
		return parts[part]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ref, res) {
		t.Fatal("declining Issue events changed the result")
	}
	issues := 0
	for i, p := range parts {
		r := refParts[i+1]
		issues += len(r.issues)
		if len(p.issues) != 0 {
			t.Errorf("SM %d: %d Issue events sent to an observer that declined them", i, len(p.issues))
		}
		if len(p.units) != len(r.issues) {
			t.Errorf("SM %d: %d UnitBusy events, want one per issue (%d)", i, len(p.units), len(r.issues))
		}
		if !reflect.DeepEqual(p.mems, r.mems) || !reflect.DeepEqual(p.stalls, r.stalls) || !reflect.DeepEqual(p.units, r.units) ||
			!reflect.DeepEqual(p.starts, r.starts) || !reflect.DeepEqual(p.ends, r.ends) {
			t.Errorf("SM %d: other events differ", i)
		}
	}
	if issues == 0 {
		t.Fatal("the kernel issues nothing: the test shows nothing")
	}
}
