package ptx

import (
	"sort"
	"strconv"
	"strings"
)

// Summary is a structural overview of a PTX module: what `ptxtrace inspect`
// prints. It is plain data with JSON tags; Summarize fills it
// deterministically (module order for functions and variables, fixed orders
// for counts).
type Summary struct {
	File        string        `json:"file"`
	Version     string        `json:"version,omitempty"`      // ".version", "7.8"
	Target      []string      `json:"target,omitempty"`       // ".target" names
	AddressSize int           `json:"address_size,omitempty"` // 0 when .address_size is absent
	SourceFiles []SourceFile  `json:"source_files,omitempty"` // the .file table
	Globals     []VarSummary  `json:"globals,omitempty"`      // module-level variables
	Functions   []FuncSummary `json:"functions"`
}

// SourceFile is one entry of the .file table.
type SourceFile struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// VarSummary describes a module-level variable.
type VarSummary struct {
	Name    string   `json:"name"`
	Space   string   `json:"space"` // ".shared", ".global", ".const", ...
	Type    string   `json:"type"`  // ".b8", ".texref", ...
	Size    int      `json:"size"`  // bytes; 0 for an unsized extern array
	Align   int      `json:"align,omitempty"`
	Linkage []string `json:"linkage,omitempty"`
}

// FuncSummary describes one .entry or .func.
type FuncSummary struct {
	Kind    string         `json:"kind"` // "entry" or "func"
	Name    string         `json:"name"`
	Line    int            `json:"line,omitempty"`
	Linkage []string       `json:"linkage,omitempty"` // "visible", "extern", "weak", "common"
	Defined bool           `json:"defined"`           // has a body
	Params  []ParamSummary `json:"params"`
	Returns []ParamSummary `json:"returns,omitempty"`
	// Directives are the performance directives of the header (.maxntid,
	// .reqntid, .minnctapersm, .maxnreg, .pragma, .noreturn, ...).
	Directives []DirectiveSummary `json:"directives,omitempty"`
	// Registers counts the declared registers by type (a range %r<10>
	// counts 10), over all nested scopes; .reg parameters are not counted.
	Registers      []RegCount `json:"registers"`
	RegisterTotal  int        `json:"register_total"`
	SharedBytes    int        `json:"shared_bytes"` // .shared declared in the body
	LocalBytes     int        `json:"local_bytes"`  // .local declared in the body
	ConstBytes     int        `json:"const_bytes"`  // .const declared in the body
	ModuleShared   int        `json:"module_shared_bytes"`
	ModuleConst    int        `json:"module_const_bytes"`
	ModuleLocal    int        `json:"module_local_bytes,omitempty"`
	DynamicShared  bool       `json:"dynamic_shared,omitempty"`
	Calls          []string   `json:"calls,omitempty"` // direct callees, sorted, once each
	Instructions   int        `json:"instructions"`
	Blocks         int        `json:"blocks"` // basic blocks, not counting the synthetic entry and exit
	Memory         []MemCount `json:"memory"`
	MemoryAccesses []Access   `json:"accesses"`
}

// ParamSummary describes a parameter (or return parameter).
type ParamSummary struct {
	Name     string `json:"name"`
	Space    string `json:"space"` // ".param" or ".reg"
	Type     string `json:"type"`
	Size     int    `json:"size"`  // bytes (element size × vector × array elements)
	Align    int    `json:"align"` // declared .align, or the element size when absent
	Ptr      bool   `json:"ptr,omitempty"`
	PtrSpace string `json:"ptr_space,omitempty"`
	PtrAlign int    `json:"ptr_align,omitempty"`
}

// DirectiveSummary is a directive with its arguments as written
// (".maxntid", "256, 1, 1").
type DirectiveSummary struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
}

