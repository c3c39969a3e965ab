package replay

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
)

// wmma tests. The ISA leaves the element-to-lane distribution of wmma
// fragments unspecified; replay documents that it uses the mma.sync tables
// (exec_wmma.go). TestWmmaFragments checks that choice lane by lane against
// the ISA's mma tables (isaA/isaB/isaC of mma_test.go, the .m8n8k4 .f64
// table written out below); TestWmmaGemm checks what programs may rely on
// — load, mma and store agree, for every layout — against a direct product.

// wmmaSpellings are the wmma instructions these tests execute; the
// spelling coverage test counts them as conformance cases.
func wmmaSpellings() []string {
	var out []string
	for _, c := range wmmaGemmCases() {
		out = append(out, c.loadA, c.loadB, c.loadC, c.mma, c.store)
	}
	return out
}

type wmmaGemm struct {
	loadA, loadB, loadC, mma, store string
	m, n, k                         int
	abType, cType, dType            string
	aCol, bCol, cCol, dCol          bool
	space                           string // "global", "shared" or "" (generic)
}

func wmmaGemmCases() []wmmaGemm {
	var cs []wmmaGemm
	lay := func(col bool) string {
		if col {
			return "col"
		}
		return "row"
	}
	for i, sp := range []struct{ c, d string }{{"f32", "f32"}, {"f16", "f16"}, {"f32", "f16"}, {"f16", "f32"}} {
		aCol, bCol, cCol, dCol := i&1 == 1, i&2 == 2, i == 0, i == 3
		space := []string{"global", "shared", "", "shared::cta"}[i]
		ss := ""
		if space != "" {
			ss = "." + space
		}
		c := wmmaGemm{m: 16, n: 16, k: 16, abType: "f16", cType: sp.c, dType: sp.d, aCol: aCol, bCol: bCol, cCol: cCol, dCol: dCol, space: space}
		c.loadA = fmt.Sprintf("wmma.load.a.sync.aligned.%s.m16n16k16%s.f16", lay(aCol), ss)
		c.loadB = fmt.Sprintf("wmma.load.b.sync.aligned.%s.m16n16k16%s.f16", lay(bCol), ss)
		c.loadC = fmt.Sprintf("wmma.load.c.sync.aligned.%s.m16n16k16%s.%s", lay(cCol), ss, sp.c)
		c.mma = fmt.Sprintf("wmma.mma.sync.aligned.%s.%s.m16n16k16.%s.%s", lay(aCol), lay(bCol), sp.d, sp.c)
		c.store = fmt.Sprintf("wmma.store.d.sync.aligned.%s.m16n16k16%s.%s", lay(dCol), ss, sp.d)
		cs = append(cs, c)
	}
	for i := 0; i < 2; i++ {
		col := i == 1
		space := []string{"global", ""}[i]
		ss := ""
		if space != "" {
			ss = "." + space
		}
		c := wmmaGemm{m: 8, n: 8, k: 4, abType: "f64", cType: "f64", dType: "f64", aCol: col, bCol: !col, cCol: col, dCol: !col, space: space}
		c.loadA = fmt.Sprintf("wmma.load.a.sync.aligned.%s.m8n8k4%s.f64", lay(c.aCol), ss)
		c.loadB = fmt.Sprintf("wmma.load.b.sync.aligned.%s.m8n8k4%s.f64", lay(c.bCol), ss)
		c.loadC = fmt.Sprintf("wmma.load.c.sync.aligned.%s.m8n8k4%s.f64", lay(c.cCol), ss)
		c.mma = fmt.Sprintf("wmma.mma.sync.aligned.%s.%s.m8n8k4.rn.f64.f64.f64.f64", lay(c.aCol), lay(c.bCol))
		c.store = fmt.Sprintf("wmma.store.d.sync.aligned.%s.m8n8k4%s.f64", lay(c.dCol), ss)
		cs = append(cs, c)
	}
	return cs
}

func fragRegs(geom string, frag string, typ string) int {
	switch {
	case geom == "m8n8k4" && frag == "c":
		return 2
	case geom == "m8n8k4":
		return 1
	case frag != "c":
		return 8
	case typ == "f16":
		return 4
	}
	return 8
}

