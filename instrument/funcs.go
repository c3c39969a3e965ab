package instrument

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Loads in .func bodies. A probe needs its warp's count address
// (%__pt_a0), the records that go there (%__pt_r22) and the dummy
// predicate; a .func cannot see its caller's registers, so every function
// that holds a site, or calls (transitively) one that does, gets three
// added parameters
//
//	.param .b64 __pt_fa0     (.b32 with 32-bit addressing)
//	.param .b32 __pt_flim
//	.param .b32 __pt_fdummy
//
// and every call of such a function, in kernels and functions (recursion
// included), passes %__pt_a0, %__pt_r22 and the dummy predicate as 0/1.
// A kernel that calls one is instrumented even without sites of its own.
// A function site is one region per static site; each call executes it
// again, so its instances in a warp's records are per dynamic call, in
// program order, like a load in a loop. Its probes are listed under every
// kernel that reaches the function (same id, manifest field "function").
//
// Indirect calls (through a register) and direct calls with a prototype
// cannot be given the added arguments: when the module has one, function
// bodies are not probed and a warning says why.
const (
	ParamFuncA0    = "__pt_fa0"
	ParamFuncLim   = "__pt_flim"
	ParamFuncDummy = "__pt_fdummy"
)

// callTarget returns the callee of a call instruction and whether the
// call is direct without a prototype.
func callTarget(in *ptx.Instruction) (name string, direct bool) {
	a := in.Args
	i := 0
	if i < len(a) && a[i].Kind == ptx.OpTuple {
		i++
	}
	if i >= len(a) {
		return "", false
	}
	name = a[i].Name
	if strings.HasPrefix(name, "%") {
		return name, false
	}
	// call (rets), f, (args), proto: a prototype operand after the args.
	rest := a[i+1:]
	if len(rest) > 0 && rest[0].Kind == ptx.OpTuple {
		rest = rest[1:]
	}
	return name, len(rest) == 0
}

func isCall(in *ptx.Instruction) bool {
	return in.Op != nil && in.Op.Name == "call"
}

// planFuncs decides which functions are probed or forward the trace
// context, and adds the kernels that call them. It runs after collect.
func (m *module) planFuncs(funcSites map[*ptx.Function]*kernel) ([]string, error) {
	if len(funcSites) == 0 {
		return nil, nil
	}
	var warnings []string
	byName := map[string]*ptx.Function{}
	calls := map[*ptx.Function][]*ptx.Function{}
	var fns []*ptx.Function
	for _, fn := range m.f.Functions() {
		if fn.Body != nil {
			byName[fn.Name] = fn
			fns = append(fns, fn)
		}
	}
	for _, fn := range fns {
		bad := ""
		for _, in := range flatten(fn.Body, nil) {
			if !isCall(in) {
				continue
			}
			name, direct := callTarget(in)
			if !direct {
				bad = fmt.Sprintf("%s: %s: the added trace arguments cannot be passed through it", m.pos(in.Pos()), m.text(in))
				break
			}
			if g := byName[name]; g != nil {
				calls[fn] = append(calls[fn], g)
			}
		}
		if bad != "" {
			return []string{bad + "; loads in .func bodies are not probed"}, nil
		}
	}
	// With --kernel, a function also reached from another kernel is not
	// probed (that kernel would have to pass the trace context).
	if m.opts.Kernel != "" {
		for _, fn := range fns {
			if fn.Kind != ptx.Entry || fn.Name == m.opts.Kernel {
				continue
			}
			for g := range reach(fn, calls) {
				if funcSites[g] != nil {
					warnings = append(warnings, fmt.Sprintf("%s: function %s: not probed: also called from kernel %s", m.pos(g.NamePos), g.Name, fn.Name))
					delete(funcSites, g)
				}
			}
		}
	}
	// F: functions with sites and those calling them.
	in := map[*ptx.Function]bool{}
	for g := range funcSites {
		in[g] = true
	}
	// Callers of F, transitively: a walk up the reversed call graph
	// (linear in the calls, whatever the depth of the call chains).
	callers := map[*ptx.Function][]*ptx.Function{}
	for _, fn := range fns {
		for _, g := range calls[fn] {
			callers[g] = append(callers[g], fn)
		}
	}
	var work []*ptx.Function
	for _, fn := range fns {
		if in[fn] {
			work = append(work, fn)
		}
	}
	for len(work) > 0 {
		g := work[len(work)-1]
		work = work[:len(work)-1]
		for _, fn := range callers[g] {
			if fn.Kind != ptx.Entry && !in[fn] {
				in[fn] = true
				work = append(work, fn)
			}
		}
	}
	for _, fn := range fns {
		if !in[fn] {
			continue
		}
		k := funcSites[fn]
		if k == nil {
			k = &kernel{m: m, fn: fn, regs: ptx.FunctionRegs(fn), isFunc: true}
		}
		m.funcs = append(m.funcs, k)
	}
	m.traced = in
	m.tracedNames = map[string]bool{}
	for fn := range in {
		m.tracedNames[fn.Name] = true
	}
	// Kernels calling into F.
	for _, fn := range fns {
		if fn.Kind != ptx.Entry || m.probed(fn) != nil {
			continue
		}
		if m.opts.Kernel != "" && fn.Name != m.opts.Kernel {
			continue
		}
		for _, g := range calls[fn] {
			if in[g] {
				m.kernels = append(m.kernels, &kernel{m: m, fn: fn, regs: ptx.FunctionRegs(fn)})
				break
			}
		}
	}
	order := map[*ptx.Function]int{}
	for i, fn := range m.f.Functions() {
		order[fn] = i
	}
	sort.SliceStable(m.kernels, func(i, j int) bool { return order[m.kernels[i].fn] < order[m.kernels[j].fn] })
	// Each kernel lists the probes of the functions it reaches.
	for _, k := range m.kernels {
		for g := range reach(k.fn, calls) {
			if fk := funcSites[g]; fk != nil && in[g] {
				k.callees = append(k.callees, fk)
			}
		}
		sort.Slice(k.callees, func(i, j int) bool { return order[k.callees[i].fn] < order[k.callees[j].fn] })
	}
	return warnings, nil
}

