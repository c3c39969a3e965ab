package ptx

import (
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// cfgCorpusDir is the shared third-party PTX corpus, used in place.
const cfgCorpusDir = "../../shared/corpus/ptx"

// cfgCorpus returns the corpus files, skipping when the corpus is absent.
func cfgCorpus(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(cfgCorpusDir, "*.ptx"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Skipf("shared corpus %s absent", cfgCorpusDir)
	}
	return files
}

// cfgParse parses src or fails the test.
func cfgParse(t testing.TB, name string, src string) *File {
	t.Helper()
	f, err := ParseFile(token.NewFileSet(), name, []byte(src), AllErrors)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return f
}

// cfgParseFile reads and parses a file or fails the test.
func cfgParseFile(t testing.TB, name string) *File {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return cfgParse(t, name, string(src))
}

// cfgKernel wraps a body in a minimal module with one .entry k.
func cfgKernel(body string) string {
	return ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" +
		".reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<10>;\n" + body + "\n}\n"
}

func TestBuildCFG(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // CFG.String()
		issues     int
	}{
		{
			name: "straight",
			body: "mov.u32 %r1, 1;\nadd.s32 %r2, %r1, 1;\nret;",
			want: `B0 entry -> B1:entry ipdom=B1
B1 3 -> B2:exit idom=B0 ipdom=B2
B2 exit idom=B1
`,
		},
		{
			name: "diamond",
			body: `setp.eq.s32 %p1, %r1, 0;
@%p1 bra ELSE;
add.s32 %r2, %r1, 1;
bra JOIN;
ELSE:
sub.s32 %r2, %r1, 1;
JOIN:
st.global.u32 [%rd1], %r2;
ret;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 2 -> B3:taken B2:fall idom=B0 ipdom=B4
B2 2 -> B4:taken idom=B1 ipdom=B4
B3 [ELSE] 1 -> B4:fall idom=B1 ipdom=B4
B4 [JOIN] 2 -> B5:exit idom=B1 ipdom=B5
B5 exit idom=B4
`,
		},
		{
			name: "loop",
			body: `mov.u32 %r1, 0;
LOOP:
add.s32 %r1, %r1, 1;
setp.lt.s32 %p1, %r1, 10;
@%p1 bra LOOP;
ret;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B2:fall idom=B0 ipdom=B2
B2 [LOOP] 3 -> B2:taken B3:fall idom=B1 ipdom=B3
B3 1 -> B4:exit idom=B2 ipdom=B4
B4 exit idom=B3
`,
		},
		{
			name: "guarded ret and early exit",
			body: `setp.eq.s32 %p1, %r1, 0;
@%p1 exit;
setp.eq.s32 %p2, %r1, 1;
@!%p2 ret;
trap;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 2 -> B4:exit B2:fall idom=B0 ipdom=B4
B2 2 -> B4:exit B3:fall idom=B1 ipdom=B4
B3 1 -> B4:exit idom=B2 ipdom=B4
B4 exit idom=B1
`,
		},
		{
			name: "unreachable",
			body: `bra END;
mov.u32 %r1, 1;
END:
ret;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B3:taken idom=B0 ipdom=B3
B2 1 -> B3:fall unreachable ipdom=B3
B3 [END] 1 -> B4:exit idom=B1 ipdom=B4
B4 exit idom=B3
`,
		},
		{
			name: "nested blocks and scoped labels",
			body: `mov.u32 %r1, 0;
{
.reg .pred P;
WAIT:
setp.eq.s32 P, %r1, 0;
@!P bra WAIT;
}
{
.reg .pred P;
WAIT:
setp.eq.s32 P, %r1, 1;
@!P bra WAIT;
}
ret;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B2:fall idom=B0 ipdom=B2
B2 [WAIT] 2 -> B2:taken B3:fall idom=B1 ipdom=B3
B3 [WAIT] 2 -> B3:taken B4:fall idom=B2 ipdom=B4
B4 1 -> B5:exit idom=B3 ipdom=B5
B5 exit idom=B4
`,
		},
		{
			name: "brx.idx",
			body: `ts: .branchtargets L0, L1, L2;
brx.idx %r1, ts;
L0:
mov.u32 %r2, 0;
bra END;
L1:
mov.u32 %r2, 1;
bra END;
L2:
mov.u32 %r2, 2;
END:
ret;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B2:indirect B3:indirect B4:indirect idom=B0 ipdom=B5
B2 [L0] 2 -> B5:taken idom=B1 ipdom=B5
B3 [L1] 2 -> B5:taken idom=B1 ipdom=B5
B4 [L2] 1 -> B5:fall idom=B1 ipdom=B5
B5 [END] 1 -> B6:exit idom=B1 ipdom=B6
B6 exit idom=B5
`,
		},
		{
			name: "infinite loop and missing target",
			body: `@%p1 bra NOWHERE;
SPIN:
bra SPIN;`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B3:unresolved B2:fall idom=B0 ipdom=B3
B2 [SPIN] 1 -> B2:taken idom=B1
B3 exit idom=B1
`,
			issues: 1,
		},
		{
			name: "trailing label falls off the end",
			body: `@%p1 bra END;
mov.u32 %r1, 1;
END:`,
			want: `B0 entry -> B1:entry ipdom=B1
B1 1 -> B3:taken B2:fall idom=B0 ipdom=B3
B2 1 -> B3:fall idom=B1 ipdom=B3
B3 [END] 0 -> B4:fall idom=B1 ipdom=B4
B4 exit idom=B3
`,
		},
		{
			name: "empty body",
			body: ``,
			want: `B0 entry -> B1:entry ipdom=B1
B1 exit idom=B0
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := cfgParse(t, tt.name, cfgKernel(tt.body))
			g := BuildCFG(f.Functions()[0])
			if got := g.String(); got != tt.want {
				t.Errorf("CFG:\n%s\nwant:\n%s", got, tt.want)
			}
			if len(g.Issues) != tt.issues {
				t.Errorf("issues = %v, want %d", g.Issues, tt.issues)
			}
			checkCFG(t, g)
		})
	}
}

