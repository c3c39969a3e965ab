package ptx

import "strings"

// typeOf maps a type directive (".u32") to its Type, or TypeNone.
func typeOf(s string) Type {
	switch s {
	case ".b8":
		return B8
	case ".b16":
		return B16
	case ".b32":
		return B32
	case ".b64":
		return B64
	case ".b128":
		return B128
	case ".u8":
		return U8
	case ".u16":
		return U16
	case ".u32":
		return U32
	case ".u64":
		return U64
	case ".s8":
		return S8
	case ".s16":
		return S16
	case ".s32":
		return S32
	case ".s64":
		return S64
	case ".f16":
		return F16
	case ".f16x2":
		return F16x2
	case ".bf16":
		return BF16
	case ".bf16x2":
		return BF16x2
	case ".tf32":
		return TF32
	case ".f32":
		return F32
	case ".f64":
		return F64
	case ".e4m3":
		return E4M3
	case ".e5m2":
		return E5M2
	case ".e4m3x2":
		return E4M3x2
	case ".e5m2x2":
		return E5M2x2
	case ".pred":
		return Pred
	case ".texref":
		return TexRef
	case ".samplerref":
		return SamplerRef
	case ".surfref":
		return SurfRef
	case ".u16x2":
		return U16x2
	case ".s16x2":
		return S16x2
	}
	return TypeNone
}

// ParseType returns the Type named by s (".u32"), or TypeNone.
func ParseType(s string) Type { return typeOf(s) }

// isKnownDirective reports whether s is a PTX directive keyword (as opposed
// to a type or an unknown name).
func isKnownDirective(s string) bool {
	switch s {
	case ".address_size", ".align", ".branchtargets", ".callprototype", ".calltargets",
		".const", ".entry", ".extern", ".file", ".func", ".global", ".loc", ".local",
		".maxnctapersm", ".maxnreg", ".maxntid", ".minnctapersm", ".param", ".pragma",
		".reg", ".reqntid", ".section", ".shared", ".sreg", ".target", ".tex", ".version",
		".visible", ".weak", ".common", ".noreturn", ".explicitcluster", ".reqnctapercluster",
		".maxclusterrank", ".alias", ".ptr", ".v2", ".v4", ".v8", ".abi_preserve",
		".abi_preserve_control", ".blocksareclusters":
		return true
	}
	return false
}

// modClass is the role of an opcode modifier.
type modClass uint8

const (
	modOther modClass = iota
	modSpace
	modVec
	modType
	modRound
	modCmp
	modBool // .and/.or/.xor: boolean op of setp, atomic op of atom/red
	modCache
	modSem
	modScope
	modAtom
	modDim
	modFlag
)

// classifyMod classifies one modifier (with its dot). flag is the flag bit
// for modFlag.
func classifyMod(m string) (c modClass, flag uint32) {
	switch m {
	case ".global", ".shared", ".local", ".const", ".param", ".shared::cta", ".shared::cluster":
		return modSpace, 0
	case ".v2", ".v4", ".v8":
		return modVec, 0
	case ".rn", ".rz", ".rm", ".rp", ".rni", ".rzi", ".rmi", ".rpi", ".rna", ".rs":
		return modRound, 0
	case ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".ls", ".hs", ".equ", ".neu",
		".ltu", ".leu", ".gtu", ".geu", ".num", ".nan":
		return modCmp, 0
	case ".and", ".or", ".xor":
		return modBool, 0
	case ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt":
		return modCache, 0
	case ".relaxed", ".acquire", ".release", ".acq_rel", ".sc", ".volatile", ".weak", ".mmio":
		return modSem, 0
	case ".cta", ".cluster", ".gpu", ".sys":
		return modScope, 0
	case ".add", ".inc", ".dec", ".min", ".max", ".exch", ".cas":
		return modAtom, 0
	case ".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube", ".acube", ".2dms", ".a2dms":
		return modDim, 0
	case ".wide":
		return modFlag, FlagWide
	case ".hi":
		return modFlag, FlagHi
	case ".lo":
		return modFlag, FlagLo
	case ".ftz":
		return modFlag, FlagFtz
	case ".sat", ".satfinite":
		return modFlag, FlagSat
	case ".approx":
		return modFlag, FlagApprox
	case ".full":
		return modFlag, FlagFull
	case ".uni":
		return modFlag, FlagUni
	case ".sync":
		return modFlag, FlagSync
	case ".aligned":
		return modFlag, FlagAligned
	case ".nc":
		return modFlag, FlagNC
	case ".cc":
		return modFlag, FlagCC
	case ".relu":
		return modFlag, FlagRelu
	case ".NaN":
		return modFlag, FlagNaN
	case ".shiftamt":
		return modFlag, FlagShiftAmt
	}
	if typeOf(m) != TypeNone {
		return modType, 0
	}
	return modOther, 0
}