// reach returns the functions reachable from fn through direct calls.
func reach(fn *ptx.Function, calls map[*ptx.Function][]*ptx.Function) map[*ptx.Function]bool {
	seen := map[*ptx.Function]bool{}
	var visit func(f *ptx.Function)
	visit = func(f *ptx.Function) {
		for _, g := range calls[f] {
			if !seen[g] {
				seen[g] = true
				visit(g)
			}
		}
	}
	visit(fn)
	return seen
}

// passContext rewrites a call of a traced function to pass the trace
// context: %__pt_a0, %__pt_r22 and the dummy predicate as 0/1 in %__pt_r9.
func (k *kernel) passContext(in *ptx.Instruction) code {
	name, _ := callTarget(in)
	if g := k.m.byNameTraced(name); !g {
		return nil
	}
	var c code
	if k.isFunc || k.useDummy {
		k.op(&c, "selp.u32", r(9), imm(1), imm(0), pr(0))
	} else {
		k.op(&c, "mov.u32", r(9), imm(0))
	}
	args := append([]ptx.Operand(nil), in.Args...)
	extra := []ptx.Operand{a(0), r(22), r(9)}
	n := 0
	if n < len(args) && args[n].Kind == ptx.OpTuple {
		n++
	}
	n++ // the callee
	if n < len(args) && args[n].Kind == ptx.OpTuple {
		t := args[n]
		t.Elems = append(append([]ptx.Operand(nil), t.Elems...), extra...)
		args[n] = t
	} else {
		args = append(args[:n], ptx.Operand{Kind: ptx.OpTuple, Elems: extra})
	}
	op := in.Op.Text
	if op == "" {
		op = in.Op.Name + strings.Join(in.Op.Mods, "")
	}
	nc := ptx.NewInstruction(op, args...)
	nc.Guard, nc.GuardNeg = in.Guard, in.GuardNeg
	*in = *nc
	return c
}

func (m *module) byNameTraced(name string) bool {
	return m.tracedNames[name]
}

// funcPrologue loads the trace context from the function's added
// parameters.
func (k *kernel) funcPrologue(c *code) {
	c.comment("ptxtrace: trace context from the caller")
	k.op(c, "ld.param."+k.at(), a(0), ptx.Addr(ParamFuncA0, 0))
	k.op(c, "ld.param.u32", r(22), ptx.Addr(ParamFuncLim, 0))
	// The caller's global segment, for records beyond the staged ones
	// (the kernel's prologue keeps it at offset 16 of a staged slot; with
	// global staging r22 is the capacity and it is never used).
	k.op(c, "ld."+k.at(), a(1), addrOff(a(0), 16))
	k.op(c, "ld.param.u32", r(9), ptx.Addr(ParamFuncDummy, 0))
	k.op(c, "setp.ne.u32", pr(0), r(9), imm(0))
}

// declareFuncParams adds the trace parameters to the declarations
// (prototypes without a body) of traced functions.
func (m *module) declareFuncParams() {
	for _, fn := range m.f.Functions() {
		if fn.Body != nil || !m.byNameTraced(fn.Name) {
			continue
		}
		at := ptx.U64
		if !m.addr64 {
			at = ptx.U32
		}
		fn.AddParam(&ptx.VarDecl{Type: at, TypeName: at.String(), Names: []ptx.Declarator{{Name: ParamFuncA0, Range: -1}}})
		fn.AddParam(&ptx.VarDecl{Type: ptx.U32, TypeName: ".u32", Names: []ptx.Declarator{{Name: ParamFuncLim, Range: -1}}})
		fn.AddParam(&ptx.VarDecl{Type: ptx.U32, TypeName: ".u32", Names: []ptx.Declarator{{Name: ParamFuncDummy, Range: -1}}})
	}
}