func TestCFGDominance(t *testing.T) {
	f := cfgParse(t, "diamond", cfgKernel(`@%p1 bra ELSE;
mov.u32 %r2, 1;
bra JOIN;
ELSE:
mov.u32 %r2, 2;
JOIN:
ret;`))
	g := BuildCFG(f.Functions()[0])
	b := g.Blocks
	cases := []struct {
		a, b      int
		dom, pdom bool
	}{
		{1, 2, true, false}, {1, 3, true, false}, {1, 4, true, false},
		{2, 4, false, false}, {4, 1, false, true}, {4, 2, false, true},
		{0, 4, true, false}, {5, 1, false, true}, {2, 2, true, true}, {3, 2, false, false},
	}
	for _, c := range cases {
		if got := g.Dominates(b[c.a], b[c.b]); got != c.dom {
			t.Errorf("Dominates(B%d, B%d) = %v", c.a, c.b, got)
		}
		if got := g.PostDominates(b[c.a], b[c.b]); got != c.pdom {
			t.Errorf("PostDominates(B%d, B%d) = %v", c.a, c.b, got)
		}
	}
	if g.Label("JOIN") != b[4] || g.Label("nope") != nil {
		t.Errorf("Label lookup wrong")
	}
	if g.BlockOf(g.Insts[0]) != b[1] {
		t.Errorf("BlockOf(first) = %v", g.BlockOf(g.Insts[0]))
	}
	if g.IsBackEdge(b[2], b[4]) {
		t.Errorf("B2->B4 reported as back edge")
	}
}

func TestCFGNoBody(t *testing.T) {
	f := cfgParse(t, "decl", ".version 7.0\n.target sm_80\n.extern .func foo(.param .b32 a);\n")
	g := BuildCFG(f.Functions()[0])
	if len(g.Blocks) != 2 || g.Entry.Succs[0].Block != g.Exit {
		t.Fatalf("declaration CFG = %s", g)
	}
	g = BuildCFG(nil)
	if len(g.Blocks) != 2 {
		t.Fatalf("nil CFG = %s", g)
	}
}

