package instrument

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
)

// TestOldISA: modules for PTX ISA < 2.0 or sm_1x (and %globaltimer below
// PTX 3.1 / sm_30) are refused with a positioned error naming the reason,
// since ptxas rejects the probes' generic addressing, vote.ballot and
// %clock64 there; the first supported ISA/target instruments, and ptxas
// (when installed) accepts the output with -arch=sm_52. A module without
// sites is never refused (its output is its input).
func TestOldISA(t *testing.T) {
	const body = `
.entry k(.param .u32 p)
{
	.reg .u32 %%r<3>;
	ld.param.u32 %%r1, [p];
	%s
	st.global.u32 [%%r1], %%r2;
	ret;
}
`
	load := "ld.global.u32 %r2, [%r1];"
	for _, tc := range []struct {
		version, target, timer, inst string
		want                         string // error substring, "" for success
	}{
		{"1.4", "sm_10", "", load, "1:1: cannot instrument PTX ISA 1.4 for sm_10"},
		{"1.3", "sm_13", "", load, "cannot instrument PTX ISA 1.3 for sm_13"},
		{"3.0", "sm_10", "", load, "cannot instrument PTX ISA 3.0 for sm_10"},
		{"1.4", "sm_10", "", "mov.u32 %r2, 1;", ""}, // no sites: unchanged
		{"2.0", "sm_20", "", load, ""},
		{"3.0", "sm_20", "globaltimer", load, "cannot read %globaltimer in PTX ISA 3.0 for sm_20"},
		{"3.1", "sm_20", "globaltimer", load, "cannot read %globaltimer in PTX ISA 3.1 for sm_20"},
		{"3.1", "sm_30", "globaltimer", load, ""},
		{"2.0", "sm_20", "clock", load, ""},
	} {
		src := fmt.Sprintf(".version %s\n.target %s\n", tc.version, tc.target) +
			fmt.Sprintf(body, strings.ReplaceAll(tc.inst, "%", "%%"))
		src = strings.ReplaceAll(src, "%%", "%")
		name := fmt.Sprintf("%s-%s-%s", tc.version, tc.target, tc.timer)
		fset, f := parse(t, "k.ptx", []byte(src))
		res, err := Instrument(fset, f, Options{Timer: tc.timer})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
			continue
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
			continue
		case tc.want != "":
			continue
		}
		tools := cudatool.Find()
		if tools.Ptxas == "" {
			continue
		}
		if _, _, err := tools.Compile(context.Background(), "k.ptx", []byte(src), "sm_52"); err != nil {
			t.Fatalf("%s: ptxas rejects the input: %v", name, err)
		}
		if _, _, err := tools.Compile(context.Background(), "k.ptx", res.PTX, "sm_52"); err != nil {
			t.Errorf("%s: ptxas rejects the output: %v", name, err)
		}
	}
}
