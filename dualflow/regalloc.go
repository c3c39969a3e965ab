package dualflow

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Allocation maps the virtual registers of one function onto physical
// registers. Physical registers are numbered per class; Words is the
// 32-bit register count (Class16 + Class32 + 2*Class64, predicates not
// counted), the number ptxas -v reports as "Used N registers".
type Allocation struct {
	Func   *Func
	Phys   map[string]int // virtual register -> physical number within its class
	Count  [numClasses]int
	Words  int
	Limit  int // the N it was asked to fit, 0 for none
	Interf int // interference edges
	// MaxLive is the most 32-bit words live at once in Func: no
	// allocation of this instruction order can use fewer.
	MaxLive int
	// Spilling (spill.go): Orig is the function as given; Func is Orig with
	// spill code when Spilled is non-empty. Spilled lists the registers of
	// Orig held in local memory, in the order they were chosen; Stores and
	// Reloads count the spill instructions added (static); Unspilled is the
	// words the colouring of Orig needed (more than Limit when spilled).
	Orig            *Func
	Spilled         []string
	Stores, Reloads int
	Unspilled       int
}

// PhysName is the name the rewritten PTX gives physical register n of class c.
func PhysName(c RegClass, n int) string {
	return fmt.Sprintf("%%%s%d", [...]string{"P", "H", "R", "D"}[c], n)
}

// Allocate colours the interference graph of f's virtual registers (two
// registers interfere when one is defined where the other is live, or both
// are live into the entry) greedily in three orders, keeping the fewest
// words. limit > 0 is the 32-bit register budget N: when the colouring
// needs more, registers are spilled to local memory (spill.go) until it
// fits; a budget that cannot be met even with every register spilled is
// refused.
func Allocate(f *Func, limit int) (*Allocation, error) {
	a := colourFunc(f, limit)
	a.Orig, a.Unspilled = f, a.Words
	if limit <= 0 || a.Words <= limit {
		return a, nil
	}
	return spillUntilFits(f, a, limit)
}

// colourFunc is Allocate without spilling: the best of three greedy
// colourings of f, whatever its word count.
func colourFunc(f *Func, limit int) *Allocation {
	adj := map[string]map[string]bool{}
	add := func(a, b string) {
		if a == b || f.Class(a) != f.Class(b) {
			return
		}
		if adj[a] == nil {
			adj[a] = map[string]bool{}
		}
		if adj[b] == nil {
			adj[b] = map[string]bool{}
		}
		adj[a][b] = true
		adj[b][a] = true
	}
	for bi := range f.CFG.Blocks {
		live := map[string]bool{}
		for r := range f.LiveOut[bi] {
			live[r] = true
		}
		insts := f.blockInsts(bi)
		for i := len(insts) - 1; i >= 0; i-- {
			it := insts[i]
			for _, d := range it.Defs {
				for r := range live {
					add(d, r)
				}
				for _, d2 := range it.Defs {
					add(d, d2)
				}
			}
			for _, d := range it.Defs {
				delete(live, d)
			}
			for _, u := range it.Uses {
				live[u] = true
			}
		}
		if bi == f.CFG.Entry.Index {
			for a := range f.LiveIn[bi] {
				for b := range f.LiveIn[bi] {
					add(a, b)
				}
			}
		}
	}
	// colouring order: first definition (or use) in source order, then
	// declaration order for registers never mentioned
	var order []string
	seen := map[string]bool{}
	for _, it := range f.Insts {
		for _, lst := range [][]string{it.Uses, it.Defs} {
			for _, r := range lst {
				if !seen[r] {
					seen[r] = true
					order = append(order, r)
				}
			}
		}
	}
	// three orders (first mention, reverse, most neighbours first); the
	// allocation with the fewest 32-bit words wins (the first on ties)
	byDegree := append([]string(nil), order...)
	sort.SliceStable(byDegree, func(i, j int) bool { return len(adj[byDegree[i]]) > len(adj[byDegree[j]]) })
	rev := make([]string, len(order))
	for i, r := range order {
		rev[len(order)-1-i] = r
	}
	var a *Allocation
	for _, o := range [][]string{order, rev, byDegree} {
		c := colour(f, o, adj, limit)
		if a == nil || c.Words < a.Words {
			a = c
		}
	}
	a.MaxLive = maxLive(f)
	for _, m := range adj {
		a.Interf += len(m)
	}
	a.Interf /= 2
	return a
}

