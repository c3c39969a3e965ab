package replay

import (
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestSetProbeStamps checks that SetProbe marks the probed access and the
// timer reads of its probe pair: the nearest clock read before it (begin)
// and after it (end), not the farther ones.
func TestSetProbeStamps(t *testing.T) {
	src := ".version 8.5\n.target sm_80\n.address_size 64\n" +
		".visible .entry k(.param .u64 p)\n{\n" + // line 4, 5
		"\t.reg .b64 %a, %c<5>;\n\t.reg .b32 %v;\n" + // 6, 7
		"\tld.param.u64 %a, [p];\n" + // 8
		"\tmov.u64 %c1, %clock64;\n" + // 9: an earlier read
		"\tmov.u64 %c2, %clock64;\n" + // 10: begin
		"\tld.global.u32 %v, [%a];\n" + // 11: probed
		"\tst.global.u32 [%a+4], %v;\n" + // 12
		"\tmov.u64 %c3, %clock64;\n" + // 13: end
		"\tmov.u64 %c4, %clock64;\n" + // 14: a later read
		"\tret;\n}\n"
	code := lowerK(t, "stamp.ptx", src)
	if !code.SetProbe(11, 7) {
		t.Fatal("SetProbe found no instruction on line 11")
	}
	want := map[int]model.Stamp{10: model.StampBegin, 13: model.StampEnd}
	for _, in := range code.Insts() {
		if in.Stamp != want[in.Line] {
			t.Errorf("line %d: stamp %d, want %d", in.Line, in.Stamp, want[in.Line])
		}
		if wp := map[bool]int{true: 7, false: -1}[in.Line == 11]; in.Probe != wp {
			t.Errorf("line %d: probe %d, want %d", in.Line, in.Probe, wp)
		}
	}
}