// isCompareOp reports whether name takes comparison modifiers, where ".lo"
// and ".hi" mean unsigned lower/higher rather than a half of a product.
func isCompareOp(name string) bool {
	switch name {
	case "setp", "set", "slct":
		return true
	}
	return false
}

// isAtomicOp reports whether name takes an atomic operation modifier.
func isAtomicOp(name string) bool {
	switch name {
	case "atom", "red", "redux", "multimem", "cp", "vote":
		return true
	}
	return false
}

// DecodeOpcode decomposes an opcode spelling ("ld.global.nc.v4.f32") into
// an Opcode. It is what the parser uses; passes that build instructions call
// it too so that their opcodes are decoded the same way.
func DecodeOpcode(text string) *Opcode {
	var p parser
	// One allocation holds the Opcode and, for the usual few modifiers
	// and types, their slices (passes decode an opcode per instruction
	// they build).
	box := new(opcodeBox)
	p.box = box
	p.decodeOpcode(&box.op, text)
	return &box.op
}

// opcodeBox is DecodeOpcode's single allocation: the Opcode and room for
// its Mods and Types when they are few.
type opcodeBox struct {
	op    Opcode
	mods  [5]string
	types [2]Type
}

func (p *parser) decodeOpcode(op *Opcode, text string) {
	op.Text = text
	i := strings.IndexByte(text, '.')
	if i < 0 {
		op.Name = text
		return
	}
	op.Name = text[:i]
	var mods [16]string
	var types [4]Type
	nm, nt := 0, 0
	cmp := isCompareOp(op.Name)
	atomic := isAtomicOp(op.Name)
	rest := text[i:]
	var extra []string
	for len(rest) > 0 {
		j := strings.IndexByte(rest[1:], '.')
		var m string
		if j < 0 {
			m, rest = rest, ""
		} else {
			m, rest = rest[:j+1], rest[j+1:]
		}
		if nm < len(mods) {
			mods[nm] = m
			nm++
		} else {
			extra = append(extra, m)
		}
		c, flag := classifyMod(m)
		switch c {
		case modSpace:
			if op.Space == SpaceNone {
				op.Space = spaceOf(m)
			}
		case modVec:
			op.Vec = int(m[2] - '0')
		case modType:
			if nt < len(types) {
				types[nt] = typeOf(m)
				nt++
			}
		case modRound:
			op.Rounding = m
		case modCmp:
			op.Cmp = m
		case modBool:
			if atomic {
				op.Atom = m
			} else {
				op.BoolOp = m
			}
		case modCache:
			op.Cache = m
		case modSem:
			op.Sem = m
		case modScope:
			op.Scope = m
		case modAtom:
			op.Atom = m
		case modDim:
			op.Dim = m
		case modFlag:
			if cmp && (flag == FlagLo || flag == FlagHi) {
				op.Cmp = m
			} else {
				op.Flags |= flag
			}
		}
	}
	if extra != nil {
		all := append(mods[:nm:nm], extra...)
		op.Mods = all
	} else if p.raw != nil {
		op.Mods = p.strs(mods[:nm])
	} else if p.box != nil && nm <= len(p.box.mods) {
		n := copy(p.box.mods[:], mods[:nm])
		op.Mods = p.box.mods[:n:n]
	} else {
		op.Mods = append([]string(nil), mods[:nm]...)
	}
	if nt > 0 {
		if p.raw != nil {
			op.Types = p.types(types[:nt])
		} else if p.box != nil && nt <= len(p.box.types) {
			n := copy(p.box.types[:], types[:nt])
			op.Types = p.box.types[:n:n]
		} else {
			op.Types = append([]Type(nil), types[:nt]...)
		}
	}
}
