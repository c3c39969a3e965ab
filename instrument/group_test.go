package instrument

import (
	"regexp"
	"strings"
	"testing"
)

// TestSiteGroups checks which consecutive dummy-probed loads share one slot
// reservation: the reservation sizes (2 per load of the group) are read
// back from the atomics the instrumented PTX contains, in program order.
func TestSiteGroups(t *testing.T) {
	const head = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 sm[64];
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
`
	cases := []struct {
		name, body string
		want       []string // reservation sizes in program order
	}{
		{"three loads in a row", `
	ld.global.u32 %r1, [%rd2];
	add.u32 %r4, %r1, 1;
	ld.global.u32 %r2, [%rd2+4];
	ld.global.nc.u32 %r3, [%rd2+8];
	ret;`, []string{"6"}},
		{"a label splits", `
	ld.global.u32 %r1, [%rd2];
$L1:
	ld.global.u32 %r2, [%rd2+4];
	ret;`, []string{"2", "2"}},
		{"a branch splits", `
	ld.global.u32 %r1, [%rd2];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L2;
	ld.global.u32 %r2, [%rd2+4];
$L2:
	ret;`, []string{"2", "2"}},
		{"a barrier splits", `
	ld.global.u32 %r1, [%rd2];
	bar.sync 0;
	ld.global.u32 %r2, [%rd2+4];
	ret;`, []string{"2", "2"}},
		{"a warp collective splits", `
	ld.global.u32 %r1, [%rd2];
	shfl.sync.idx.b32 %r5, %r1, 0, 31, -1;
	ld.global.u32 %r2, [%rd2+4];
	ret;`, []string{"2", "2"}},
		{"a shared load stands alone (its atomic after its end read)", `
	ld.global.u32 %r1, [%rd2];
	ld.shared.u32 %r2, [sm];
	ld.global.u32 %r3, [%rd2+4];
	ld.global.u32 %r4, [%rd2+8];
	ret;`, []string{"6", "2"}},
	}
	atom := regexp.MustCompile(`atom\.add\.u32 %__pt_r(?:1|23), \[%__pt_a0\], (\d+);`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body + "\n}\n"
			fset, f := parse(t, "k.ptx", []byte(src))
			res, err := Instrument(fset, f, Options{Mode: "auto", Tool: "test"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range atom.FindAllStringSubmatch(string(res.PTX), -1) {
				got = append(got, m[1])
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("reservations %v, want %v\n%s", got, tc.want, res.PTX)
			}
		})
	}
}