func regList(p string, n int) string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, fmt.Sprintf("%%%s%d", p, i))
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// wmmaKernel: in holds A at 0, B at 1024, C at 2048 (elements with the
// case's strides); shared cases copy in to shared memory first. D is stored
// to out (global) or to shared and copied out. Strides: A, B, C, D have
// leading dimensions 24, 20, 18, 17 elements (not the matrix sizes, so a
// stride mix-up shows).
func wmmaKernel(c wmmaGemm) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_80\n.address_size 64\n.shared .align 16 .b8 tile[8192];\n")
	b.WriteString(".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %a<8>, %b<8>, %tid, %w;\n\t.reg .f32 %c<8>, %d<8>;\n\t.reg .b32 %ch<4>, %dh<4>;\n\t.reg .f64 %fa<1>, %fb<1>, %fc<2>, %fd<2>;\n")
	b.WriteString("\t.reg .b64 %in, %out, %p, %q, %s, %g;\n\t.reg .pred %more;\n")
	b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %tid, %tid.x;\n")
	shared := c.space == "shared" || c.space == "shared::cta"
	base := "%in"
	if shared {
		// copy 4096 bytes of in to tile: each lane copies 128 bytes
		b.WriteString("\tmul.wide.u32 %p, %tid, 128;\n\tadd.u64 %q, %in, %p;\n\tmov.u64 %s, tile;\n\tadd.u64 %s, %s, %p;\n")
		for i := 0; i < 16; i++ {
			fmt.Fprintf(&b, "\tld.global.b64 %%g, [%%q+%d];\n\tst.shared.b64 [%%s+%d], %%g;\n", 8*i, 8*i)
		}
		b.WriteString("\tbar.sync 0;\n\tmov.u64 %p, tile;\n")
		base = "%p"
	} else if c.space == "" {
		b.WriteString("\tmov.u64 %p, %in;\n")
		base = "%p"
	}
	ab := func(p string) string {
		if c.abType == "f64" {
			return "{%f" + p + "0}"
		}
		return regList(p, 8)
	}
	cr := func(p, t string) string {
		switch {
		case t == "f64":
			return "{%f" + p + "0, %f" + p + "1}"
		case t == "f16":
			return regList(p+"h", 4)
		}
		return regList(p, 8)
	}
	fmt.Fprintf(&b, "\t%s %s, [%s], 24;\n", c.loadA, ab("a"), base)
	offB, offC := wmmaOffsets(c)
	fmt.Fprintf(&b, "\t%s %s, [%s+%d], 20;\n", c.loadB, ab("b"), base, offB)
	fmt.Fprintf(&b, "\t%s %s, [%s+%d], 18;\n", c.loadC, cr("c", c.cType), base, offC)
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", c.mma, cr("d", c.dType), ab("a"), ab("b"), cr("c", c.cType))
	if shared {
		fmt.Fprintf(&b, "\t%s [%%p+3072], %s, 17;\n\tbar.sync 0;\n", c.store, cr("d", c.dType))
		// copy 17*16 elements of D back: lane copies 8 words of 8 bytes
		b.WriteString("\tmul.wide.u32 %q, %tid, 64;\n\tadd.u64 %s, %p, %q;\n\tadd.u64 %q, %out, %q;\n")
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&b, "\tld.shared.b64 %%g, [%%s+%d];\n\tst.global.b64 [%%q+%d], %%g;\n", 3072+8*i, 8*i)
		}
	} else {
		o := "%out"
		if c.space == "" {
			b.WriteString("\tmov.u64 %q, %out;\n")
			o = "%q"
		}
		fmt.Fprintf(&b, "\t%s [%s], %s, 17;\n", c.store, o, cr("d", c.dType))
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// wmmaOffsets returns the byte offsets of B and C in the input.
func wmmaOffsets(c wmmaGemm) (int, int) {
	if c.abType == "f64" {
		return 1536, 3072
	}
	return 1024, 2048
}

// small integer matrices: products and sums exact in every type
func wA(i, k int) float64 { return float64((i*5+k*3)%7 - 3) }
func wB(k, j int) float64 { return float64((k*3+j*2)%5 - 2) }
func wC(i, j int) float64 { return float64((i*2+j)%9 - 4) }

func putElem(buf []byte, off int, typ string, v float64) {
	switch typ {
	case "f16":
		binary.LittleEndian.PutUint16(buf[off:], fpx.F64ToF16(v, fpx.RN))
	case "f32":
		binary.LittleEndian.PutUint32(buf[off:], math.Float32bits(float32(v)))
	default:
		binary.LittleEndian.PutUint64(buf[off:], math.Float64bits(v))
	}
}

func getElem(buf []byte, off int, typ string) float64 {
	switch typ {
	case "f16":
		return float64(fpx.F16ToF32(binary.LittleEndian.Uint16(buf[off:])))
	case "f32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[off:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(buf[off:]))
}

// at returns the element index of (r, c) in a matrix stored with leading
// dimension ld, row- or column-major.
func at(r, c, ld int, col bool) int {
	if col {
		return c*ld + r
	}
	return r*ld + c
}

// TestWmmaGemm: D = A·B + C through wmma.load/mma/store for every layout,
// type and state space, against a direct product.
func TestWmmaGemm(t *testing.T) {
	for _, c := range wmmaGemmCases() {
		t.Run(c.mma+"/"+c.space, func(t *testing.T) {
			es := map[string]int{"f16": 2, "f32": 4, "f64": 8}
			in := make([]byte, 8192)
			offB, offC := wmmaOffsets(c)
			for i := 0; i < c.m; i++ {
				for k := 0; k < c.k; k++ {
					putElem(in, es[c.abType]*at(i, k, 24, c.aCol), c.abType, wA(i, k))
				}
			}
			for k := 0; k < c.k; k++ {
				for j := 0; j < c.n; j++ {
					putElem(in, offB+es[c.abType]*at(k, j, 20, c.bCol), c.abType, wB(k, j))
				}
			}
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.n; j++ {
					putElem(in, offC+es[c.cType]*at(i, j, 18, c.cCol), c.cType, wC(i, j))
				}
			}
			out, warns, err := runEntry(t, wmmaKernel(c), 32, in, 4096, 0)
			if err != nil || len(warns) > 0 {
				t.Fatalf("run: %v %v\n%s", err, warns, wmmaKernel(c))
			}
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.n; j++ {
					want := wC(i, j)
					for k := 0; k < c.k; k++ {
						want += wA(i, k) * wB(k, j)
					}
					if got := getElem(out, es[c.dType]*at(i, j, 17, c.dCol), c.dType); got != want {
						t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestWmmaFragments: after wmma.load, register r of lane l holds the
// elements replay documents, which are the ISA's mma tables: .m16n16k16 A
// element e (register e/2, half e%2) is mma.m16n8k16 a_{e%8}; B element e
// is b_{e%4} of column half (e%8)/4; C element e is c_{e%4} of column half
// e/4; .m8n8k4 .f64 A is row g column q, B row q column g, C_i row g column
// 2q+i ("Matrix Fragments for mma.m8n8k4 with .f64").
func TestWmmaFragments(t *testing.T) {
	for _, tc := range []struct{ geom, frag, typ string }{
		{"m16n16k16", "a", "f16"}, {"m16n16k16", "b", "f16"}, {"m16n16k16", "c", "f32"}, {"m16n16k16", "c", "f16"},
		{"m8n8k4", "a", "f64"}, {"m8n8k4", "b", "f64"}, {"m8n8k4", "c", "f64"},
	} {
		t.Run(tc.geom+tc.frag+tc.typ, func(t *testing.T) {
			es := map[string]int{"f16": 2, "f32": 4, "f64": 8}[tc.typ]
			val := func(frag string, r, c int) float64 { return float64(100*r + c + 1000*strings.Index("abc", frag)) }
			if tc.typ == "f16" {
				val = func(frag string, r, c int) float64 { return float64(16*r + c) } // exact in f16
			}
			rows, cols := 16, 16
			if tc.geom == "m8n8k4" {
				rows, cols = map[string][2]int{"a": {8, 4}, "b": {4, 8}, "c": {8, 8}}[tc.frag][0], map[string][2]int{"a": {8, 4}, "b": {4, 8}, "c": {8, 8}}[tc.frag][1]
			}
			in := make([]byte, 4096)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					putElem(in, es*(r*cols+c), tc.typ, val(tc.frag, r, c))
				}
			}
			n := fragRegs(tc.geom, tc.frag, tc.typ)
			rt := ".b32"
			if tc.typ == "f64" {
				rt = ".b64"
			}
			var b strings.Builder
			b.WriteString(".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n")
			fmt.Fprintf(&b, "\t.reg %s %%x<8>;\n\t.reg .b64 %%in, %%out, %%o;\n\t.reg .b32 %%tid;\n", rt)
			b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %tid, %tid.x;\n")
			fmt.Fprintf(&b, "\twmma.load.%s.sync.aligned.row.%s.global.%s %s, [%%in], %d;\n", tc.frag, tc.geom, tc.typ, regList("x", n), cols)
			fmt.Fprintf(&b, "\tmul.wide.u32 %%o, %%tid, 64;\n\tadd.u64 %%out, %%out, %%o;\n")
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "\tst.global%s [%%out+%d], %%x%d;\n", rt, 8*i, i)
			}
			b.WriteString("\tret;\n}\n")
			out, warns, err := runEntry(t, b.String(), 32, in, 64*32, 0)
			if err != nil || len(warns) > 0 {
				t.Fatalf("run: %v %v", err, warns)
			}
			for l := 0; l < 32; l++ {
				g, q := l>>2, l%4
				nel := n
				per := 1
				if tc.typ == "f16" {
					nel, per = 2*n, 2
				}
				for e := 0; e < nel; e++ {
					var r, c int
					switch {
					case tc.geom == "m8n8k4" && tc.frag == "a":
						r, c = g, q
					case tc.geom == "m8n8k4" && tc.frag == "b":
						r, c = q, g
					case tc.geom == "m8n8k4":
						r, c = g, 2*q+e
					case tc.frag == "a":
						r, c = isaA(l, e%8)
					case tc.frag == "b":
						r, c = isaB(l, e%4)
						c += 8 * ((e % 8) / 4)
					default:
						r, c = isaC(l, e%4)
						c += 8 * (e / 4)
					}
					got := getElem(out, 64*l+8*(e/per)+es*(e%per), tc.typ)
					if want := val(tc.frag, r, c); got != want {
						t.Fatalf("lane %d element %d = %v, want element (%d,%d) = %v", l, e, got, r, c, want)
					}
				}
			}
		})
	}
}

// TestWmmaRefusals: divergent execution and non-uniform addresses fault;
// unimplemented shapes and a missing stride are refused.
func TestWmmaRefusals(t *testing.T) {
	body := func(pre, ins string) string {
		return ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n" +
			"\t.reg .b32 %a<8>, %tid;\n\t.reg .b64 %in, %out, %o;\n\t.reg .pred %p;\n" +
			"\tld.param.u64 %in, [pin];\n\tmov.u32 %tid, %tid.x;\n" + pre + "\t" + ins + "\n\tret;\n}\n"
	}
	ld := "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%in], 16;"
	for _, c := range []struct{ src, want string }{
		{body("\tsetp.lt.u32 %p, %tid, 16;\n\t@%p bra $L;\n", ld+"\n$L:"), "must execute it"},
		{body("\tmul.wide.u32 %o, %tid, 32;\n\tadd.u64 %in, %in, %o;\n", ld), "warp-uniform"},
		{body("", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%in];"), "stride"},
		{body("", "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%in], 16;"), "not supported"},
	} {
		_, warns, err := runEntry(t, c.src, 32, make([]byte, 4096), 64, 0)
		msg := fmt.Sprint(err, warns)
		if err == nil || !strings.Contains(msg, c.want) {
			t.Errorf("got %s, want a failure containing %q", msg, c.want)
		}
	}
}