// colour colours registers greedily in the given order.
func colour(f *Func, order []string, adj map[string]map[string]bool, limit int) *Allocation {
	a := &Allocation{Func: f, Phys: map[string]int{}, Limit: limit}
	for _, r := range order {
		used := map[int]bool{}
		for n := range adj[r] {
			if p, ok := a.Phys[n]; ok {
				used[p] = true
			}
		}
		p := 0
		for used[p] {
			p++
		}
		a.Phys[r] = p
		c := f.Class(r)
		if p+1 > a.Count[c] {
			a.Count[c] = p + 1
		}
	}
	for c := RegClass(0); c < numClasses; c++ {
		a.Words += a.Count[c] * c.words()
	}
	return a
}

// maxLive is the largest number of 32-bit words live at once just after
// any instruction (or into the entry): a lower bound for any allocation
// of this instruction order.
func maxLive(f *Func) int {
	words := func(m map[string]bool) int {
		n := 0
		for r := range m {
			n += f.Class(r).words()
		}
		return n
	}
	best := words(f.LiveIn[f.CFG.Entry.Index])
	for bi := range f.CFG.Blocks {
		live := map[string]bool{}
		for r := range f.LiveOut[bi] {
			live[r] = true
		}
		insts := f.blockInsts(bi)
		for i := len(insts) - 1; i >= 0; i-- {
			it := insts[i]
			all := map[string]bool{}
			for r := range live {
				all[r] = true
			}
			for _, d := range it.Defs {
				all[d] = true
			}
			best = max(best, words(all))
			for _, d := range it.Defs {
				delete(live, d)
			}
			for _, u := range it.Uses {
				live[u] = true
			}
		}
	}
	return best
}

// Verify checks the allocation independently of how it was built: walking
// every block backwards from its live-out set, no two simultaneously live
// registers of a class share a physical register at any definition point.
func (a *Allocation) Verify() error {
	f := a.Func
	for bi := range f.CFG.Blocks {
		live := map[string]bool{}
		for r := range f.LiveOut[bi] {
			live[r] = true
		}
		insts := f.blockInsts(bi)
		for i := len(insts) - 1; i >= 0; i-- {
			it := insts[i]
			for _, d := range it.Defs {
				for r := range live {
					if r != d && f.Class(r) == f.Class(d) && a.Phys[r] == a.Phys[d] {
						return fmt.Errorf("%s: %s and %s share %s while both live", f.Pos(it.In), d, r, PhysName(f.Class(d), a.Phys[d]))
					}
				}
			}
			for _, d := range it.Defs {
				delete(live, d)
			}
			for _, u := range it.Uses {
				live[u] = true
			}
		}
	}
	words := 0
	for c := RegClass(0); c < numClasses; c++ {
		max := -1
		for r, p := range a.Phys {
			if f.Class(r) == c && p > max {
				max = p
			}
		}
		words += (max + 1) * c.words()
	}
	if words != a.Words {
		return fmt.Errorf("%s: allocation counts %d words, mapping uses %d", f.Fn.Name, a.Words, words)
	}
	if a.Limit > 0 && words > a.Limit {
		return fmt.Errorf("%s: %d registers > N=%d", f.Fn.Name, words, a.Limit)
	}
	for _, r := range a.Spilled {
		if _, ok := f.RegType[r]; ok {
			return fmt.Errorf("%s: spilled register %s is still in the code", f.Fn.Name, r)
		}
	}
	return nil
}

var regTok = regexp.MustCompile(`%[A-Za-z_$][A-Za-z0-9_$]*`)

// renameRegs replaces every declared register token in s by m(name).
func renameRegs(s string, m func(string) (string, bool)) string {
	return regTok.ReplaceAllStringFunc(s, func(t string) string {
		if r, ok := m(t); ok {
			return r
		}
		return t
	})
}

// Rewrite returns the PTX of a.Func with every virtual register replaced by
// its physical register (declared .b16/.b32/.b64/.pred, which PTX's
// type rules accept for any instruction type of the same size).
func (a *Allocation) Rewrite() string {
	f := a.Func
	var decl strings.Builder
	types := [...]string{".pred", ".b16", ".b32", ".b64"}
	for c := RegClass(0); c < numClasses; c++ {
		if a.Count[c] > 0 {
			fmt.Fprintf(&decl, "\t.reg %s \t%s<%d>;\n", types[c], strings.TrimSuffix(PhysName(c, 0), "0"), a.Count[c])
		}
	}
	return f.rewriteBody(decl.String(), func(in *ptx.Instruction, text string) string {
		return renameRegs(text, func(r string) (string, bool) {
			if _, ok := f.RegType[r]; !ok {
				return "", false
			}
			return PhysName(f.Class(r), a.Phys[r]), true
		})
	})
}
