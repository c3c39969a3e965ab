package trace

import "testing"

func TestIsRunBundleName(t *testing.T) {
	for name, want := range map[string]bool{
		"run.bundle": true, "run.000.bundle": true, "run.1234.bundle": true,
		"run.00.bundle": false, "run.x.bundle": false, "trace.bin": false, "trace.000.bin": false,
		"k.bundle": false, "run.000.bundle.tmp": false,
	} {
		if got := IsRunBundleName(name); got != want {
			t.Errorf("IsRunBundleName(%q) = %v, want %v", name, got, want)
		}
	}
}
