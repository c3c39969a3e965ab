package ptx

import (
	"go/token"
)

// Node is any AST node. Pos is the position of the node's first token and End
// the position just past its last one; both are token.NoPos for nodes built by
// a pass rather than parsed.
type Node interface {
	Pos() token.Pos
	End() token.Pos
}

// Decl is a module-level item: a directive, a variable, a function, a debug
// section, a comment, or a BadDecl covering text that did not parse.
type Decl interface {
	Node
	declNode()
}

// Stmt is an item of a function body: an instruction, a label, a variable
// declaration, a directive, a nested block, a comment, or a BadStmt.
type Stmt interface {
	Node
	stmtNode()
}

// File is a parsed PTX module.
type File struct {
	Name  string      // file name as given to the parser
	Src   []byte      // the source the file was parsed from
	Tok   *token.File // position table of Src
	Decls []Decl      // module-level items in source order
	CRLF  bool        // the source uses "\r\n" line ends (Canonical printing keeps them)
}

// Pos returns the position of the start of the file.
func (f *File) Pos() token.Pos {
	if f.Tok == nil {
		return token.NoPos
	}
	return token.Pos(f.Tok.Base())
}

// End returns the position of the end of the file.
func (f *File) End() token.Pos {
	if f.Tok == nil {
		return token.NoPos
	}
	return token.Pos(f.Tok.Base() + f.Tok.Size())
}

// Functions returns the .entry and .func declarations of f, in order.
func (f *File) Functions() []*Function {
	var fs []*Function
	for _, d := range f.Decls {
		if fn, ok := d.(*Function); ok {
			fs = append(fs, fn)
		}
	}
	return fs
}

// Directive reports the first module-level directive with the given name
// (".version", ".target", ".address_size"), or nil.
func (f *File) Directive(name string) *Directive {
	for _, d := range f.Decls {
		if dir, ok := d.(*Directive); ok && dir.Name == name {
			return dir
		}
	}
	return nil
}

// Comment is a "//" or "/* */" comment standing between statements or
// declarations. Comments inside a statement stay in that statement's Toks.
type Comment struct {
	Toks     Toks
	Text     string // the comment including its markers
	SameLine bool   // the comment follows a statement on the same source line
}

// Directive is a directive that is neither a variable declaration nor a
// function: .version, .target, .address_size, .file, .loc, .pragma, .maxntid,
// .callprototype and any other. Args holds its argument tokens (without the
// name and the terminating ';'), comments excluded. Typed views of the common
// directives are available as methods (Version, Targets, Loc, ...).
type Directive struct {
	Toks Toks
	Name string  // ".version"
	Args []Token // arguments
	Semi bool    // terminated by ';'
}

// Section is a `.section NAME { ... }` debug block, kept verbatim.
type Section struct {
	Toks Toks
	Name string // ".debug_info"
	Body string // the text from '{' to '}' inclusive, verbatim
}

// Space is a PTX state space.
type Space uint8

// State spaces.
const (
	SpaceNone Space = iota
	SpaceReg
	SpaceSReg
	SpaceConst
	SpaceGlobal
	SpaceLocal
	SpaceParam
	SpaceShared
	SpaceSharedCluster // .shared::cluster
	SpaceTex
	SpaceGeneric // explicit generic addressing (no space on a memory op)
)

var spaceNames = [...]string{"", ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".shared::cluster", ".tex", "generic"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return "Space(?)"
}

// Type is a PTX fundamental type, or an opaque type.
type Type uint8

// Types.
const (
	TypeNone Type = iota
	B8
	B16
	B32
	B64
	B128
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F16x2
	BF16
	BF16x2
	TF32
	F32
	F64
	E4M3
	E5M2
	E4M3x2
	E5M2x2
	Pred
	TexRef
	SamplerRef
	SurfRef
	U16x2
	S16x2
	typeCount
)

var typeNames = [...]string{"", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64",
	".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".tf32", ".f32", ".f64",
	".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2", ".pred", ".texref", ".samplerref", ".surfref", ".u16x2", ".s16x2"}

var typeSizes = [...]int{0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 4, 8, 1, 1, 2, 2, 1, 8, 8, 8, 4, 4}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "Type(?)"
}

// Size returns the size of a value of type t in bytes (predicates count as 1;
// opaque handles as 8).
func (t Type) Size() int {
	if int(t) < len(typeSizes) {
		return typeSizes[t]
	}
	return 0
}

// IsFloat reports whether t is a floating-point type.
func (t Type) IsFloat() bool {
	switch t {
	case F16, F16x2, BF16, BF16x2, TF32, F32, F64, E4M3, E5M2, E4M3x2, E5M2x2:
		return true
	}
	return false
}

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t >= S8 && t <= S64 || t == S16x2 }

