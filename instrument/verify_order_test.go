package instrument

import (
	"strings"
	"testing"
)

// TestDummyOrder checks the dummy probe's SASS order rule on hand-written
// SASS (nvdisasm's format): the end read (the last timer read) must follow an
// instruction that reads the load's destination register.
func TestDummyOrder(t *testing.T) {
	const head = "\t.section\t.text.k,\"ax\",@progbits\n" +
		"        /*0000*/                   CS2R R14, SR_CLOCKLO ;\n" +
		"        /*0010*/                   LDG.E R9, [R10.64] ;\n"
	for _, c := range []struct {
		name, body string
		ok         bool
		want       string
	}{
		// ptxas 11.8's shape: the guard if-converted, the ISETP kept first
		{"isetp then read", "        /*0020*/                   ISETP.EQ.U32.OR P2, PT, R9, RZ, !P1 ;\n" +
			"        /*0030*/                   CS2R R10, SR_CLOCKLO ;\n", true, "reads R9 of load #1"},
		{"guarded read", "        /*0020*/                   ISETP.EQ.U32.OR P2, PT, R9, RZ, !P1 ;\n" +
			"        /*0030*/               @P2 CS2R R12, SR_CLOCKLO ;\n", true, "reads R9"},
		// the hand-broken order: the read moved above its consumer
		{"read first", "        /*0020*/                   CS2R R12, SR_CLOCKLO ;\n" +
			"        /*0030*/                   ISETP.EQ.U32.OR P2, PT, R9, RZ, !P1 ;\n", false, "nothing between load #1"},
		{"other register", "        /*0020*/                   ISETP.EQ.U32.OR P2, PT, R8, RZ, !P1 ;\n" +
			"        /*0030*/                   CS2R R12, SR_CLOCKLO ;\n", false, "nothing between load #1"},
		{"overwritten", "        /*0020*/                   MOV R9, R3 ;\n" +
			"        /*0030*/                   ISETP.EQ.U32.OR P2, PT, R9, RZ, !P1 ;\n" +
			"        /*0040*/                   CS2R R12, SR_CLOCKLO ;\n", false, "overwrites R9"},
		{"skipped", "        /*0020*/               @P3 BRA `(.L_x_1) ;\n" +
			"        /*0030*/                   ISETP.EQ.U32.OR P2, PT, R9, RZ, !P1 ;\n" +
			".L_x_1:\n" +
			"        /*0040*/                   CS2R R12, SR_CLOCKLO ;\n", false, "may skip the consumer"},
		{"store consumer", "        /*0020*/               @P0 STG.E [R4.64+0x8], R9 ;\n" +
			"        /*0030*/                   CS2R R12, SR_CLOCKLO ;\n", true, "reads R9"},
	} {
		insts := ParseSASS(head + c.body)["k"]
		end := len(insts) - 1
		for !insts[end].isTimerRead() {
			end--
		}
		ok, detail := dummyOrder(insts, insts[1:end], end)
		if ok != c.ok || !strings.Contains(detail, c.want) {
			t.Errorf("%s: %v %q; want %v and a detail with %q", c.name, ok, detail, c.ok, c.want)
		}
	}
	// A constant load folded into the consumer (sm_70: ISETP ... c[0x3][0x0]).
	insts := ParseSASS("\t.section\t.text.k,\"ax\",@progbits\n" +
		"        /*0000*/                   CS2R R14, SR_CLOCKLO ;\n" +
		"        /*0010*/                   ISETP.EQ.U32.OR P1, PT, RZ, c[0x3][0x0], !P1 ;\n" +
		"        /*0020*/                   CS2R R12, SR_CLOCKLO ;\n")["k"]
	if ok, d := dummyOrder(insts, insts[1:2], 2); !ok {
		t.Errorf("folded constant load: %s", d)
	}
	// The load removed by ptxas (forwarded from a store): the consumer
	// store is all that is left; without it the probe fails.
	fwd := "\t.section\t.text.k,\"ax\",@progbits\n" +
		"        /*0000*/                   CS2R R10, SR_CLOCKLO ;\n" +
		"        /*0010*/               @P1 ST.E.STRONG.SYS [R2.64+0x8], R20 ;\n" +
		"        /*0020*/                   CS2R R14, SR_CLOCKLO ;\n"
	insts = ParseSASS(fwd)["k"]
	if ok, d := dummyOrder(insts, insts[1:2], 2); !ok {
		t.Errorf("forwarded load: %s", d)
	}
	insts = ParseSASS(strings.Replace(fwd, "@P1 ST.E.STRONG.SYS [R2.64+0x8], R20", "IADD3 R4, R20, 0x1, RZ", 1))["k"]
	if ok, d := dummyOrder(insts, insts[1:2], 2); ok || !strings.Contains(d, "no load") {
		t.Errorf("no load and no consumer: %v %s", ok, d)
	}
	// Kernel parameters (bank 0) are not the probed access.
	insts = ParseSASS("\t.section\t.text.k,\"ax\",@progbits\n" +
		"        /*0000*/                   CS2R R14, SR_CLOCKLO ;\n" +
		"        /*0010*/                   ISETP.EQ.U32.OR P1, PT, RZ, c[0x0][0x160], !P1 ;\n" +
		"        /*0020*/                   CS2R R12, SR_CLOCKLO ;\n")["k"]
	if ok, d := dummyOrder(insts, insts[1:2], 2); ok {
		t.Errorf("parameter read taken for the load: %s", d)
	}
}