// RegCount is the number of registers of one type.
type RegCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// MemCount is the number of memory instructions of one kind in one state
// space.
type MemCount struct {
	Space string `json:"space"`
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// Access is one memory instruction.
type Access struct {
	Line     int        `json:"line"` // PTX line, 0 for an instruction built by a pass
	Col      int        `json:"col"`
	Op       string     `json:"op"`    // opcode spelling
	Kind     string     `json:"kind"`  // MemKind name
	Space    string     `json:"space"` // resolved state space
	ReadOnly bool       `json:"read_only,omitempty"`
	Guarded  bool       `json:"guarded,omitempty"`
	Source   *SourcePos `json:"source,omitempty"` // the .loc in effect
}

// SourcePos is a source position from a .loc directive.
type SourcePos struct {
	File string `json:"file"` // name from the .file table, or the index when the table lacks it
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String formats p as "file:line:col".
func (p *SourcePos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Summarize computes the summary of f.
//
// Static memory: SharedBytes, LocalBytes and ConstBytes count the variables
// declared inside the function body. Module-level variables are counted per
// function in ModuleShared/ModuleConst/ModuleLocal when the function
// references them by name, directly or through the functions it calls
// (transitively, by direct call), which is how ptxas allocates static
// shared memory per kernel. An extern .shared array without a size sets
// DynamicShared and counts 0 bytes.
//
// Source positions: an access carries the last .loc directive before it in
// body order (nested blocks flattened), with the file name resolved through
// the module's .file table.
func Summarize(f *File) *Summary {
	s := &Summary{File: f.Name, Functions: []FuncSummary{}}
	files := map[int]string{}
	modVars := map[string]*sumVar{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *Directive:
			switch d.Name {
			case ".version":
				if s.Version == "" {
					if ma, mi, ok := d.Version(); ok {
						s.Version = strconv.Itoa(ma) + "." + strconv.Itoa(mi)
					}
				}
			case ".target":
				if s.Target == nil {
					s.Target = d.Targets()
				}
			case ".address_size":
				if n, ok := d.AddressSize(); ok && s.AddressSize == 0 {
					s.AddressSize = n
				}
			case ".file":
				if fe, ok := d.FileEntry(); ok {
					files[fe.Index] = fe.Name
					s.SourceFiles = append(s.SourceFiles, SourceFile{fe.Index, fe.Name})
				}
			}
		case *VarDecl:
			for i := range d.Names {
				v := VarSummary{
					Name:    d.Names[i].Name,
					Space:   d.Space.String(),
					Type:    d.TypeName,
					Size:    d.Size(i),
					Align:   d.Align,
					Linkage: sumLinkage(d.Linkage),
				}
				s.Globals = append(s.Globals, v)
				modVars[v.Name] = &sumVar{space: d.Space, size: v.Size,
					dynamic: d.Space == SpaceShared && sumUnsized(&d.Names[i])}
			}
		}
	}

	fns := f.Functions()
	refs := make([]map[string]bool, len(fns)) // module variables referenced directly
	byName := map[string]int{}
	for i, fn := range fns {
		if fn.Body != nil {
			byName[fn.Name] = i
		}
	}
	for i, fn := range fns {
		fs := summarizeFunc(f, fn, files)
		refs[i] = sumRefs(fn, modVars)
		s.Functions = append(s.Functions, fs)
	}
	// Module variables through calls: the union over the call closure.
	for i := range fns {
		seen := map[int]bool{i: true}
		work := []int{i}
		used := map[string]bool{}
		for len(work) > 0 {
			j := work[len(work)-1]
			work = work[:len(work)-1]
			for v := range refs[j] {
				used[v] = true
			}
			for _, c := range s.Functions[j].Calls {
				if k, ok := byName[c]; ok && !seen[k] {
					seen[k] = true
					work = append(work, k)
				}
			}
		}
		fs := &s.Functions[i]
		for name := range used {
			v := modVars[name]
			switch v.space {
			case SpaceShared, SpaceSharedCluster:
				fs.ModuleShared += v.size
				if v.dynamic {
					fs.DynamicShared = true
				}
			case SpaceConst:
				fs.ModuleConst += v.size
			case SpaceLocal:
				fs.ModuleLocal += v.size
			}
		}
	}
	return s
}

// sumVar is what Summarize needs of a module variable.
type sumVar struct {
	space   Space
	size    int
	dynamic bool
}

func sumUnsized(d *Declarator) bool {
	for _, x := range d.Dims {
		if x == 0 {
			return d.Init == nil
		}
	}
	return false
}

func sumLinkage(l Linkage) []string {
	var out []string
	for _, x := range []struct {
		bit  Linkage
		name string
	}{{Visible, "visible"}, {Extern, "extern"}, {Weak, "weak"}, {Common, "common"}} {
		if l&x.bit != 0 {
			out = append(out, x.name)
		}
	}
	return out
}

func sumParams(ds []*VarDecl) []ParamSummary {
	out := []ParamSummary{}
	for _, d := range ds {
		for i := range d.Names {
			p := ParamSummary{
				Name:     d.Names[i].Name,
				Space:    d.Space.String(),
				Type:     d.TypeName,
				Size:     d.Size(i),
				Align:    d.Align,
				Ptr:      d.Ptr,
				PtrAlign: d.PtrAlign,
			}
			if p.Align == 0 {
				p.Align = d.Type.Size()
			}
			if d.Ptr && d.PtrSpace != SpaceNone {
				p.PtrSpace = d.PtrSpace.String()
			}
			out = append(out, p)
		}
	}
	return out
}

// sumTokens joins directive argument tokens as they are usually written:
// a space after each comma, none before.
func sumTokens(ts []Token) string {
	var sb strings.Builder
	for i, t := range ts {
		if i > 0 && t.Kind != COMMA && ts[i-1].Kind != LPAREN && t.Kind != RPAREN {
			sb.WriteByte(' ')
		}
		sb.WriteString(t.Text)
	}
	return sb.String()
}

// summarizeFunc fills everything but the module-variable counts.
func summarizeFunc(f *File, fn *Function, files map[int]string) FuncSummary {
	fs := FuncSummary{
		Kind:      "entry",
		Name:      fn.Name,
		Linkage:   sumLinkage(fn.Linkage),
		Defined:   fn.Body != nil,
		Params:    sumParams(fn.Params),
		Registers: []RegCount{},
		Memory:    []MemCount{},
	}
	if fn.Kind == Func {
		fs.Kind = "func"
	}
	if len(fn.Ret) > 0 {
		fs.Returns = sumParams(fn.Ret)
	}
	if f.Tok != nil && fn.NamePos.IsValid() {
		fs.Line = f.Tok.Position(fn.NamePos).Line
	}
	for _, d := range fn.Perf {
		fs.Directives = append(fs.Directives, DirectiveSummary{d.Name, sumTokens(d.Args)})
	}
	if fn.Body == nil {
		fs.MemoryAccesses = []Access{}
		return fs
	}

	type regKey struct {
		t    Type
		name string
	}
	regs := map[regKey]int{}
	type memKey struct {
		space Space
		kind  MemKind
	}
	mem := map[memKey]int{}
	calls := map[string]bool{}
	var loc *SourcePos
	fs.MemoryAccesses = []Access{}

	Inspect(fn.Body, func(n Node) bool {
		switch st := n.(type) {
		case *VarDecl:
			for i := range st.Names {
				switch st.Space {
				case SpaceReg:
					regs[regKey{st.Type, st.TypeName}] += st.Names[i].Count()
				case SpaceShared:
					fs.SharedBytes += st.Size(i)
				case SpaceLocal:
					fs.LocalBytes += st.Size(i)
				case SpaceConst:
					fs.ConstBytes += st.Size(i)
				}
			}
		case *Directive:
			if st.Name == ".loc" {
				if l, ok := st.Loc(); ok {
					name, ok := files[l.File]
					if !ok {
						name = strconv.Itoa(l.File)
					}
					loc = &SourcePos{File: name, Line: l.Line, Col: l.Col}
				}
			}
		case *Instruction:
			fs.Instructions++
			fc := FactsOf(st)
			if fc.Call {
				if c := sumCallee(st); c != "" {
					calls[c] = true
				}
			}
			if fc.Mem == MemNone {
				return true
			}
			mem[memKey{fc.Space, fc.Mem}]++
			a := Access{
				Op:       st.Op.Text, // FactsOf found a memory kind, so Op != nil
				Kind:     fc.Mem.String(),
				Space:    fc.Space.String(),
				ReadOnly: fc.ReadOnly,
				Guarded:  st.Guard != "",
				Source:   loc,
			}
			if f.Tok != nil && st.Pos().IsValid() {
				p := f.Tok.Position(st.Pos())
				a.Line, a.Col = p.Line, p.Column
			}
			fs.MemoryAccesses = append(fs.MemoryAccesses, a)
		}
		return true
	})

	rk := make([]regKey, 0, len(regs))
	for k := range regs {
		rk = append(rk, k)
	}
	sort.Slice(rk, func(i, j int) bool {
		if rk[i].t != rk[j].t {
			return rk[i].t < rk[j].t
		}
		return rk[i].name < rk[j].name
	})
	for _, k := range rk {
		fs.Registers = append(fs.Registers, RegCount{k.name, regs[k]})
		fs.RegisterTotal += regs[k]
	}
	mk := make([]memKey, 0, len(mem))
	for k := range mem {
		mk = append(mk, k)
	}
	sort.Slice(mk, func(i, j int) bool {
		if mk[i].space != mk[j].space {
			return mk[i].space < mk[j].space
		}
		return mk[i].kind < mk[j].kind
	})
	for _, k := range mk {
		fs.Memory = append(fs.Memory, MemCount{k.space.String(), k.kind.String(), mem[k]})
	}
	for c := range calls {
		fs.Calls = append(fs.Calls, c)
	}
	sort.Strings(fs.Calls)
	fs.Blocks = len(BuildCFG(fn).Blocks) - 2
	return fs
}

// sumCallee returns the function name of a direct call, or "" for an
// indirect call through a register.
func sumCallee(in *Instruction) string {
	for i := range in.Args {
		a := &in.Args[i]
		if a.Kind == OpTuple {
			continue
		}
		if a.Kind == OpReg && !strings.HasPrefix(a.Name, "%") {
			return a.Name
		}
		return ""
	}
	return ""
}

// sumRefs returns the module variables fn's body names anywhere: in
// operands, address bases, expressions and initializers.
func sumRefs(fn *Function, vars map[string]*sumVar) map[string]bool {
	refs := map[string]bool{}
	if fn.Body == nil || len(vars) == 0 {
		return refs
	}
	note := func(name string) {
		if _, ok := vars[name]; ok {
			refs[name] = true
		}
	}
	var op func(o *Operand)
	op = func(o *Operand) {
		note(o.Name)
		if o.Name2 != "" {
			note(o.Name2)
		}
		for _, t := range o.Expr {
			if t.Kind == IDENT {
				note(t.Text)
			}
		}
		for i := range o.Elems {
			op(&o.Elems[i])
		}
	}
	Inspect(fn.Body, func(n Node) bool {
		switch st := n.(type) {
		case *Instruction:
			for i := range st.Args {
				op(&st.Args[i])
			}
		case *VarDecl:
			for _, d := range st.Names {
				for _, t := range d.Init {
					if t.Kind == IDENT {
						note(t.Text)
					}
				}
			}
		}
		return true
	})
	return refs
}