// Linkage is the set of linking directives in front of a declaration.
type Linkage uint8

// Linkage bits.
const (
	Visible Linkage = 1 << iota
	Extern
	Weak
	Common
)

// Declarator is one name declared by a VarDecl.
type Declarator struct {
	Pos   token.Pos
	Name  string  // "%r", "smem", "__cudart_i2opi_f"
	Range int     // n in "%r<n>", or -1 when the name is not a range
	Dims  []int   // array dimensions; 0 for "[]" (size from the initializer or extern)
	Init  []Token // initializer tokens after '=', or nil
}

// Count returns how many registers or variables the declarator declares.
func (d *Declarator) Count() int {
	if d.Range >= 0 {
		return d.Range
	}
	return 1
}

// Elems returns the number of array elements (1 for a scalar).
func (d *Declarator) Elems() int {
	n := 1
	for _, x := range d.Dims {
		n *= x
	}
	return n
}

// VarDecl declares variables or registers in a state space: module-level
// .global/.const/.shared/.tex variables, body .reg/.local/.shared/.param
// declarations, and the .param entries of a function signature.
type VarDecl struct {
	Toks     Toks
	Linkage  Linkage
	Space    Space  // SpaceReg, SpaceGlobal, SpaceParam, ...
	Align    int    // .align N, or 0
	Vec      int    // .v2/.v4/.v8, or 0
	Type     Type   // element type (.b32, .u64, .texref, ...)
	TypeName string // spelling of Type (".u64"), also for types this package does not know
	Ptr      bool   // .ptr attribute on a kernel parameter
	PtrSpace Space  // state space named by .ptr (.global/.shared/...)
	PtrAlign int    // .align after .ptr
	Names    []Declarator
	Attrs    []string // other attributes kept as spelled (e.g. ".attribute(.managed)")
}

// Size returns the number of bytes one declarator of d occupies (element size
// × vector width × array elements).
func (d *VarDecl) Size(i int) int {
	el := d.Type.Size()
	if d.Vec > 0 {
		el *= d.Vec
	}
	return el * d.Names[i].Elems()
}

// FuncKind tells an .entry from a .func.
type FuncKind uint8

// Function kinds.
const (
	Entry FuncKind = iota
	Func
)

// Function is an .entry or .func, with or without a body.
type Function struct {
	Toks    Toks // header tokens, from the first linkage directive to the body's '{' (excluded) or the ';'
	Linkage Linkage
	Kind    FuncKind
	Name    string
	NamePos token.Pos
	Ret     []*VarDecl   // return parameters of a .func
	Params  []*VarDecl   // parameters
	NoParen bool         // an .entry written without a parameter list
	Perf    []*Directive // .maxntid, .reqntid, .minnctapersm, .maxnreg, .pragma, .noreturn ... in the header
	Body    *Block       // nil for a declaration ending in ';'
}

// Block is a brace-delimited list of statements.
type Block struct {
	Lbrace Token
	Stmts  []Stmt
	Rbrace Token
}

// Label is "name:" in a body.
type Label struct {
	Toks Toks
	Name string
}

// Instruction is one PTX instruction, optionally guarded by a predicate.
type Instruction struct {
	Toks     Toks
	Guard    string    // predicate register of "@%p", or ""
	GuardNeg bool      // "@!%p"
	Op       *Opcode   // decoded opcode, shared by instructions with the same spelling
	Args     []Operand // operands in order
}

// Opcode is an instruction name with its modifiers decomposed. The parser
// decodes each distinct spelling once and instructions with the same spelling
// share one *Opcode: treat it as immutable and assign a new one
// (DecodeOpcode) to change an instruction's opcode.
type Opcode struct {
	Text  string   // full spelling, "ld.global.nc.v4.f32"
	Name  string   // base name, "ld"
	Mods  []string // modifiers in order with their dots, ".global", ".nc", ".v4", ".f32"
	Space Space    // state-space modifier, or SpaceNone
	Vec   int      // .v2/.v4/.v8 width, or 0
	Types []Type   // type modifiers in order (".f32", or ".s32.f32" for cvt)
	// Other modifiers, classified; the empty string when absent.
	Rounding string // .rn .rz .rm .rp .rni .rzi .rmi .rpi .rna .rs
	Cmp      string // comparison of setp/set/slct: .eq .lt .ge ...
	BoolOp   string // .and .or .xor of setp/set
	Cache    string // cache operator .ca .cg .cs .lu .cv .wb .wt
	Sem      string // memory ordering .relaxed .acquire .release .acq_rel .sc .volatile .weak .mmio
	Scope    string // .cta .cluster .gpu .sys
	Atom     string // atomic/reduction operation .add .cas .exch ...
	Dim      string // texture geometry .1d .2d .3d .a1d .a2d .cube .acube .2dms .a2dms
	Flags    uint32 // bit set of flag modifiers (FlagWide, FlagFtz, ...)
}

