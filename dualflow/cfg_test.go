package dualflow

import (
	"strings"
	"testing"
)

const cfgHeader = `.version 7.8
.target sm_52
.address_size 64
`

// The expected listings below were derived by hand from the rules in
// doc.go: RP advances one slot per instruction; a join's live-ins
// (declaration order v1..vk) arrive at distances k+1..2 from its entry
// (movs right before the terminator, a nop for a fall-through edge);
// nothing is inserted when they already lie there.
var cfgCases = []struct {
	name string
	body string
	want []string
	movs int
	nops int
}{
	{
		name: "diamond",
		body: `.visible .entry diamond(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.s32 %r2, %r1, 2;
	bra.uni JOIN;
ELSE:
	mov.u32 %r2, 7;
JOIN:
	ld.param.u64 %rd1, [out];
	mul.lo.s32 %r3, %r2, 2;
	st.global.u32 [%rd1], %r3;
	ret;
}
`,
		// IF: add puts %r2 at distance 2 from JOIN already (seed Fig. 7);
		// ELSE: mov then a nop in place of the branch.
		want: []string{
			"ld.param.u32 [n]; // -> %r1",
			"setp.eq.s32 |1|, 0; // -> %p1",
			"@|1| bra ELSE;",
			"add.s32 |3|, 2; // -> %r2",
			"bra.uni JOIN;",
			"mov.u32 7; // -> %r2",
			"nop // join JOIN",
			"ld.param.u64 [out]; // -> %rd1",
			"mul.lo.s32 |3|, 2; // -> %r3",
			"st.global.u32 [|2|], |1|;",
			"ret;",
		},
		movs: 0, nops: 1,
	},
	{
		name: "loop",
		body: `.visible .entry loop(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	add.s32 %r2, %r2, %r3;
	add.s32 %r3, %r3, 1;
	setp.lt.s32 %p1, %r3, %r1;
	@%p1 bra LOOP;
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r2;
	ret;
}
`,
		// LOOP live-ins r1 r2 r3 at 4 3 2; the entry path has them in
		// place (nop only); the back edge copies all three.
		want: []string{
			"ld.param.u32 [n]; // -> %r1",
			"mov.u32 0; // -> %r2",
			"mov.u32 0; // -> %r3",
			"nop // join LOOP",
			"add.s32 |3|, |2|; // -> %r2",
			"add.s32 |3|, 1; // -> %r3",
			"setp.lt.s32 |1|, |6|; // -> %p1",
			"mov |7| // %r1 = %r1 (join LOOP)",
			"mov |4| // %r2 = %r2 (join LOOP)",
			"mov |4| // %r3 = %r3 (join LOOP)",
			"@|4| bra LOOP;",
			"ld.param.u64 [out]; // -> %rd1",
			"st.global.u32 [|1|], |4|;",
			"ret;",
		},
		movs: 3, nops: 1,
	},
	{
		name: "nested",
		body: `.visible .entry nested(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
OUTER:
	mov.u32 %r4, 0;
INNER:
	add.s32 %r2, %r2, %r4;
	add.s32 %r4, %r4, 1;
	setp.lt.s32 %p1, %r4, %r1;
	@%p1 bra INNER;
	add.s32 %r3, %r3, 1;
	setp.lt.s32 %p2, %r3, %r1;
	@%p2 bra OUTER;
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r2;
	ret;
}
`,
		// OUTER live-ins r1 r2 r3 (at 4 3 2), INNER r1 r2 r3 r4 (at 5 4 3 2).
		want: []string{
			"ld.param.u32 [n]; // -> %r1",
			"mov.u32 0; // -> %r2",
			"mov.u32 0; // -> %r3",
			"nop // join OUTER",
			"mov.u32 0; // -> %r4",
			"mov |5| // %r1 = %r1 (join INNER)",
			"mov |5| // %r2 = %r2 (join INNER)",
			"mov |5| // %r3 = %r3 (join INNER)",
			"mov |4| // %r4 = %r4 (join INNER)",
			"nop // join INNER",
			"add.s32 |4|, |2|; // -> %r2",
			"add.s32 |3|, 1; // -> %r4",
			"setp.lt.s32 |1|, |7|; // -> %p1",
			"mov |8| // %r1 = %r1 (join INNER)",
			"mov |4| // %r2 = %r2 (join INNER)",
			"mov |8| // %r3 = %r3 (join INNER)",
			"mov |5| // %r4 = %r4 (join INNER)",
			"@|5| bra INNER;",
			"add.s32 |3|, 1; // -> %r3",
			"setp.lt.s32 |1|, |6|; // -> %p2",
			"mov |7| // %r1 = %r1 (join OUTER)",
			"mov |7| // %r2 = %r2 (join OUTER)",
			"mov |4| // %r3 = %r3 (join OUTER)",
			"@|4| bra OUTER;",
			"ld.param.u64 [out]; // -> %rd1",
			"st.global.u32 [|1|], |4|;",
			"ret;",
		},
		movs: 11, nops: 2,
	},
	{
		name: "early_exit",
		body: `.visible .entry early(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
LOOP:
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra DONE;
	add.s32 %r2, %r2, 1;
	setp.eq.s32 %p2, %r2, 5;
	@%p2 ret;
	bra.uni LOOP;
DONE:
	st.global.u32 [%rd1], %r2;
	ret;
}
`,
		// LOOP live-ins r1 r2 rd1 (declaration order) at 4 3 2.
		want: []string{
			"ld.param.u64 [out]; // -> %rd1",
			"ld.param.u32 [n]; // -> %r1",
			"mov.u32 0; // -> %r2",
			"mov |2| // %r1 = %r1 (join LOOP)",
			"mov |2| // %r2 = %r2 (join LOOP)",
			"mov |5| // %rd1 = %rd1 (join LOOP)",
			"nop // join LOOP",
			"setp.ge.s32 |3|, |4|; // -> %p1",
			"@|1| bra DONE;",
			"add.s32 |5|, 1; // -> %r2",
			"setp.eq.s32 |1|, 5; // -> %p2",
			"@|1| ret;",
			"mov |9| // %r1 = %r1 (join LOOP)",
			"mov |4| // %r2 = %r2 (join LOOP)",
			"mov |9| // %rd1 = %rd1 (join LOOP)",
			"bra.uni LOOP;",
			"st.global.u32 [|4|], |5|;",
			"ret;",
		},
		movs: 6, nops: 1,
	},
}

func listingLines(l string) []string {
	var out []string
	for _, line := range strings.Split(l, "\n") {
		fs := strings.Fields(line)
		if len(fs) < 2 || fs[0][0] < '0' || fs[0][0] > '9' {
			continue
		}
		out = append(out, strings.Join(fs[1:], " "))
	}
	return out
}

func TestConvertHandCFGs(t *testing.T) {
	for _, tc := range cfgCases {
		t.Run(tc.name, func(t *testing.T) {
			file, err := Parse(tc.name+".ptx", []byte(cfgHeader+tc.body))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Analyze(file, file.Functions()[0])
			if err != nil {
				t.Fatal(err)
			}
			p, err := Convert(f, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := listingLines(p.Listing())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("listing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if p.Static[KMov] != tc.movs || p.Static[KNop] != tc.nops {
				t.Errorf("inserted %d mov %d nop, want %d %d", p.Static[KMov], p.Static[KNop], tc.movs, tc.nops)
			}
		})
	}
}