// checkCFG verifies the structural invariants of g.
func checkCFG(t *testing.T, g *CFG) {
	t.Helper()
	if g.Blocks[0] != g.Entry || g.Blocks[len(g.Blocks)-1] != g.Exit {
		t.Fatalf("entry/exit not at the ends")
	}
	n := 0
	for i, b := range g.Blocks {
		if b.Index != i {
			t.Fatalf("block %d has Index %d", i, b.Index)
		}
		for j, in := range b.Insts {
			if g.Insts[b.First+j] != in {
				t.Fatalf("B%d inst %d is not Insts[%d]", i, j, b.First+j)
			}
		}
		n += len(b.Insts)
		for _, e := range b.Succs {
			if !cfgHasEdge(e.Block.Preds, b) {
				t.Errorf("B%d -> B%d has no matching pred", i, e.Block.Index)
			}
			if b.Reachable && !e.Block.Reachable {
				t.Errorf("B%d reachable but successor B%d not", i, e.Block.Index)
			}
		}
		for _, e := range b.Preds {
			if !cfgHasEdge(e.Block.Succs, b) {
				t.Errorf("B%d <- B%d has no matching succ", i, e.Block.Index)
			}
		}
		if b.Reachable && b != g.Entry && b.IDom == nil {
			t.Errorf("reachable B%d has no idom", i)
		}
		if !b.Reachable && b.IDom != nil {
			t.Errorf("unreachable B%d has an idom", i)
		}
		if b.IDom != nil && !g.Dominates(b.IDom, b) {
			t.Errorf("idom of B%d does not dominate it", i)
		}
		if b.IPDom != nil && !g.PostDominates(b.IPDom, b) {
			t.Errorf("ipdom of B%d does not post-dominate it", i)
		}
		if last := b.Last(); last != nil {
			if f := FactsOf(last); f.Branch || f.Return || f.Exit {
				if len(b.Succs) == 0 {
					t.Errorf("B%d ends in %s but has no successors", i, last.Op.Text)
				}
			}
		}
	}
	if n != len(g.Insts) {
		t.Errorf("blocks hold %d instructions, Insts %d", n, len(g.Insts))
	}
	if !g.Entry.Reachable {
		t.Errorf("entry unreachable")
	}
}

func cfgHasEdge(es []Edge, b *BasicBlock) bool {
	for _, e := range es {
		if e.Block == b {
			return true
		}
	}
	return false
}

// TestCFGCorpus builds the CFG of every function of the corpus and checks
// that every block is reachable or marked unreachable, every branch target
// exists and the structural invariants hold.
func TestCFGCorpus(t *testing.T) {
	funcs, blocks, unreachable := 0, 0, 0
	for _, name := range cfgCorpus(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f := cfgParseFile(t, name)
			for _, fn := range f.Functions() {
				g := BuildCFG(fn)
				funcs++
				blocks += len(g.Blocks)
				checkCFG(t, g)
				for _, is := range g.Issues {
					t.Errorf("%s: %s: %s", fn.Name, is.Inst.Op.Text, is.Msg)
				}
				// Every bra target must be a label of the function.
				for _, in := range g.Insts {
					if in.Op.Name != "bra" {
						continue
					}
					if len(in.Args) != 1 || in.Args[0].Kind != OpReg || g.Label(in.Args[0].Name) == nil {
						t.Errorf("%s: bra without a valid target: %v", fn.Name, in.Args)
					}
				}
				for _, b := range g.Blocks {
					if !b.Reachable {
						unreachable++
					}
				}
				// Instructions in the CFG are exactly the instructions of the body.
				if want := cfgCountInsts(fn.Body); want != len(g.Insts) {
					t.Errorf("%s: CFG has %d instructions, body %d", fn.Name, len(g.Insts), want)
				}
			}
		})
	}
	t.Logf("%d functions, %d blocks, %d unreachable", funcs, blocks, unreachable)
}

func cfgCountInsts(b *Block) int {
	if b == nil {
		return 0
	}
	n := 0
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *Instruction:
			n++
		case *Block:
			n += cfgCountInsts(s)
		}
	}
	return n
}

// BenchmarkBuildCFG builds the CFG of every function of the corpus and
// reports the cost per instruction.
func BenchmarkBuildCFG(b *testing.B) {
	var fns []*Function
	insts := 0
	for _, name := range cfgCorpus(b) {
		f := cfgParseFile(b, name)
		for _, fn := range f.Functions() {
			fns = append(fns, fn)
			insts += cfgCountInsts(fn.Body)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, fn := range fns {
			BuildCFG(fn)
		}
	}
	total := float64(insts) * float64(b.N)
	b.ReportMetric(b.Elapsed().Seconds()*1e9/total, "ns/inst")
	b.ReportMetric(total/b.Elapsed().Seconds(), "insts/s")
}

func TestCFGStringStable(t *testing.T) {
	f := cfgParse(t, "s", cfgKernel("@%p1 bra A;\nA:\nret;"))
	a := BuildCFG(f.Functions()[0]).String()
	b := BuildCFG(f.Functions()[0]).String()
	if a != b || !strings.Contains(a, "[A]") {
		t.Fatalf("unstable or wrong:\n%s\n%s", a, b)
	}
}
