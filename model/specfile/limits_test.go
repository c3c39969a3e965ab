package specfile

import (
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestSpecLimits: spec-file values past a physical range are refused with
// the field named, before anything is allocated.
func TestSpecLimits(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"l2: {sets: 1000000000}", "l2.sets"},
		{"num_sms: 100000000", "num_sms"},
		{"core_mhz: 1e30", "core_mhz"},
		{"l2: {latency: 1000000000000}", "l2.latency"},
		{"dram: {clock_mhz: 1e12}", "dram.clock_mhz"},
		{"l1d: {ways: 100000}", "l1d.ways"},
		{"sm: {classes: {fp32: {latency: 1000000}}}", "sm.classes.fp32.latency"},
		// each field within range, the total over the limit:
		// 1024 SMs x 16 MiB of shared memory = 16 GiB
		{"num_sms: 1024\nshared: {bytes: 16777216}", "MiB limit"},
	} {
		_, err := Parse([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want one naming %s", tc.yaml, err, tc.want)
		}
	}
}

// FuzzParseLimits: every spec Parse accepts lies within the physical
// ranges (Validate) and the state limit.
func FuzzParseLimits(f *testing.F) {
	f.Add([]byte("base: gtx480\nnum_sms: 4\n"))
	f.Add([]byte("l2: {sets: 1000000000}\n"))
	f.Add([]byte("core_mhz: 1e30\nsm: {classes: {fp32: {latency: 4}}}\n"))
	f.Add([]byte("{\"base\": \"a100\", \"dram\": {\"channels\": 8}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted spec is invalid: %v", err)
		}
		if b := s.EstimateStateBytes(); b > model.MaxStateBytes {
			t.Fatalf("accepted spec needs %.0f bytes of state", b)
		}
	})
}