// Opcode flag bits.
const (
	FlagWide uint32 = 1 << iota
	FlagHi
	FlagLo
	FlagFtz
	FlagSat
	FlagApprox
	FlagFull
	FlagUni
	FlagSync
	FlagAligned
	FlagNC
	FlagCC
	FlagRelu
	FlagNaN
	FlagShiftAmt
)

// Has reports whether the opcode carries modifier m (with its dot, ".nc").
func (o *Opcode) Has(m string) bool {
	for _, x := range o.Mods {
		if x == m {
			return true
		}
	}
	return false
}

// Type returns the last type modifier (the operation type of most
// instructions), or TypeNone.
func (o *Opcode) Type() Type {
	if len(o.Types) == 0 {
		return TypeNone
	}
	return o.Types[len(o.Types)-1]
}

// OperandKind classifies an Operand.
type OperandKind uint8

// Operand kinds.
const (
	OpBad     OperandKind = iota
	OpReg                 // a register or a name that is not followed by brackets: %r1, %tid.x, rud0, a label or a symbol
	OpImm                 // an integer or float literal, possibly negated: 42, -1, 0f3F800000
	OpAddr                // "[base]", "[base+off]", "[base+-off]", "[imm]", or "[tex, coords]" (Elems holds coords)
	OpVec                 // "{a, b, c, d}" (Elems)
	OpTuple               // "(a, b)" argument/return lists of call (Elems)
	OpSink                // "_"
	OpPredNeg             // "!%p" as an operand
	OpPair                // "%p|%q" destination pair of setp
	OpExpr                // any other expression; Expr holds its tokens
)

// Operand is one instruction operand. It is a value type so an instruction's
// operands are a single slice with no per-operand allocation.
type Operand struct {
	Kind   OperandKind
	Pos    token.Pos
	Name   string    // register/symbol name (OpReg, OpPredNeg, OpAddr base); literal text (OpImm); first of OpPair
	Name2  string    // second register of OpPair
	Offset int64     // OpAddr: constant offset added to the base
	Elems  []Operand // OpVec, OpTuple, and OpAddr texture/surface coordinates
	Expr   []Token   // OpExpr tokens, and OpImm tokens when the literal is an expression
}

// BadDecl covers module-level text that did not parse.
type BadDecl struct{ Toks Toks }

// BadStmt covers body text that did not parse.
type BadStmt struct{ Toks Toks }

func (n *Comment) Pos() token.Pos   { return n.Toks.pos() }
func (n *Comment) End() token.Pos   { return n.Toks.end() }
func (n *Directive) Pos() token.Pos { return n.Toks.pos() }
func (n *Directive) End() token.Pos { return n.Toks.end() }
func (n *Section) Pos() token.Pos   { return n.Toks.pos() }
func (n *Section) End() token.Pos   { return n.Toks.end() }
func (n *VarDecl) Pos() token.Pos   { return n.Toks.pos() }
func (n *VarDecl) End() token.Pos   { return n.Toks.end() }
func (n *Function) Pos() token.Pos  { return n.Toks.pos() }
func (n *Function) End() token.Pos {
	if n.Body != nil && n.Body.Rbrace.Pos.IsValid() {
		return n.Body.Rbrace.End()
	}
	return n.Toks.end()
}
func (n *Block) Pos() token.Pos       { return n.Lbrace.Pos }
func (n *Block) End() token.Pos       { return n.Rbrace.End() }
func (n *Label) Pos() token.Pos       { return n.Toks.pos() }
func (n *Label) End() token.Pos       { return n.Toks.end() }
func (n *Instruction) Pos() token.Pos { return n.Toks.pos() }
func (n *Instruction) End() token.Pos { return n.Toks.end() }
func (n *BadDecl) Pos() token.Pos     { return n.Toks.pos() }
func (n *BadDecl) End() token.Pos     { return n.Toks.end() }
func (n *BadStmt) Pos() token.Pos     { return n.Toks.pos() }
func (n *BadStmt) End() token.Pos     { return n.Toks.end() }

func (*Comment) declNode()   {}
func (*Directive) declNode() {}
func (*Section) declNode()   {}
func (*VarDecl) declNode()   {}
func (*Function) declNode()  {}
func (*BadDecl) declNode()   {}

func (*Comment) stmtNode()     {}
func (*Directive) stmtNode()   {}
func (*VarDecl) stmtNode()     {}
func (*Block) stmtNode()       {}
func (*Label) stmtNode()       {}
func (*Instruction) stmtNode() {}
func (*BadStmt) stmtNode()     {}
